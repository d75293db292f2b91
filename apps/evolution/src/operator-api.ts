// The operators' EvolutionApi (draft-zhou §6.2.2, §6.2.3, §7): patches and the
// convergence queue, approve / reject / pin with a required reason, an edit of a
// patch key (rename, values, type, description; libs/evolution edit.ts), every
// decision with its figures, and the audit samples to judge. Every change is one
// logged input of the evolver's fold (input-log.ts), stored with who and why.
import type { EvolutionApi, ListPatchesResponse, Patch } from '@parley/contracts';
import type { KeyEdit } from '@parley/evolution';
import type { PatchRecord } from '@parley/pool';
import { ParleyError, scenarioId } from '@parley/protocol';
import type { Clock } from '@parley/runtime';
import type { AuditSamples } from './audit-samples';
import type { InputLog } from './input-log';
import { scopeLabel, toDecision, toPatch } from './wire';

/** The operator the gateway authenticated (the call context's actor), else `operator`. */
function actorOf(ctx: unknown): string {
  const a = (ctx as { actor?: unknown } | undefined)?.actor;
  return typeof a === 'string' && a !== '' ? a : 'operator';
}

/** Every decision is stored with why (zhou §6.2.3): a reason of 1..1000 characters, trimmed. */
function requireReason(reason: string): string {
  if (typeof reason !== 'string' || reason.trim() === '') throw new ParleyError('invalid_params', 'reason is required: every decision is stored with why (zhou §6.2.3)', { path: 'params.reason', rule: 'required' });
  if (reason.length > 1000) throw new ParleyError('invalid_params', 'reason is at most 1000 characters', { path: 'params.reason', rule: 'max_length' });
  return reason.trim();
}

function checkLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new ParleyError('invalid_params', 'limit must be an integer in 1..1000', { path: 'params.limit', rule: 'range' });
  return limit;
}

