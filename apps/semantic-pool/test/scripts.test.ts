/**
 * apps/semantic-pool with the real offline embedder, PGlite and the in-process bus,
 * on `other` fragments in six scripts (draft-zhou §4.2: templates and their users are
 * multilingual; §6.2.1: the pool clusters whatever clients write). Each fragment is
 * embedded to a usable vector, one need in one script lands in one cluster, two
 * needs in one script do not, words that are JS property names are words, and
 * nothing is set aside: the fragment after them is clustered too.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOfflineEmbedder } from '@parley/embeddings';
import { EventType, createMemoryBus, createSubjects, type Bus, type EventEnvelope } from '@parley/events';
import { createLogger } from '@parley/runtime';
import { createPgliteDb, type Db } from '@parley/storage';
import { serviceOnlyAuthenticator, testIdentity, waitFor } from '@parley/testkit';
import { createEmbeddedIndex } from '@parley/vectors';
import { startSemanticPool, type RunningSemanticPool } from '../src/index';

const T0 = Date.UTC(2026, 5, 1, 8);
const subjects = createSubjects('scripts');

/** Per script: two needs (a window seat, a vegetarian meal), three wordings each. */
const NEEDS: Record<string, [string[], string[]]> = {
  chinese: [['我想要靠窗的座位', '请给我靠窗座位', '靠窗的座位'], ['我想要素食餐', '请给我素食餐', '素食餐']],
  japanese: [['窓側の席をお願いします', '窓側の席がいい', '窓側の席'], ['ベジタリアンの食事をお願いします', 'ベジタリアンの食事がいい', 'ベジタリアンの食事']],
  russian: [['место у окна', 'хочу место у окна', 'место у окна пожалуйста'], ['вегетарианское питание', 'хочу вегетарианское питание', 'нужно вегетарианское питание']],
  arabic: [['مقعد بجانب النافذة', 'أريد مقعد بجانب النافذة', 'مقعد بجانب النافذة من فضلك'], ['وجبة نباتية', 'أريد وجبة نباتية', 'وجبة نباتية من فضلك']],
  korean: [['창가 좌석', '창가 좌석을 원해요', '창가 좌석 주세요'], ['채식 식사', '채식 식사를 원해요', '채식 식사 주세요']],
  english: [['window seat please', 'a seat by the window', 'window seat'], ['vegetarian meal', 'a vegetarian meal please', 'meatless vegetarian meal']],
};
/** Words that are members of Object.prototype (one halted the pool once). */
const HOSTILE = ['constructor', '__proto__ toString hasOwnProperty valueOf', 'constructor seat toString'];

let db: Db;
let bus: Bus;
let running: RunningSemanticPool;
let seq = 0;

function captured(client: string, text: string): EventEnvelope {
  const at = T0 + 1000 * ++seq;
  return {
    id: randomUUID(),
    type: EventType.OtherCaptured,
    scenario_id: 'flight_booking',
    occurred_at: new Date(at).toISOString(),
    source: 'test',
    data: { execution_id: randomUUID(), agent: 'skyways-air', schema_id: 'flight_booking_v1', scenario_id: 'flight_booking', client_id: client, fragments: [text] },
  };
}

const rows = async () =>
  (await db.query<{ sanitized: string | null; global_cluster_id: string | null; vector: number[] | null }>('SELECT sanitized, global_cluster_id, vector FROM pool.inputs ORDER BY seq')).rows;

/** The cluster a fragment is in now: its cluster, or the one that absorbed it. */
function clusterOf(id: string): string {
  const pool = running.service.pool();
  let cur = id;
  for (let i = 0; i < 100; i++) {
    const next = pool.cluster(cur, T0 + 3_600_000)?.merged_into ?? null;
    if (next === null) return cur;
    cur = next;
  }
  throw new Error(`merge chain from ${id} does not end`);
}

beforeAll(async () => {
  db = await createPgliteDb();
  bus = createMemoryBus({ subjects, logger: { warn: () => {}, error: () => {} } });
  running = await startSemanticPool({
    db,
    bus,
    subjects,
    authenticator: serviceOnlyAuthenticator(testIdentity().serviceToken),
    embedder: createOfflineEmbedder(),
    index: createEmbeddedIndex(),
    clock: { now: () => new Date(T0 + 3_600_000) },
    log: createLogger({ level: 'error', write: () => {} }),
    heatSampleMs: 0,
    rawPurgeMs: 0,
    grpcHost: '127.0.0.1',
    grpcPort: 0,
    eventFlow: { consumerMaxAttempts: 2 },
    retryDelayMs: 10,
  });
  // Interleaved: script by script, need by need, from three clients, then the hostile words, then an ordinary fragment.
  const events: EventEnvelope[] = [];
  for (let w = 0; w < 3; w++) for (const [a, b] of Object.values(NEEDS)) events.push(captured(`c${w}`, a[w]!), captured(`c${w}`, b[w]!));
  for (const h of HOSTILE) events.push(captured('c9', h));
  events.push(captured('c4', 'extra legroom'));
  for (const e of events) await bus.publishEvent(e);
  const expected = events.length;
  await waitFor('every fragment in the log', async () => ((await rows()).length === expected ? true : undefined), 60_000);
}, 120_000);

afterAll(async () => {
  await running?.stop();
  await bus?.close();
  await db?.close();
});

describe('the semantic pool over fragments in six scripts', () => {
  it('embeds every fragment to a non-zero vector and sets nothing aside', async () => {
    const all = await rows();
    // The raw text is sealed at rest; the sanitised text is these fragments (underscores are not kept).
    expect(all.map((r) => r.sanitized).sort()).toEqual([...Object.values(NEEDS).flat(2), 'constructor', 'proto toString hasOwnProperty valueOf', 'constructor seat toString', 'extra legroom'].sort());
    for (const r of all) {
      expect(r.vector, r.sanitized!).not.toBeNull();
      expect(r.vector!.some((x) => x !== 0), r.sanitized!).toBe(true);
      expect(r.global_cluster_id, r.sanitized!).not.toBeNull();
    }
    expect((await running.deadLetters.list()).counts.dead).toBe(0);
    // The fragment after the hostile words was clustered.
    expect(all[all.length - 1]).toMatchObject({ sanitized: 'extra legroom' });
  });

  it('puts one need in one script in one cluster, and two needs of a script in two', async () => {
    const byText = new Map((await rows()).map((r) => [r.sanitized, clusterOf(r.global_cluster_id!)]));
    for (const [script, [a, b]] of Object.entries(NEEDS)) {
      const ca = new Set(a.map((t) => byText.get(t)));
      const cb = new Set(b.map((t) => byText.get(t)));
      expect(ca.size, `${script}: ${a.join(' / ')} in ${[...ca].join(', ')}`).toBe(1);
      expect(cb.size, `${script}: ${b.join(' / ')} in ${[...cb].join(', ')}`).toBe(1);
      expect([...ca][0], `${script}: the two needs share a cluster`).not.toBe([...cb][0]);
    }
  });
});
