// Audit samples (draft-zhou §6.2.3 semantic_alignment_accuracy): the samples
// execution draws of payloads that used a patch key, stored as they arrive, listed
// for operators, and judged once (by an operator or the LLM judge); a verdict is
// one logged `audit` input of the evolver's fold (input-log.ts).
import type { AuditSample } from '@parley/contracts';
import type { AuditSampledData } from '@parley/events';
import { ParleyError } from '@parley/protocol';
import type { Clock } from '@parley/runtime';
import type { Db, Queryable } from '@parley/storage';
import type { InputLog } from './input-log';
import { toSample, type SampleRow } from './wire';

export interface AuditSamples {
  /** The sample `id`; `audit_sample_not_found` when there is none. */
  get(q: Queryable, id: string): Promise<AuditSample>;
  /** Stores a sample once (by its id); true when it was new. */
  store(tx: Queryable, d: AuditSampledData, at: number): Promise<boolean>;
  /** Stores a verdict and feeds it to the evolver; `illegal_transition` when the sample is judged already. */
  judge(sampleId: string, aligned: boolean, judgedBy: string, note: string): Promise<AuditSample>;
  /** The newest samples of a scenario, optionally of one patch or verdict. */
  list(filter: { scenario: string; patch_id?: string | undefined; verdict?: string | undefined; limit: number }): Promise<AuditSample[]>;
}

export function createAuditSamples(db: Db, inputs: InputLog, clock: Clock): AuditSamples {
  async function get(q: Queryable, id: string): Promise<AuditSample> {
    const r = await q.query<SampleRow>('SELECT * FROM evolution.audit_samples WHERE sample_id = $1', [id]);
    const row = r.rows[0];
    if (!row) throw new ParleyError('audit_sample_not_found', `No audit sample "${id}"`, { path: 'params.sample_id', rule: 'exists' });
    return toSample(row);
  }

  return {
    get,
    async store(tx, d, at) {
      const r = await tx.query(
        `INSERT INTO evolution.audit_samples (sample_id, patch_id, key_name, scenario_id, client_id, execution_id, at_ms, value, utterance)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (sample_id) DO NOTHING RETURNING sample_id`,
        [d.sample_id, d.patch_id, d.key_name, d.scenario_id, d.client_id, d.execution_id, at, JSON.stringify(d.value ?? null), d.utterance?.slice(0, 4000) ?? null],
      );
      return r.rows.length === 1;
    },
    judge(sampleId, aligned, judgedBy, note) {
      return inputs.transact(async (tx) => {
        const s = await get(tx, sampleId);
        if (s.verdict !== 'pending') throw new ParleyError('illegal_transition', `Audit sample "${sampleId}" is already judged (${s.verdict})`, { path: 'params.sample_id', rule: 'pending_only' });
        const at = clock.now().getTime();
        await tx.query('UPDATE evolution.audit_samples SET verdict = $2, judged_by = $3, judged_at_ms = $4, note = $5 WHERE sample_id = $1', [sampleId, aligned ? 'aligned' : 'misaligned', judgedBy, at, note.slice(0, 1000)]);
        if (inputs.current().counters(s.patch_id, s.key_name)) await inputs.step(tx, 'audit', at, { patch_id: s.patch_id, key_name: s.key_name, aligned, sample_id: sampleId });
        return get(tx, sampleId);
      });
    },
    async list(filter) {
      const params: unknown[] = [filter.scenario];
      let where = 'scenario_id = $1';
      if (filter.patch_id !== undefined) {
        params.push(filter.patch_id);
        where += ` AND patch_id = $${params.length}`;
      }
      if (filter.verdict !== undefined) {
        params.push(filter.verdict);
        where += ` AND verdict = $${params.length}`;
      }
      params.push(filter.limit);
      const r = await db.query<SampleRow>(`SELECT * FROM evolution.audit_samples WHERE ${where} ORDER BY at_ms DESC LIMIT $${params.length}`, params);
      return r.rows.map(toSample);
    },
  };
}
