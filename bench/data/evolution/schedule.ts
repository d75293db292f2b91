/**
 * Scheduler for the evaluation streams of schema self-evolution (draft-zhou
 * §6.2): it takes hand-written `other` fragments (the phrasings live in each
 * stream's own make-*.ts, written by a person, never composed from templates)
 * and decides only WHO sends WHICH of them and WHEN, with a seeded mulberry32.
 * Running a stream's make-*.ts twice writes the same bytes.
 *
 * Output: `<name>.jsonl`, one line per fragment in non-decreasing `ts` order,
 * `{ts, scenario, client_id, text, intent}`, and `<name>.gold.json`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { seededRandom } from '@parley/testkit';

export type Scenario = 'flight_booking' | 'photo_retouch' | 'fault_management';
export type GoldType = 'string' | 'integer' | 'number' | 'boolean' | 'array';

export interface GoldIntent {
  id: string;
  scenario: Scenario;
  kind: 'recurring' | 'personal' | 'burst';
  /** 'global', 'client:<client_id>' or 'none'. */
  expect: string;
  acceptable_names: string[];
  type: GoldType;
  items_type?: string;
  values: string[];
  value_aliases?: Record<string, string[]>;
  refines_base_key?: string;
  why: string;
}

/** A set of hand-written phrasings that carry one value (or one way of saying the need). */
export interface Group {
  texts: readonly string[];
  /** The canonical value these phrasings carry, when the need is a choice (for the census only). */
  value?: string;
  /** Share of clients that start with this group (groups with `from` start with nobody). */
  weight?: number;
  /** Day from which clients move over to this group ... */
  from?: number;
  /** ... each with this probability (decided once per client). */
  adopt?: number;
}

export interface RecurringSpec {
  gold: GoldIntent;
  /** Distinct clients (drawn from the scenario's pool of regular clients). */
  clients: number;
  /** First and last day (0-based, inclusive). */
  start: number;
  end?: number;
  /** Probability that a client sends this need on a given day, at full strength. */
  p: number;
  /** Days from `start` until full strength (linear from a quarter). */
  ramp?: number;
  groups: Group[];
}

export interface PersonalSpec {
  gold: GoldIntent;
  client: string;
  start: number;
  end: number;
  perDay: [number, number];
  texts: readonly string[];
}

export interface BurstSpec {
  gold: GoldIntent;
  client: string;
  day: number;
  /** UTC hour (may be fractional) of the first fragment. */
  hourUtc: number;
  count: number;
  minutes: number;
  /** The first text is the usual one; the others are occasional rewordings. */
  texts: readonly string[];
}

export interface StreamSpec {
  name: string;
  seed: number;
  /** First day, YYYY-MM-DD (UTC midnight). */
  start: string;
  days: number;
  /** Regular clients per scenario; recurring needs draw their clients from these pools. */
  pool: Record<Scenario, number>;
  recurring: RecurringSpec[];
  personal: PersonalSpec[];
  bursts: BurstSpec[];
  /** One-off fragments; each is sent once by a client seen nowhere else. Label: noise:<slug>. */
  noise: Record<Scenario, readonly string[]>;
  /** Free text for the gold file. */
  notes?: string;
}

