/** Induction checks on phrasings of our own (draft-zhou §6.2.2, §7: dates, codes, person names, scripts without spaces), written after the first review fixes, so not an independent check. Run: npx tsx bench/evolution-induction-checks.ts */
import { loadWordNetLexicon } from '@parley/embeddings';
import { induceKey, type InductionSample } from '@parley/evolution';
const lexicon = await loadWordNetLexicon();
let n = 0;
const said = (text: string, c: number): InductionSample => ({ text, count: c, clients: Array.from({ length: c }, () => `v${n++}`) });
type Case = [string, InductionSample[], (r: any) => boolean];
const noName = (re: RegExp) => (r: any) => !r.ok || !re.test([r.candidate.key.key_name, r.candidate.key.semantic_description, ...(r.candidate.key.enum ?? [])].join(' ').toLowerCase());
const kind = (t: string) => (r: any) => r.ok && r.candidate.key.key_type === t;
const refused = (r: any) => !r.ok;
const cases: Case[] = [
  ['courier name lower', [said('courier should be jonas', 3), said('courier jonas pls', 2), said('courier ilse again', 3), said('want ilse as courier', 2)], noName(/jonas|ilse/)],
  ['collect by', [said('collection by jonas', 3), said('collection by ilse', 3), said('collection by jonas on friday', 2), said('collection by ilse later', 2)], noName(/jonas|ilse/)],
  ['Dr. title', [said('appointment with Dr. Okafor', 3), said('appointment w/ Dr. Okafor pls', 3), said('my appointment with Dr. Okafor', 2)], noName(/okafor/)],
  ['Ms. title', [said('invoice to Ms. Lindqvist', 3), said('invoice for Ms. Lindqvist', 3), said('send invoice Ms. Lindqvist', 2)], noName(/lindqvist/)],
  ['ordinary choice kept', [said('a window seat pls', 3), said('aisle seat for me', 3), said('windw seat again', 2), said('I want the aisle seat', 2)], (r) => r.ok && (r.candidate.key.enum ?? []).includes('window')],
  ['kid seat', [said('child seat for the car', 3), said('need a child seat', 3), said('baby seat in the car', 2)], (r) => r.ok && /seat/.test(r.candidate.key.key_name)],
  ['zh frame', [said('我想要过道座位', 3), said('我想要发票', 3), said('我想要儿童餐', 3)], refused],
  ['ja frame', [said('毛布をお願いします', 3), said('水をお願いします', 3), said('領収書をお願いします', 3)], refused],
  ['ko frame', [said('담요 부탁해요', 3), said('물 부탁해요', 3), said('영수증 부탁해요', 3)], refused],
  ['zh one need', [said('我想要过道座位', 3), said('过道的座位谢谢', 3), said('请安排过道座位', 3)], (r) => r.ok],
  ['May count', [said('May 6 of us share a table', 3), said('May 8 guests attend the dinner', 3), said('dinner for 7 guests', 2), said('we are 5 guests', 2)], kind('integer')],
  ['real may date', [said('deliver on May 14', 3), said('delivery by May 20 please', 3), said('can it arrive on 3 May', 2)], (r) => r.ok && r.candidate.key.format === 'date'],
  ['old codes', [said('invoices INV 2041 and INV 2042', 3), said('invoices INV 3301, INV 3302', 3), said('invoice INV_4401 INV_4402', 2)], kind('array')],
  ['shouted', [said('I WANT 300 COPIES', 3), said('PRINT 200 COPIES', 3), said('need 150 copies', 2)], kind('integer')],
];
let ok = 0;
for (const [name, ss, pass] of cases) { let r: any; try { r = induceKey(ss, undefined, { lexicon }); } catch (e) { r = { ok: false, reason: String(e) }; } const p = pass(r); ok += p ? 1 : 0; console.log(p ? 'PASS' : 'FAIL', name, r.ok ? `${r.candidate.key.key_name} ${r.candidate.key.key_type} ${JSON.stringify(r.candidate.key.enum ?? null)}` : r.reason.slice(0, 60)); }
console.log(`validation ${ok}/${cases.length}`);
