/**
 * ADOL tool selection (draft-chang §3.4) on tool texts and requests in six scripts,
 * with the real offline embedder: a request finds the tool described in its own
 * script, in every mode, and no text (JS property names, symbols only, scripts the
 * tool list does not use) makes selection throw.
 */
import { describe, expect, it } from 'vitest';
// Here rather than in libs/adol: the pure library never imports an adapter.
import { selectTools, type ToolLike } from '@parley/adol';
import { createOfflineEmbedder } from '@parley/embeddings';

const embedder = createOfflineEmbedder();

/** Per script: three tools (seat, meal, baggage) and one request for each, in that script. */
const SCRIPTS: Record<string, { tools: [string, string, string]; requests: [string, string, string] }> = {
  chinese: { tools: ['选择靠窗或靠过道的座位', '预订素食或特殊餐食', '增加托运行李额度'], requests: ['我想要靠窗的座位', '请给我素食餐食', '我要多带一件托运行李'] },
  japanese: { tools: ['窓側または通路側の座席を選ぶ', 'ベジタリアンの食事を予約する', '預け荷物を追加する'], requests: ['窓側の座席をお願いします', 'ベジタリアンの食事がいい', '預け荷物を一つ追加したい'] },
  russian: { tools: ['выбрать место у окна или у прохода', 'заказать вегетарианское питание', 'добавить багаж к бронированию'], requests: ['хочу место у окна', 'нужно вегетарианское питание', 'добавьте ещё один багаж'] },
  arabic: { tools: ['اختيار مقعد بجانب النافذة أو الممر', 'طلب وجبة نباتية خاصة', 'إضافة أمتعة مسجلة إلى الحجز'], requests: ['أريد مقعد بجانب النافذة', 'أريد وجبة نباتية', 'إضافة أمتعة أخرى'] },
  korean: { tools: ['창가 또는 통로 좌석 선택', '채식 식사 예약', '위탁 수하물 추가'], requests: ['창가 좌석을 원해요', '채식 식사 주세요', '수하물 추가 해주세요'] },
  english: { tools: ['Choose a window or aisle seat', 'Order a vegetarian or special meal', 'Add checked baggage to the booking'], requests: ['I want a window seat', 'a vegetarian meal please', 'add one more checked bag'] },
};
const NAMES = ['choose_seat', 'order_meal', 'add_baggage'];

describe('tool selection over texts in six scripts', () => {
  for (const [script, { tools, requests }] of Object.entries(SCRIPTS)) {
    const list: ToolLike[] = tools.map((description, i) => ({ name: NAMES[i]!, description }));
    for (const mode of ['hybrid', 'semantic', 'lexical'] as const) {
      it(`${script}, ${mode}: each request's own tool comes first`, async () => {
        for (const [i, q] of requests.entries()) {
          const got = await selectTools(list, q, { embedder, mode, topK: 3, cut: 'fixed' });
          expect(got[0]?.tool.name, `${q} (${got.map((g) => `${g.tool.name} ${g.score.toFixed(3)}`).join(', ')})`).toBe(NAMES[i]);
        }
      });
    }
  }

  it('one list holding every script: a request still finds its own tool among 18', async () => {
    const list: ToolLike[] = Object.entries(SCRIPTS).flatMap(([script, { tools }]) => tools.map((description, i) => ({ name: `${script}_${NAMES[i]}`, description })));
    for (const [script, { requests }] of Object.entries(SCRIPTS)) {
      for (const [i, q] of requests.entries()) {
        const got = await selectTools(list, q, { embedder, topK: 5 });
        expect(got[0]?.tool.name, q).toBe(`${script}_${NAMES[i]}`);
      }
    }
  });

  it('never throws on requests and tool texts of JS property names, symbols or another script', async () => {
    const list: ToolLike[] = [
      { name: 'constructor', description: 'toString valueOf hasOwnProperty __proto__' },
      { name: 'book_seat', description: 'Book a window seat' },
      { name: '__proto__', description: '我想要靠窗的座位' },
    ];
    // An empty request is a typed refusal, not a crash.
    await expect(selectTools(list, '', { embedder })).rejects.toMatchObject({ name: 'ParleyError', type: 'invalid_params' });
    for (const q of ['constructor', '__proto__', 'toString', '!!!', '😀', 'место у окна', '\u0000', '\ud800']) {
      const got = await selectTools(list, q, { embedder, topK: 3, cut: 'fixed' });
      expect(got).toHaveLength(3);
      for (const g of got) expect(Number.isFinite(g.score), q).toBe(true);
    }
    // And the next ordinary request is answered as before.
    expect((await selectTools(list, 'book a window seat', { embedder, topK: 1 }))[0]?.tool.name).toBe('book_seat');
  });
});
