import { SchemaPatchDelivery, SchemaTemplate, keyFromWire, templateFromWire } from '@parley/contracts';
import { OTHER_KEY, type JsonObject, type JsonValue, type SchemaTemplate as DomainTemplate } from '@parley/protocol';
import type { KeyRing } from '@parley/runtime';

/**
 * draft-zhou §7: "Schema negotiation and update messages MUST be
 * integrity-protected to prevent man-in-the-middle attacks that could inject
 * malicious keys or semantic descriptions." Negotiation signs what it serves
 * (libs/runtime jws.ts: a detached compact JWS, Ed25519, over the RFC 8785
 * canonical JSON), so a client can check a template, a patch or a suggestion
 * whatever carried it (gateway, proxy, cache):
 *
 * - a template (GetSchemaTemplate, GetSchema): the signed payload is the
 *   template exactly as the gateway's `get_schema_template` returns it (Figure 7);
 *   what it belongs to rides in the protected header as `parley`:
 *   `{ agent, etag, applied_patches, client_id? }`, signed with it;
 * - a patch delivery (GetSchemaUpdates): the delivery as `get_schema_updates`
 *   returns it, every member but `signature`;
 * - a schema_update_suggestion (Figure 9): built here from the deliveries and
 *   signed, so execution can hand it on untouched.
 *
 * Each object is signed in its decoded wire form (encoded and decoded once), so
 * what is signed is what every later hop re-serialises.
 */

/** The signed context of a template (the `parley` member of the JWS protected header). */
export interface TemplateContext {
  agent: string;
  etag: string;
  applied_patches: readonly string[];
  /** The client whose effective template this is; null for the global view. */
  client_id: string | null;
}

/** The template as the gateway serves it: the wire form decoded, then `templateFromWire`. */
export function servedTemplate(wire: SchemaTemplate): DomainTemplate {
  return templateFromWire(SchemaTemplate.decode(SchemaTemplate.encode(wire).finish()));
}

export function signTemplate(ring: KeyRing, wire: SchemaTemplate, ctx: TemplateContext): string {
  return ring.sign(servedTemplate(wire), {
    parley: { agent: ctx.agent, etag: ctx.etag, applied_patches: [...ctx.applied_patches], ...(ctx.client_id !== null ? { client_id: ctx.client_id } : {}) },
  });
}

/** A patch delivery as the gateway serves it (`get_schema_updates`), without its signature. */
export function servedDelivery(d: SchemaPatchDelivery): JsonObject {
  const { signature: _signature, ...rt } = SchemaPatchDelivery.decode(SchemaPatchDelivery.encode({ ...d, signature: undefined }).finish());
  return JSON.parse(JSON.stringify({ ...rt, new_keys: rt.new_keys.map(keyFromWire) })) as JsonObject;
}

export function signDeliveries(ring: KeyRing, deliveries: readonly SchemaPatchDelivery[]): SchemaPatchDelivery[] {
  return deliveries.map((d) => ({ ...d, signature: ring.sign(servedDelivery(d)) }));
}

/**
 * Figure 9's schema_update_suggestion for a client whose etag is not `etag`: the
 * patches' ids, their keys (first occurrence of a name; never `other`) and
 * refinements. Plain JSON, as it crosses gRPC in a Struct.
 */
export function suggestionOf(parentSchemaId: string, etag: string, deliveries: readonly SchemaPatchDelivery[]): JsonObject {
  const seen = new Set<string>();
  const newKeys: JsonValue[] = [];
  const modified: JsonValue[] = [];
  for (const p of deliveries) {
    for (const k of p.new_keys) {
      if (k.key_name === OTHER_KEY || seen.has(k.key_name)) continue;
      seen.add(k.key_name);
      newKeys.push(keyFromWire(k) as unknown as JsonValue);
    }
    for (const m of p.modified_keys) modified.push({ key_name: m.key_name, semantic_description: m.semantic_description, ...(m.enum ? { enum: [...m.enum] } : {}) });
  }
  return JSON.parse(JSON.stringify({ parent_schema_id: parentSchemaId, etag, patch_ids: deliveries.map((p) => p.patch_id), new_keys: newKeys, modified_keys: modified })) as JsonObject;
}
