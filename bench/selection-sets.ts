// Whether a request shares a word with the name or description of a tool it
// expects: the split bench/tokens.ts reports separately (paraphrase robustness).
// Used only where a request set does not say so itself (`shares_word`). Words:
// lowercase letters and digits, identifiers split (`list_pull_requests`,
// `pullNumber`), a few function words ignored, plural and -ed/-ing endings taken off.
// The stemmer is a copy of libs/adol's on purpose: the split labels the data and must not move when the
// selection code under test changes its tokenizer.
import type { McpTool } from '@parley/adol';

const FUNCTION_WORDS = new Set(
  'a an and are as at be by can could do does for from has have how i if in into is it its me my of on or our please should so that the their them then there these this those to too us was we were what when where which who why will with would you your'.split(
    ' ',
  ),
);

function stem(w: string): string {
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (/(ss|us|is)$/.test(w)) return w;
  if (/(ches|shes|xes|sses)$/.test(w)) return w.slice(0, -2);
  if (w.endsWith('s')) return w.slice(0, -1);
  if (w.endsWith('ing') && w.length > 5) return w.slice(0, -3).replace(/(.)\1$/, '$1');
  if (w.endsWith('ed') && w.length > 4) return w.slice(0, -2).replace(/(.)\1$/, '$1');
  return w;
}

export function wordsOf(text: string): Set<string> {
  const split = text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_\-.:/]+/g, ' ');
  return new Set(
    split
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((w) => w.length > 0 && !FUNCTION_WORDS.has(w))
      .map(stem),
  );
}

export function sharesWord(text: string, expected: readonly string[], tools: readonly McpTool[]): boolean {
  const q = wordsOf(text);
  return expected.some((name) => {
    const t = tools.find((x) => x.name === name);
    const w = wordsOf(`${name} ${t?.description ?? ''}`);
    return [...q].some((x) => w.has(x));
  });
}