interface Line {
  at: number;
  seq: number;
  scenario: Scenario;
  client_id: string;
  text: string;
  intent: string;
  value?: string;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Local-hour weights per scenario: bookings by day and evening, retouching in the evening, faults around the clock. */
const PROFILE: Record<Scenario, number[]> = {
  flight_booking: [0.2, 0.1, 0.05, 0.05, 0.05, 0.1, 0.4, 1, 1.6, 2, 2, 1.8, 1.5, 1.6, 1.7, 1.6, 1.4, 1.3, 1.4, 1.8, 2, 1.8, 1.2, 0.6],
  photo_retouch: [0.6, 0.3, 0.1, 0.05, 0.05, 0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 1, 1.1, 1.1, 1, 1, 1.1, 1.3, 1.6, 2, 2.4, 2.5, 2.1, 1.3],
  fault_management: [0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.7, 0.9, 1.2, 1.4, 1.4, 1.3, 1.2, 1.3, 1.3, 1.3, 1.2, 1.1, 1, 0.9, 0.8, 0.8, 0.7, 0.7],
};
/** Client time-zone offsets in hours (a client keeps one). */
const ZONES = [8, 8, 8, 8, 9, 9, 1, 1, 2, 0, 3, 5.5, -5, -8, 7];

export function slug(s: string): string {
  const t = s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
  return t.length > 0 ? t.slice(0, 48) : 'non_latin';
}

export function buildStream(spec: StreamSpec): { lines: string[]; gold: Record<string, unknown> } {
  const r = seededRandom(spec.seed);
  const T0 = Date.parse(`${spec.start}T00:00:00Z`);
  const lines: Line[] = [];
  let seq = 0;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const used = new Set<string>();
  const newId = (): string => {
    for (;;) {
      let s = '';
      for (let i = 0; i < 6; i++) s += '0123456789abcdefghijklmnopqrstuvwxyz'[Math.floor(r() * 36)];
      const id = `agent-${s}`;
      if (!used.has(id)) {
        used.add(id);
        return id;
      }
    }
  };
  const zone = new Map<string, number>();
  const zoneOf = (c: string): number => {
    let z = zone.get(c);
    if (z === undefined) {
      z = pick(ZONES);
      zone.set(c, z);
    }
    return z;
  };
  /** A time on local day d of client c, following the scenario's daily rhythm. */
  const timeOn = (d: number, c: string, scenario: Scenario): number => {
    const w = PROFILE[scenario];
    const total = w.reduce((a, b) => a + b, 0);
    let x = r() * total;
    let h = 0;
    while (h < 23 && x >= (w[h] as number)) x -= w[h++] as number;
    const local = d * DAY + h * HOUR + Math.floor(r() * HOUR);
    return T0 + local - zoneOf(c) * HOUR;
  };
  const push = (at: number, scenario: Scenario, client_id: string, text: string, intent: string, value?: string): void => {
    lines.push({ at, seq: seq++, scenario, client_id, text, intent, ...(value === undefined ? {} : { value }) });
  };
  for (const c of [...spec.personal.map((p) => p.client), ...spec.bursts.map((b) => b.client)]) used.add(c);

  // Regular clients, per scenario.
  const pools: Record<Scenario, string[]> = { flight_booking: [], photo_retouch: [], fault_management: [] };
  for (const s of Object.keys(pools) as Scenario[]) for (let i = 0; i < spec.pool[s]; i++) pools[s].push(newId());

  for (const rec of spec.recurring) {
    const scenario = rec.gold.scenario;
    const pool = [...pools[scenario]];
    if (rec.clients > pool.length) throw new Error(`${rec.gold.id}: ${rec.clients} clients > pool ${pool.length}`);
    const clients: string[] = [];
    for (let i = 0; i < rec.clients; i++) clients.push(pool.splice(Math.floor(r() * pool.length), 1)[0] as string);
    const initial = rec.groups.filter((g) => g.from === undefined);
    const totalW = initial.reduce((a, g) => a + (g.weight ?? 1), 0);
    const end = rec.end ?? spec.days - 1;
    for (const c of clients) {
      let x = r() * totalW;
      let g0 = initial[0] as Group;
      for (const g of initial) {
        x -= g.weight ?? 1;
        if (x < 0) {
          g0 = g;
          break;
        }
      }
      // Later groups (a value that becomes common over time).
      const switches: { day: number; g: Group }[] = [];
      for (const g of rec.groups) if (g.from !== undefined && r() < (g.adopt ?? 0)) switches.push({ day: g.from + Math.floor(r() * 6), g });
      const fav = new Map<Group, string[]>();
      const favOf = (g: Group): string[] => {
        let f = fav.get(g);
        if (!f) {
          const xs = [...g.texts];
          f = [];
          for (let i = 0; i < Math.min(3, xs.length); i++) f.push(xs.splice(Math.floor(r() * xs.length), 1)[0] as string);
          fav.set(g, f);
        }
        return f;
      };
      for (let d = rec.start; d <= end; d++) {
        const ramp = rec.ramp ? Math.min(1, 0.25 + (0.75 * (d - rec.start)) / rec.ramp) : 1;
        const dow = new Date(T0 + d * DAY).getUTCDay();
        const weekend = dow === 0 || dow === 6;
        const factor = scenario === 'photo_retouch' && weekend ? 1.3 : scenario === 'flight_booking' && weekend ? 0.8 : 1;
        if (r() >= rec.p * ramp * factor) continue;
        const n = r() < 0.1 ? 2 : 1;
        let g = g0;
        for (const s of switches) if (d >= s.day) g = s.g;
        for (let k = 0; k < n; k++) {
          const text = r() < 0.7 ? pick(favOf(g)) : pick(g.texts);
          push(timeOn(d, c, scenario), scenario, c, text, rec.gold.id, g.value);
        }
      }
    }
  }

  for (const p of spec.personal) {
    for (let d = p.start; d <= p.end; d++) {
      const n = p.perDay[0] + Math.floor(r() * (p.perDay[1] - p.perDay[0] + 1));
      for (let k = 0; k < n; k++) push(timeOn(d, p.client, p.gold.scenario), p.gold.scenario, p.client, pick(p.texts), p.gold.id);
    }
  }

  for (const b of spec.bursts) {
    const t0 = T0 + b.day * DAY + b.hourUtc * HOUR;
    const gap = (b.minutes * 60_000) / b.count;
    for (let k = 0; k < b.count; k++) {
      const at = Math.floor(t0 + k * gap + r() * gap * 0.9);
      const text = r() < 0.6 ? (b.texts[0] as string) : pick(b.texts);
      push(at, b.gold.scenario, b.client, text, b.gold.id);
    }
  }

  for (const s of Object.keys(spec.noise) as Scenario[]) {
    spec.noise[s].forEach((text, i) => {
      const c = newId();
      const d = Math.floor(r() * spec.days);
      const label = slug(text);
      push(timeOn(d, c, s), s, c, text, `noise:${label === 'non_latin' ? `${s}_${i}` : label}`);
    });
  }

  // Keep every line inside the stream's days: a local time can fall on the UTC day before the first or
  // after the last; such a line moves by one day (same local hour).
  const lo = T0;
  const hi = T0 + spec.days * DAY;
  for (const l of lines) {
    if (l.at < lo) l.at += DAY;
    else if (l.at >= hi) l.at -= DAY;
  }
  lines.sort((a, b) => a.at - b.at || a.seq - b.seq);

  const census: Record<string, { fragments: number; clients: number; distinct_texts: number; per_week: number[]; value_per_week?: Record<string, number[]> }> = {};
  const cl = new Map<string, Set<string>>();
  const tx = new Map<string, Set<string>>();
  for (const l of lines) {
    const key = l.intent.startsWith('noise:') ? 'noise:*' : l.intent;
    const c = (census[key] ??= { fragments: 0, clients: 0, distinct_texts: 0, per_week: [0, 0, 0, 0, 0] });
    c.fragments++;
    const w = Math.min(4, Math.floor((l.at - T0) / (7 * DAY)));
    c.per_week[w] = (c.per_week[w] as number) + 1;
    if (l.value !== undefined) {
      const vp = (c.value_per_week ??= {});
      const row = (vp[l.value] ??= [0, 0, 0, 0, 0]);
      row[w] = (row[w] as number) + 1;
    }
    if (!cl.has(key)) cl.set(key, new Set());
    cl.get(key)?.add(l.client_id);
    if (!tx.has(key)) tx.set(key, new Set());
    tx.get(key)?.add(l.text);
  }
  for (const [k, c] of Object.entries(census)) {
    c.clients = cl.get(k)?.size ?? 0;
    c.distinct_texts = tx.get(k)?.size ?? 0;
  }
  const sorted = Object.fromEntries(Object.entries(census).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

  const gold = {
    stream: `${spec.name}.jsonl`,
    seed: spec.seed,
    start: `${spec.start}T00:00:00Z`,
    days: spec.days,
    fragments: lines.length,
    scopes: "global: the scenario pool of all clients; client:<id>: that client's own pool (zhou §6.2.2); none: no key should be induced from it in the global pool",
    ...(spec.notes ? { notes: spec.notes } : {}),
    intents: [...spec.recurring.map((x) => x.gold), ...spec.personal.map((x) => x.gold), ...spec.bursts.map((x) => x.gold)],
    census: sorted,
  };
  const out = lines.map((l) => JSON.stringify({ ts: new Date(l.at).toISOString(), scenario: l.scenario, client_id: l.client_id, text: l.text, intent: l.intent }));
  return { lines: out, gold };
}

/** Writes `<dir>/<name>.jsonl` and `<dir>/<name>.gold.json`; prints a one-line summary. */
export function writeStream(spec: StreamSpec, dir: string): void {
  const { lines, gold } = buildStream(spec);
  writeFileSync(join(dir, `${spec.name}.jsonl`), `${lines.join('\n')}\n`);
  writeFileSync(join(dir, `${spec.name}.gold.json`), `${JSON.stringify(gold, null, 2)}\n`);
  process.stdout.write(`${spec.name}: ${lines.length} lines, ${(gold.intents as unknown[]).length} intents\n`);
}
