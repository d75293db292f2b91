/**
 * The schema template model of draft-zhou §4.1, plus Parley's machine-checkable
 * constraint members. The wire format of the draft stays valid as written:
 * every extension member is optional.
 */

/** JSON Schema type identifiers a key_type may name (draft-zhou §4.1 key_type). */
export const KEY_TYPES = ['string', 'integer', 'number', 'boolean', 'array', 'object', 'null'] as const;
export type KeyType = (typeof KEY_TYPES)[number];

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };
export type JsonObject = { [k: string]: JsonValue };

/** The reserved escape-valve key (draft-zhou §4.3). */
export const OTHER_KEY = 'other';

export interface KeyDefinition {
  /** REQUIRED, snake_case, unique within the template (§4.1). */
  key_name: string;
  /** REQUIRED, a JSON Schema type identifier (§4.1). */
  key_type: KeyType;
  /** REQUIRED (§4.1, §4.2). */
  semantic_description: string;
  /** REQUIRED (§4.1). */
  required: boolean;
  /** OPTIONAL (§4.1). Absent and `null` both mean "no default". */
  default_value?: JsonValue;

  // Parley extension: constraints that semantic descriptions state in prose,
  // made machine-checkable. Each is optional and checked against key_type.
  /** Acceptable values ("Acceptable values: economy, business, ..."). */
  enum?: JsonValue[];
  /** Inclusive range for integer/number keys ("Range: 1-9"). */
  minimum?: number;
  maximum?: number;
  /** A JSON Schema format for string keys, e.g. `date` for "ISO 8601 (YYYY-MM-DD)". */
  format?: string;
  pattern?: string;
  min_length?: number;
  max_length?: number;
  /** Element type of an array key. */
  items_type?: KeyType;
  min_items?: number;
  max_items?: number;

  /**
   * draft-chang §3.2 (ADOL B, adaptive optional inclusion): content a client
   * can do without, e.g. `{ examples: [...], notes: "..." }`. Short views omit
   * it, full views keep it; validation ignores it.
   */
  optional?: JsonObject;

  /**
   * zhou §6.2.3 lifecycle flags of a key a schema patch added: 'advertised with
   * an "experimental: true" flag' during its trial, and 'remain in the schema for
   * a grace period with a "deprecated: true" flag'. Patch-only: they appear in
   * effective templates (base + patches) and patch deliveries, never in a
   * published base template (negotiation refuses them, rule `patch_only_member`).
   * Stable keys and base keys carry neither.
   */
  experimental?: boolean;
  deprecated?: boolean;

  /**
   * draft-zhou §7: the key touches payment, identity or access control. A schema
   * patch that refines such a key (or adds one) waits for an operator's approval
   * before any client sees it. Set by the server agent that publishes the key.
   */
  security_relevant?: boolean;
}

export interface SchemaTemplate {
  /** REQUIRED, unique within the server agent's namespace (§4.1). */
  schema_id: string;
  /** REQUIRED, human-readable scenario (§4.1). Its snake_case slug is the canonical scenario id. */
  scenario: string;
  /** REQUIRED (§4.1). */
  keys: KeyDefinition[];
}

/**
 * Key-definition members Parley knows; anything else in a key definition is
 * rejected. In the draft's member order (key_name, key_type, required,
 * default_value, semantic_description: Figures 2 and 7), then the constraints,
 * the §6.2.3 lifecycle flags and the ADOL optional section; serialisers emit
 * members in this order.
 */
export const KEY_DEFINITION_MEMBERS = [
  'key_name',
  'key_type',
  'required',
  'default_value',
  'semantic_description',
  'enum',
  'minimum',
  'maximum',
  'format',
  'pattern',
  'min_length',
  'max_length',
  'items_type',
  'min_items',
  'max_items',
  'security_relevant',
  'experimental',
  'deprecated',
  'optional',
] as const;

/** Key-definition members only a schema patch may set (zhou §6.2.3); a base template carrying them is refused. */
export const PATCH_ONLY_MEMBERS = ['experimental', 'deprecated'] as const;

/** Top-level template members Parley knows. */
export const TEMPLATE_MEMBERS = ['schema_id', 'scenario', 'keys'] as const;
