/**
 * Negotiation and execution on the client (draft-zhou §6.2.2, §6.2.3): the
 * template with its etag (signed and checked when verifying), polled patches,
 * and `execute` sending back the etag the client holds so a result carries a
 * schema_update_suggestion only when the template changed since.
 */
import { ParleyError, type JsonObject, type SchemaTemplate } from '@parley/protocol';
import type { ExecuteExtras, ExecuteParams, GetSchemaTemplateParams, ParleyClient, SchemaUpdates, SignedSchemaTemplate } from './index';
import type { RpcCall } from './rpc';
import type { SignatureChecks } from './signatures';

/** Kept etags; bounded so a long-lived client that negotiates many schemas does not grow without end. */
const MAX_KEPT_ETAGS = 1000;

export interface SchemaAccess {
  getSchemaTemplateSigned(p: GetSchemaTemplateParams): Promise<SignedSchemaTemplate>;
  getSchemaUpdates: ParleyClient['getSchemaUpdates'];
  getSchemaTemplateWithEtag(p: GetSchemaTemplateParams): Promise<{ template: SchemaTemplate; etag: string | undefined }>;
  execute<T extends JsonObject>(p: ExecuteParams): Promise<T & ExecuteExtras>;
  schemaEtag(schemaId: string, clientId?: string): string | undefined;
}

export function createSchemaAccess(call: RpcCall, verifying: boolean, checks: SignatureChecks): SchemaAccess {
  const { verifyTemplate, verifyPatch, verifySuggestion } = checks;
  const etags = new Map<string, string>();
  const etagKey = (schemaId: string, clientId: string | undefined) => `${schemaId}\u0000${clientId ?? ''}`;

  async function getSchemaTemplateSigned(p: GetSchemaTemplateParams): Promise<SignedSchemaTemplate> {
    const signed = await call<SignedSchemaTemplate>('get_schema_template_signed', p as unknown as Record<string, unknown>);
    if (verifying) await verifyTemplate(signed, { ...(p.client_id !== undefined ? { client_id: p.client_id } : {}), ...(p.agent !== undefined ? { agent: p.agent } : {}) });
    return signed;
  }

  const getSchemaUpdates: ParleyClient['getSchemaUpdates'] = async (p) => {
    const u = await call<SchemaUpdates>('get_schema_updates', p);
    if (verifying) {
      for (const [i, patch] of (u.patches ?? []).entries()) await verifyPatch(patch, `result.patches[${i}]`);
    }
    return u;
  };

  function keepEtag(schemaId: string, clientId: string | undefined, etag: string | undefined): void {
    const key = etagKey(schemaId, clientId);
    etags.delete(key);
    if (etag !== undefined) {
      etags.set(key, etag);
      while (etags.size > MAX_KEPT_ETAGS) etags.delete(etags.keys().next().value as string);
    }
  }

  async function getSchemaTemplateWithEtag(p: GetSchemaTemplateParams): Promise<{ template: SchemaTemplate; etag: string | undefined }> {
    if (verifying) {
      // One call: the template, its etag and the signature over both (draft-zhou §7).
      const signed = await getSchemaTemplateSigned(p);
      keepEtag(signed.template.schema_id, p.client_id, signed.etag);
      return { template: signed.template, etag: signed.etag };
    }
    // The etag is asked for first: if a patch lands between the two calls, the
    // client holds an older etag than its template and is merely told again
    // (a suggestion), never a newer one that would hide a change from it.
    let updates: SchemaUpdates | undefined;
    try {
      updates = await getSchemaUpdates({ scenario: p.scenario, ...(p.agent ? { agent: p.agent } : {}), ...(p.client_id ? { client_id: p.client_id } : {}) });
    } catch {
      // A gateway without the polling endpoint, or an error get_schema_template reports below.
      updates = undefined;
    }
    const template = await call<SchemaTemplate>('get_schema_template', p as unknown as Record<string, unknown>);
    // A new base version published in between: the etag describes another schema.
    const etag = updates && updates.parent_schema_id === template.schema_id ? updates.etag : undefined;
    keepEtag(template.schema_id, p.client_id, etag);
    return { template, etag };
  }

  async function execute<T extends JsonObject>(p: ExecuteParams): Promise<T & ExecuteExtras> {
    const etag = p.schema_etag ?? etags.get(etagKey(p.schema_id, p.client_id));
    const result = await call<T & ExecuteExtras>('execute', { ...p, ...(etag !== undefined ? { schema_etag: etag } : {}) });
    const s = result?.schema_update_suggestion;
    if (!verifying || s === undefined) return result;
    const { schema_update_suggestion: _s, ...rest } = result;
    if (s === null || typeof s !== 'object' || Array.isArray(s) || typeof s.signature !== 'string') {
      // Unsigned: the agent's own (Figure 9) or Parley's when patches could not be attributed; never Parley-vouched.
      return { ...rest, ...(rest.agent_schema_update_suggestion === undefined ? { agent_schema_update_suggestion: s as unknown as JsonObject } : {}) } as T & ExecuteExtras;
    }
    try {
      await verifySuggestion(s);
    } catch (e) {
      const err = e as ParleyError;
      throw new ParleyError(err.type, `${err.message}. The payload was executed: the result without the suggestion is in details.result`, {
        path: err.path,
        rule: err.rule,
        details: { ...err.details, result: rest },
      });
    }
    return result;
  }

  return { getSchemaTemplateSigned, getSchemaUpdates, getSchemaTemplateWithEtag, execute, schemaEtag: (schemaId, clientId) => etags.get(etagKey(schemaId, clientId)) };
}
