import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_FRAGMENT_CHARS, MAX_FRAGMENTS_PER_EVENT, MAX_RAW_FRAGMENT_CHARS, boundFragments, sanitizeFragment } from '@parley/evolution';

describe('bounding `other` for an event (zhou §4.3 accepted whole, §6.2.1 bounded)', () => {
  it('carries short fragments untouched and reports no truncation', () => {
    expect(boundFragments(['window seat', 'aisle'])).toEqual({ fragments: ['window seat', 'aisle'], truncation: null });
    expect(boundFragments([])).toEqual({ fragments: [], truncation: null });
  });

  it('cuts a long fragment to MAX_RAW_FRAGMENT_CHARS code points and counts what it left out', () => {
    expect(MAX_RAW_FRAGMENT_CHARS).toBe(20 * DEFAULT_MAX_FRAGMENT_CHARS);
    const huge = 'x'.repeat(1_048_200);
    const b = boundFragments([huge]);
    expect(b.fragments).toEqual(['x'.repeat(MAX_RAW_FRAGMENT_CHARS)]);
    expect(b.truncation).toEqual({ fragments_cut: 1, fragments_dropped: 0, chars_dropped: 1_048_200 - MAX_RAW_FRAGMENT_CHARS });
    // What the pool embeds is the same either way: the sanitiser keeps far less than the bound.
    expect(sanitizeFragment(b.fragments[0]!).text).toBe(sanitizeFragment(huge.slice(0, 10_000)).text);
  });

  it('counts code points, never splitting a surrogate pair', () => {
    const emoji = '😀'.repeat(MAX_RAW_FRAGMENT_CHARS + 3);
    const b = boundFragments([emoji, '😀'.repeat(MAX_RAW_FRAGMENT_CHARS)]);
    expect([...b.fragments[0]!]).toHaveLength(MAX_RAW_FRAGMENT_CHARS);
    expect(b.fragments[0]!.endsWith('😀')).toBe(true);
    // Exactly at the limit in code points (twice that in UTF-16 units): carried whole.
    expect(b.fragments[1]).toBe('😀'.repeat(MAX_RAW_FRAGMENT_CHARS));
    expect(b.truncation).toEqual({ fragments_cut: 1, fragments_dropped: 0, chars_dropped: 3 });
  });

  it('carries at most MAX_FRAGMENTS_PER_EVENT fragments and counts the rest', () => {
    const all = Array.from({ length: MAX_FRAGMENTS_PER_EVENT + 5 }, (_, i) => `fragment ${i}`);
    const b = boundFragments(all);
    expect(b.fragments).toEqual(all.slice(0, MAX_FRAGMENTS_PER_EVENT));
    expect(b.truncation).toEqual({ fragments_cut: 0, fragments_dropped: 5, chars_dropped: all.slice(MAX_FRAGMENTS_PER_EVENT).join('').length });
  });
});
