/**
 * draft-zhou §6.2.2 / §7 induction with the WordNet lexicon: person names never reach a published key (its values,
 * name or description), whatever their case or title; made-up phrasings, none from an evaluation stream.
 */
import { describe, expect, it } from 'vitest';
import { loadWordNetLexicon } from '@parley/embeddings';
import { induceKey, type InductionResult, type InductionSample } from '@parley/evolution';

const lexicon = await loadWordNetLexicon();
let n = 0;
const said = (text: string, clients: number): InductionSample => ({ text, count: clients, clients: Array.from({ length: clients }, () => `c${n++}`) });
const induce = (samples: InductionSample[]): InductionResult => induceKey(samples, undefined, { lexicon });
/** Every published word of a key: values, name words and description. */
function published(r: InductionResult): string {
  if (!r.ok) return '';
  const k = r.candidate.key;
  return [k.key_name, k.semantic_description, ...(k.enum ?? []).map(String)].join(' ').toLowerCase();
}

describe('person names never reach a key (zhou §7)', () => {
  const NAMES = /peter|maria|schmidt|novak|anna|oskar/;
  it('lowercase names after a noun for a person, a copula, by/with/to, or joined by "and" are no values and no name words', () => {
    const cases = [
      [said('the engineer should be peter', 3), said('engineer peter again', 2), said('engineer maria please', 3), said('we want maria as engineer', 2)],
      [said('pickup by peter', 3), said('pickup by maria', 3), said('pickup by peter today', 2), said('pickup by maria tomorrow', 2)],
      [said('peter and maria will meet us', 3), said('maria can drive', 3), said('peter can drive', 3), said('driver should be peter', 2), said('driver maria', 2)],
      [said('the driver will be Peter', 3), said('the driver will be Maria', 3), said('the driver is Peter', 2), said('driver is Maria', 2)],
      [said('handled by anna', 3), said('handled by oskar', 3), said('case handled by anna', 2), said('handled by oskar today', 2)],
    ];
    for (const c of cases) expect(published(induce(c))).not.toMatch(NAMES);
  });
  it('a title with a full stop is a title: the name after it is no name word ("Mr. Schmidt")', () => {
    const r = induce([said('booking for Mr. Schmidt', 3), said('booking for Mr. Schmidt please', 3), said('the booking for Mr. Schmidt', 2)]);
    expect(published(r)).not.toMatch(NAMES);
    const mixed = induce([said('booking for Mr. Schmidt', 3), said('Schmidt family booking', 2), said('booking for Mrs. Novak', 3), said('the Novak booking', 2)]);
    expect(published(mixed)).not.toMatch(NAMES);
  });
  it('ordinary choices are still read (the filter keeps common words)', () => {
    const r = induce([said('a window seat please', 3), said('aisle seat for me', 3), said('window seat again', 2), said('I want the aisle seat', 2)]);
    expect(r.ok && r.candidate.key.enum).toEqual(expect.arrayContaining(['window', 'aisle']));
  });
});
