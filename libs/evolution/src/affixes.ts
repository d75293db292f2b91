/**
 * Name words that say what kind of key it is rather than what it is about (`needs_`, `_preference`, `_count`,
 * `_ids`, …): one source for the inducer (descriptions, nested names) and for the sibling rule (slot words),
 * draft-zhou §6.2.2 conflict detection.
 */
export const KIND_AFFIXES: ReadonlySet<string> = new Set(['needs', 'wants', 'preference', 'ids', 'count', 'percent', 'window', 'detail']);

/** The kind affixes and `type`: what is left of a name is what it is about (`customer_type` is about customers). */
export const NAME_AFFIXES: ReadonlySet<string> = new Set([...KIND_AFFIXES, 'type']);

/**
 * The name affixes and the words that say what is done with the thing or how it is bounded (`_removal`, `_only`,
 * `_id`, `_time`): what is left of a name is the slot a value fills (`golden_sunset` → golden, sunset).
 */
export const SLOT_AFFIXES: ReadonlySet<string> = new Set([...NAME_AFFIXES, 'removal', 'only', 'id', 'time']);
