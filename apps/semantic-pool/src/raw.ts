import { SealError, type Clock, type Logger, type Sealer } from '@parley/runtime';
import type { Db } from '@parley/storage';

// Raw `other` fragments at rest (zhou §7, personal data): sealed (AES-256-GCM, libs/runtime seal.ts, bound to
// their row) before they are written, or not stored at all, and deleted once older than the retention period.

/** Raw `other` fragments at rest. */
export interface RawFragmentsPolicy {
  /** Seals raw_text before it is written; null: raw fragments are not stored at all. */
  readonly sealer: Sealer | null;
  /** Raw text captured longer ago than this is deleted (the sanitised text and vector stay). */
  readonly retentionMs: number;
}

/** Raw text is kept 30 days by default (PARLEY_RAW_RETENTION_DAYS). */
export const DEFAULT_RAW_RETENTION_MS = 30 * 86_400_000;

const LEGACY_BATCH = 500;

/** What a sealed raw_text is bound to: its row. Moved to another row, it does not open. */
function rawContext(eventId: string, fragmentIndex: number): string {
  // PostgreSQL gives uuids back in lower case.
  return `pool.inputs:${eventId.toLowerCase()}:${fragmentIndex}`;
}

/** A stored input row as an operator's raw view reads it. */
export interface StoredRaw {
  event_id: string;
  fragment_index: number;
  at_ms: string;
  raw_text: string | null;
  raw_sealed: boolean;
}

export interface RawFragments {
  /** The sealed raw text to store for fragment `index` of `eventId` captured at `at`, or null (not stored, or already past retention). */
  seal(eventId: string, index: number, text: string, at: number): string | null;
  /** The raw text for an operator, or why there is none (a marker for flags); counts unreadable ones in `failures`. */
  open(r: StoredRaw, failures: Map<string, number>): { text: string; marker: string | null };
  /** Deletes raw text captured before now minus the retention period; returns the rows cleared. */
  purge(): Promise<number>;
  /** Seals raw text written in clear before sealing existed, or deletes all of it when raw fragments are not stored. */
  secureStored(): Promise<number>;
}

export function createRawFragments(deps: { db: Db; clock: Clock; log: Logger; policy: RawFragmentsPolicy; owned: ReadonlySet<string> | null }): RawFragments {
  const { db, log } = deps;
  const { sealer, retentionMs } = deps.policy;
  if (!Number.isFinite(retentionMs) || retentionMs <= 0) throw new RangeError(`raw retention must be a positive number of ms, got ${retentionMs}`);
  const mine = deps.owned ? [...deps.owned] : null;
  const cutoff = () => deps.clock.now().getTime() - retentionMs;

  async function sealLegacy(s: Sealer): Promise<number> {
    let n = 0;
    for (;;) {
      const { rows } = await db.query<{ seq: string; event_id: string; fragment_index: number; at_ms: string; raw_text: string | null }>(
        `SELECT seq, event_id, fragment_index, at_ms, raw_text FROM pool.inputs
         WHERE NOT raw_sealed AND ($1::text[] IS NULL OR scenario_id = ANY($1::text[])) ORDER BY seq LIMIT ${LEGACY_BATCH}`,
        [mine],
      );
      if (rows.length === 0) break;
      for (const r of rows) {
        const raw = r.raw_text !== null && Number(r.at_ms) >= cutoff() ? s.seal(r.raw_text, rawContext(r.event_id, r.fragment_index)) : null;
        n += (await db.query('UPDATE pool.inputs SET raw_text = $2, raw_sealed = true WHERE seq = $1 AND NOT raw_sealed', [r.seq, raw])).rowCount;
      }
    }
    if (n > 0) log.info('raw fragments stored in clear before sealing existed are now sealed (zhou §7)', { rows: n });
    return n;
  }

  return {
    seal(eventId, index, text, at) {
      // Raw text already past its retention (a late event) is not stored at all.
      return sealer !== null && at >= cutoff() ? sealer.seal(text, rawContext(eventId, index)) : null;
    },
    open(r, failures) {
      // Past its retention it is gone, whether or not the sweep has run yet.
      if (Number(r.at_ms) < cutoff()) return { text: '', marker: 'raw_expired' };
      if (r.raw_text === null) return { text: '', marker: 'raw_not_stored' };
      if (!r.raw_sealed) return { text: r.raw_text, marker: null };
      if (sealer === null) return { text: '', marker: 'raw_unreadable' };
      try {
        return { text: sealer.open(r.raw_text, rawContext(r.event_id, r.fragment_index)), marker: null };
      } catch (e) {
        if (!(e instanceof SealError)) throw e;
        const why = `${e.reason}${e.kid ? ` (key ${e.kid})` : ''}`;
        failures.set(why, (failures.get(why) ?? 0) + 1);
        return { text: '', marker: 'raw_unreadable' };
      }
    },
    async purge() {
      const r = await db.query(`UPDATE pool.inputs SET raw_text = NULL WHERE raw_text IS NOT NULL AND at_ms < $1 AND ($2::text[] IS NULL OR scenario_id = ANY($2::text[]))`, [cutoff(), mine]);
      if (r.rowCount > 0) log.info('raw fragments past their retention deleted (zhou §7)', { rows: r.rowCount, retention_days: retentionMs / 86_400_000 });
      return r.rowCount;
    },
    async secureStored() {
      if (sealer !== null) return sealLegacy(sealer);
      const r = await db.query('UPDATE pool.inputs SET raw_text = NULL, raw_sealed = true WHERE (raw_text IS NOT NULL OR NOT raw_sealed) AND ($1::text[] IS NULL OR scenario_id = ANY($1::text[]))', [mine]);
      if (r.rowCount > 0) log.info('raw fragments stored before are deleted (PARLEY_STORE_RAW_FRAGMENTS=false)', { rows: r.rowCount });
      return r.rowCount;
    },
  };
}
