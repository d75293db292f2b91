/**
 * Which patch keys need an operator before clients see them. draft-zhou §7:
 * "schema updates that add capabilities or touch security-relevant keys"
 * require authorization. A key is security-relevant when its name or its
 * description speaks of payment, identity or access control; the lexicon is
 * deliberately broad (a false positive costs one operator click, a false
 * negative publishes a payment key unreviewed).
 */
const TERMS: readonly (readonly [string, RegExp])[] = [
  ['payment', /\b(pay(ment)?s?|card|credit|debit|iban|bank|account[_ ]?number|cvv|cvc|billing|wallet|refund)\b/i],
  ['identity', /\b(passport|identity|id[_ ]?(number|card)|ssn|social[_ ]security|national[_ ]id|date[_ ]of[_ ]birth|dob|biometric|fingerprint|face[_ ]id)\b/i],
  ['access control', /\b(password|passcode|pin[_ ]?code|credential|token|secret|api[_ ]?key|auth\w*|permission|role|access|admin|privilege)\b/i],
];

/** Phrases that mark a description as security-relevant whatever the key is called. */
const STRONG = /\b(credit card|card number|bank account|password|passport number|social security|api key|access token)\b/i;

/**
 * Why a key is security-relevant (empty when it is not). The whole lexicon
 * applies to the key name (split on `_`, so `card_number` matches `card`);
 * the description, which quotes users' fragments, is held to the strong
 * phrases only ("aisle access" must not hold a seat key for review).
 */
export function securityRelevance(key: { readonly key_name: string; readonly semantic_description?: string }): string[] {
  const name = key.key_name.replace(/_/g, ' ');
  const out: string[] = [];
  for (const [what, re] of TERMS) {
    const m = re.exec(name);
    if (m) out.push(`"${key.key_name}" touches ${what} ("${m[0]}")`);
  }
  const d = STRONG.exec(key.semantic_description ?? '');
  if (d) out.push(`"${key.key_name}" is described with "${d[0]}"`);
  return out;
}
