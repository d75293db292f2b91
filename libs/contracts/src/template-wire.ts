import { KEY_DEFINITION_MEMBERS, type JsonValue, type KeyDefinition as DomainKey, type SchemaTemplate as DomainTemplate } from '@parley/protocol';
import type { KeyDefinition, SchemaTemplate } from './gen/parley/v1/common';

/**
 * Domain template <-> protobuf message. Decoded messages carry every optional
 * field as `undefined`; the domain object carries only the members that are
 * present, in KEY_DEFINITION_MEMBERS order (the draft's own member order).
 * `default_value: null` survives the trip (presence is kept by
 * `optional google.protobuf.Value`), and so do the §6.2.3 flags `experimental`
 * and `deprecated` (`optional bool`, fields 17 and 18).
 */
export function keyFromWire(k: KeyDefinition): DomainKey {
  const out: Record<string, unknown> = {};
  for (const m of KEY_DEFINITION_MEMBERS) {
    const v = k[m];
    if (v !== undefined) out[m] = v;
  }
  return out as unknown as DomainKey;
}

export function templateFromWire(t: SchemaTemplate): DomainTemplate {
  return { schema_id: t.schema_id, scenario: t.scenario, keys: t.keys.map(keyFromWire) };
}

export function templateToWire(t: DomainTemplate): SchemaTemplate {
  return {
    schema_id: t.schema_id,
    scenario: t.scenario,
    keys: t.keys.map((k) => ({
      key_name: k.key_name,
      key_type: k.key_type,
      semantic_description: k.semantic_description,
      required: k.required,
      ...(k.default_value !== undefined ? { default_value: k.default_value as JsonValue } : {}),
      ...(k.enum !== undefined ? { enum: k.enum } : {}),
      ...(k.minimum !== undefined ? { minimum: k.minimum } : {}),
      ...(k.maximum !== undefined ? { maximum: k.maximum } : {}),
      ...(k.format !== undefined ? { format: k.format } : {}),
      ...(k.pattern !== undefined ? { pattern: k.pattern } : {}),
      ...(k.min_length !== undefined ? { min_length: k.min_length } : {}),
      ...(k.max_length !== undefined ? { max_length: k.max_length } : {}),
      ...(k.items_type !== undefined ? { items_type: k.items_type } : {}),
      ...(k.min_items !== undefined ? { min_items: k.min_items } : {}),
      ...(k.max_items !== undefined ? { max_items: k.max_items } : {}),
      ...(k.security_relevant !== undefined ? { security_relevant: k.security_relevant } : {}),
      // draft-zhou §6.2.3 lifecycle flags (patch keys of an effective template only).
      ...(k.experimental !== undefined ? { experimental: k.experimental } : {}),
      ...(k.deprecated !== undefined ? { deprecated: k.deprecated } : {}),
      ...(k.optional !== undefined ? { optional: k.optional } : {}),
    })),
  };
}