export function createOperatorApi(inputs: InputLog, samples: AuditSamples, clock: Clock): EvolutionApi {
  const now = (): number => clock.now().getTime();
  const findPatch = (id: string): PatchRecord => {
    if (typeof id !== 'string' || id === '') throw new ParleyError('invalid_params', 'patch_id is required', { path: 'params.patch_id', rule: 'required' });
    const r = inputs.current().patch(id);
    if (!r) throw new ParleyError('patch_not_found', `No schema patch "${id}"`, { path: 'params.patch_id', rule: 'exists' });
    return r;
  };
  const patchOut = (r: PatchRecord): Patch => toPatch(r, inputs.current(), now());
  // Memory runs ahead of the database inside a unit of work (an input is applied,
  // then its transaction commits): a read waits for the work in hand, so it
  // never shows what a failed commit would take back or what PostgreSQL does not hold yet.
  const committed = <T>(read: () => T): Promise<T> => inputs.read(read);

  const listed = (sc: string, status: string | undefined, scope: string | undefined): ListPatchesResponse => {
    const evolver = inputs.current();
    const patches = evolver
      .patches()
      .filter((r) => r.patch.scenario === sc && (status === undefined || r.status === status) && (scope === undefined || scopeLabel(r.patch.scope) === scope))
      .map(patchOut);
    const queued = evolver
      .queued()
      .filter((q) => q.scenario === sc)
      .map((q) => ({ cluster_id: q.cluster_id, scenario_id: q.scenario, scope: scopeLabel(q.scope), key_name: q.key.key_name, queued_at: new Date(q.queued_at).toISOString() }));
    return { patches, queued };
  };

  async function operatorStep(kind: 'approve' | 'reject' | 'pin', body: Record<string, unknown>): Promise<{ patch: Patch }> {
    findPatch(String(body['patch_id']));
    await inputs.transact((tx) => inputs.step(tx, kind, now(), body));
    return committed(() => ({ patch: patchOut(findPatch(String(body['patch_id']))) }));
  }

  return {
    async listPatches(req) {
      const sc = scenarioId(req.scenario, { path: 'params.scenario' });
      if (req.status !== undefined && !['proposed', 'active', 'rejected'].includes(req.status)) {
        throw new ParleyError('invalid_params', 'status must be proposed, active or rejected', { path: 'params.status', rule: 'enum' });
      }
      return committed(() => listed(sc, req.status, req.scope));
    },
    async getPatch(req) {
      return committed(() => ({ patch: patchOut(findPatch(req.patch_id)) }));
    },
    async approvePatch(req, ctx?: unknown) {
      return operatorStep('approve', { patch_id: req.patch_id, reason: requireReason(req.reason), actor: actorOf(ctx) });
    },
    async rejectPatch(req, ctx?: unknown) {
      return operatorStep('reject', { patch_id: req.patch_id, reason: requireReason(req.reason), actor: actorOf(ctx) });
    },
    async pinPatch(req, ctx?: unknown) {
      return operatorStep('pin', { patch_id: req.patch_id, pinned: req.pinned, reason: requireReason(req.reason), actor: actorOf(ctx) });
    },
    async editPatch(req, ctx?: unknown) {
      const reason = requireReason(req.reason);
      const before = findPatch(req.patch_id);
      if (typeof req.key !== 'string' || req.key === '') throw new ParleyError('invalid_params', 'key is required: the key of the patch to edit', { path: 'params.key', rule: 'required' });
      const changes: KeyEdit = {
        ...(req.rename !== undefined && req.rename !== '' ? { rename: req.rename } : {}),
        ...(req.values.length > 0 ? { values: [...req.values] } : {}),
        ...(req.type !== undefined && req.type !== '' ? { type: req.type } : {}),
        ...(req.description !== undefined && req.description !== '' ? { description: req.description } : {}),
      };
      const body = { patch_id: req.patch_id, key: req.key, changes, reason, actor: actorOf(ctx) };
      // The evolver checks everything before it changes anything: a bad edit throws, nothing is logged (and the fold is rebuilt as after any failed input).
      const outcome = await inputs.transact(async (tx) => {
        const at = now();
        const r = inputs.current().edit({ at, patch_id: req.patch_id, key_name: req.key, actor: body.actor, reason, changes });
        await inputs.record(tx, { kind: 'edit', at, body, changes: r.changes }, null);
        inputs.logChanges(r.changes);
        return { kind: r.kind, patch_id: r.patch_id };
      });
      return committed(() => ({ patch: patchOut(findPatch(outcome.patch_id)), outcome: outcome.kind, ...(outcome.kind === 'replace' ? { replaced: patchOut(findPatch(before.patch.patch_id)) } : {}) }));
    },
    async listDecisions(req) {
      const sc = scenarioId(req.scenario, { path: 'params.scenario' });
      const limit = checkLimit(req.limit ?? 200);
      const after = req.after_seq ?? 0;
      return committed(() => ({
        decisions: inputs
          .current()
          .decisions()
          .filter((d) => d.scenario === sc && d.seq > after && (req.patch_id === undefined || d.patch_id === req.patch_id))
          .slice(0, limit)
          .map(toDecision),
      }));
    },
    async listAuditSamples(req) {
      const sc = scenarioId(req.scenario, { path: 'params.scenario' });
      if (req.verdict !== undefined && !['pending', 'aligned', 'misaligned'].includes(req.verdict)) {
        throw new ParleyError('invalid_params', 'verdict must be pending, aligned or misaligned', { path: 'params.verdict', rule: 'enum' });
      }
      return { samples: await samples.list({ scenario: sc, patch_id: req.patch_id, verdict: req.verdict, limit: checkLimit(req.limit ?? 100) }) };
    },
    async judgeAuditSample(req, ctx?: unknown) {
      if (typeof req.sample_id !== 'string' || !/^[0-9a-f-]{36}$/i.test(req.sample_id)) throw new ParleyError('invalid_params', 'sample_id must be a UUID', { path: 'params.sample_id', rule: 'format' });
      return { sample: await samples.judge(req.sample_id, req.aligned, actorOf(ctx), req.note ?? '') };
    },
  };
}
