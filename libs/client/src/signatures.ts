/**
 * Checks of what Parley signs (draft-zhou §7): templates (with the context
 * signed in their protected header: agent, etag, applied patches, client),
 * patch deliveries and schema_update_suggestions. Anything that does not verify
 * is `signature_invalid`, naming the member.
 */
import { ParleyError } from '@parley/protocol';
import type { SchemaPatchDelivery, SchemaUpdateSuggestion, SignedSchemaTemplate, VerifiedTemplate } from './index';
import type { Verifier, VerifyResult } from './verify';

export interface SignatureChecks {
  verifyTemplate(signed: SignedSchemaTemplate, expected?: { client_id?: string; agent?: string }): Promise<VerifiedTemplate>;
  verifyPatch(patch: SchemaPatchDelivery, path?: string): Promise<string>;
  verifySuggestion(s: SchemaUpdateSuggestion, path?: string, details?: Record<string, unknown>): Promise<string>;
}

export function createSignatureChecks(verifier: Verifier): SignatureChecks {
  /** Throws signature_invalid naming `what` unless `r` is a good verification. */
  function mustVerify(r: VerifyResult, what: string, path: string, details: Record<string, unknown> = {}): string {
    if (r.ok) return r.kid;
    throw new ParleyError('signature_invalid', `${what} failed signature verification (draft-zhou §7): ${r.message}`, {
      path,
      rule: r.reason,
      details: { ...details, ...(r.kid !== undefined ? { kid: r.kid } : {}) },
    });
  }
  const missing = (what: string, path: string, details: Record<string, unknown> = {}) =>
    new ParleyError('signature_invalid', `${what} carries no signature (draft-zhou §7); a verifying client refuses it`, { path, rule: 'missing_signature', details });
  const withoutSignature = <T extends object>(o: T): Omit<T, 'signature'> => {
    const { signature: _signature, ...rest } = o as T & { signature?: unknown };
    return rest;
  };

  async function verifyTemplate(signed: SignedSchemaTemplate, expected: { client_id?: string; agent?: string } = {}): Promise<VerifiedTemplate> {
    const schemaId = signed?.template?.schema_id;
    const what = `The schema template ${typeof schemaId === 'string' ? `"${schemaId}"` : ''}`.trimEnd();
    if (typeof signed?.signature !== 'string' || signed.signature === '') throw missing(what, 'result.signature', { schema_id: schemaId });
    const r = await verifier.check(signed.template, signed.signature);
    const kid = mustVerify(r, what, 'result.template', { schema_id: schemaId });
    // What the template belongs to is signed in the protected header; the plain members must agree with it.
    const ctx = (r as Extract<VerifyResult, { ok: true }>).header.parley as { agent?: unknown; etag?: unknown; applied_patches?: unknown; client_id?: unknown } | undefined;
    const mismatch = (member: string, message: string) =>
      new ParleyError('signature_invalid', `${what}: ${message} (draft-zhou §7)`, { path: `result.${member}`, rule: 'context_mismatch', details: { schema_id: schemaId, kid } });
    if (!ctx || typeof ctx.agent !== 'string' || typeof ctx.etag !== 'string' || !Array.isArray(ctx.applied_patches) || (ctx.client_id !== undefined && typeof ctx.client_id !== 'string')) {
      throw mismatch('signature', 'the signature does not say whose template it is (no parley context in its header)');
    }
    const applied = ctx.applied_patches as string[];
    if (signed.etag !== undefined && signed.etag !== ctx.etag) throw mismatch('etag', `the etag "${signed.etag}" is not the signed one`);
    if (signed.applied_patches !== undefined && canonicalList(signed.applied_patches) !== canonicalList(applied)) throw mismatch('applied_patches', 'the applied patches are not the signed ones');
    if (signed.agent !== undefined && signed.agent !== ctx.agent) throw mismatch('agent', `the agent "${signed.agent}" is not the signed one`);
    if (expected.agent !== undefined && expected.agent !== ctx.agent) throw mismatch('agent', `it is agent "${ctx.agent}"'s template, not "${expected.agent}"'s`);
    if ((expected.client_id ?? undefined) !== (ctx.client_id ?? undefined)) {
      throw mismatch('client_id', ctx.client_id === undefined ? 'it is the global template, not the one of the client asked for' : `it is the template of another client ("${String(ctx.client_id)}")`);
    }
    return { kid, agent: ctx.agent, etag: ctx.etag, applied_patches: [...applied], client_id: ctx.client_id as string | undefined };
  }

  async function verifyPatch(patch: SchemaPatchDelivery, path = 'result.patch'): Promise<string> {
    const what = `The schema patch "${String(patch?.patch_id)}"`;
    if (typeof patch?.signature !== 'string' || patch.signature === '') throw missing(what, `${path}.signature`, { patch_id: patch?.patch_id });
    return mustVerify(await verifier.check(withoutSignature(patch), patch.signature), what, path, { patch_id: patch.patch_id });
  }

  async function verifySuggestion(s: SchemaUpdateSuggestion, path = 'result.schema_update_suggestion', details: Record<string, unknown> = {}): Promise<string> {
    const what = 'The schema_update_suggestion';
    if (typeof s?.signature !== 'string' || s.signature === '') throw missing(what, `${path}.signature`, details);
    return mustVerify(await verifier.check(withoutSignature(s), s.signature), what, path, { ...details, patch_ids: s.patch_ids });
  }

  return { verifyTemplate, verifyPatch, verifySuggestion };
}

function canonicalList(v: unknown): string {
  return JSON.stringify(Array.isArray(v) ? v : null);
}
