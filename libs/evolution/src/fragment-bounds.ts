import { DEFAULT_MAX_FRAGMENT_CHARS } from './sanitize';

/**
 * How much of a payload's `other` travels in an `other.captured` event (draft-zhou
 * §4.3: `other` MUST be accepted, however long; §6.2.1: the pool needs only a
 * fragment's words). The execution service bounds what it puts in the event with
 * these, the semantic pool keeps at most as much, and what was cut is counted in
 * the event, so no payload can make an event too large to deliver.
 *
 * The sanitiser keeps at most DEFAULT_MAX_FRAGMENT_CHARS code points of a fragment
 * for embedding and clustering; the raw text operators may read is kept up to
 * twenty times that, MAX_RAW_FRAGMENT_CHARS (4000), so an `other.captured` event
 * carries at most MAX_FRAGMENTS_PER_EVENT × 4000 code points (about 500 KiB in the
 * worst case of 4-byte characters, 128 KiB of ASCII).
 */
export const MAX_RAW_FRAGMENT_CHARS = 20 * DEFAULT_MAX_FRAGMENT_CHARS;
/** Fragments of one payload's `other` that the pool considers; the rest are counted, not carried. */
export const MAX_FRAGMENTS_PER_EVENT = 32;

/** What bounding cut; absent from an event when nothing was. */
export interface FragmentTruncation {
  /** Fragments carried but cut to MAX_RAW_FRAGMENT_CHARS code points. */
  fragments_cut: number;
  /** Fragments beyond MAX_FRAGMENTS_PER_EVENT, not carried. */
  fragments_dropped: number;
  /** Code points left out, of cut and dropped fragments together. */
  chars_dropped: number;
}

export interface BoundedFragments {
  fragments: string[];
  truncation: FragmentTruncation | null;
}

/** Code points of `s`, counted without materialising them. */
function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** The first `max` code points of `s` (a surrogate pair is never split). */
function headCodePoints(s: string, max: number): string {
  let i = 0;
  for (let n = 0; n < max && i < s.length; n++) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff ? 2 : 1;
  }
  return s.slice(0, i);
}

/** The fragments an event carries: at most MAX_FRAGMENTS_PER_EVENT, each at most MAX_RAW_FRAGMENT_CHARS code points. */
export function boundFragments(all: readonly string[]): BoundedFragments {
  let cut = 0;
  let chars = 0;
  const fragments: string[] = [];
  for (const [i, f] of all.entries()) {
    if (i >= MAX_FRAGMENTS_PER_EVENT) {
      chars += codePoints(f);
      continue;
    }
    // Fewer UTF-16 units than the limit: certainly within it.
    if (f.length <= MAX_RAW_FRAGMENT_CHARS) {
      fragments.push(f);
      continue;
    }
    const n = codePoints(f);
    if (n <= MAX_RAW_FRAGMENT_CHARS) {
      fragments.push(f);
      continue;
    }
    cut++;
    chars += n - MAX_RAW_FRAGMENT_CHARS;
    fragments.push(headCodePoints(f, MAX_RAW_FRAGMENT_CHARS));
  }
  const dropped = Math.max(0, all.length - MAX_FRAGMENTS_PER_EVENT);
  return { fragments, truncation: cut > 0 || dropped > 0 ? { fragments_cut: cut, fragments_dropped: dropped, chars_dropped: chars } : null };
}
