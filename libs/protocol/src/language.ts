/**
 * Language negotiation for semantic annotations (zhou §4.2: server agents
 * SHOULD keep descriptions in the end users' language "or provide multilingual
 * annotations when serving cross-lingual client agents"; Figure 6 sends
 * `preferred_language: "en-US"`). Tags are BCP 47 and compared case-insensitively.
 */
import { ParleyError, type ErrorType } from './errors';

/** A BCP 47 tag's shape (RFC 5646 §2.1, without the grandfathered forms). */
export const BCP47_PATTERN = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;

/**
 * Validates a BCP 47 tag and returns it in canonical case (RFC 5646 §2.1.1):
 * language lowercase, script Titlecase, region UPPERCASE, the rest lowercase —
 * `"EN-us"` → `"en-US"`, `"zh-hant-tw"` → `"zh-Hant-TW"`. Throws `invalid_params`
 * (rule `type` or `bcp47`) naming `path`.
 */
export function normalizeLanguageTag(tag: unknown, path: string, type: ErrorType = 'invalid_params'): string {
  if (typeof tag !== 'string') {
    throw new ParleyError(type, `${path} must be a BCP 47 language tag string such as "en-US"`, { path, rule: 'type' });
  }
  if (tag.length > 64 || !BCP47_PATTERN.test(tag)) {
    throw new ParleyError(type, `${path} ${JSON.stringify(tag.slice(0, 64))} is not a BCP 47 language tag; use e.g. "en", "en-US" or "zh-Hans-CN"`, {
      path,
      rule: 'bcp47',
    });
  }
  const parts = tag.split('-');
  let singleton = false;
  return parts
    .map((p, i) => {
      const lower = p.toLowerCase();
      if (i === 0) return lower;
      // After a singleton (extension "u-", private use "x-") subtags keep lowercase.
      if (singleton) return lower;
      if (p.length === 1) {
        singleton = true;
        return lower;
      }
      if (p.length === 4 && /^[A-Za-z]{4}$/.test(p)) return lower.charAt(0).toUpperCase() + lower.slice(1);
      if (p.length === 2 && /^[A-Za-z]{2}$/.test(p)) return p.toUpperCase();
      return lower;
    })
    .join('-');
}

/**
 * Picks the language to answer in. `preferred` is matched against `available`
 * case-insensitively: an exact match first; then RFC 4647 lookup, truncating
 * the preferred tag (`zh-Hant-TW` → `zh-Hant` → `zh`); then any available tag
 * with the same primary subtag (`en-US` ↔ `en-GB`); else `fallback`. Returns the
 * tag as spelled in `available` (or `fallback`).
 */
export function negotiateLanguage(preferred: string | undefined, available: readonly string[], fallback: string): string {
  // A BCP 47 tag is at most 64 characters here (normalizeLanguageTag): a longer one matches nothing,
  // and its thousands of subtags would make the prefix walk below quadratic.
  if (!preferred || preferred.length > 64) return fallback;
  const want = preferred.toLowerCase();
  const byLower = new Map<string, string>();
  for (const a of available) if (!byLower.has(a.toLowerCase())) byLower.set(a.toLowerCase(), a);

  // Exact match, then progressively shorter prefixes (RFC 4647 §3.4 lookup).
  const parts = want.split('-');
  for (let n = parts.length; n >= 1; n--) {
    // Never end on a singleton (e.g. "en-x"): drop it along with what follows.
    if (n > 1 && (parts[n - 1] as string).length === 1) continue;
    const hit = byLower.get(parts.slice(0, n).join('-'));
    if (hit !== undefined) return hit;
  }

  // Same primary language, different region or script: the first one listed.
  const primary = parts[0] as string;
  for (const a of available) {
    if (a.toLowerCase().split('-')[0] === primary) return a;
  }
  return fallback;
}
