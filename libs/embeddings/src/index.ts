/**
 * @parley/embeddings — the embedder port and its adapters: the offline
 * embedder (default, no download: WordNet features and GloVe word vectors) and
 * an OpenAI-compatible endpoint.
 * Used for ADOL tool selection (draft-chang §3.4) and, later, for clustering
 * `other` fragments (draft-zhou §6.2.1). Exactly the public API; no `export *`.
 */

// The port.
export { cosine, l2normalize } from './port';
export type { Embedder } from './port';

// The offline default.
export { DEFAULT_DIMENSIONS, DEFAULT_WEIGHTS, DEFAULT_WORD_VECTOR_WEIGHT, OFFLINE_EMBEDDER_ID, OFFLINE_GLOVE_EMBEDDER_ID, createOfflineEmbedder } from './offline';
export type { FeatureWeights, OfflineEmbedder, OfflineEmbedderOptions, OfflineEmbedderStats } from './offline';
export { ABBREVIATIONS, OTHER_STOP_WORDS, SOFTWARE_THESAURUS, STOP_WORDS, scriptWords, tokenize } from './text';
export type { ScriptWord } from './text';

// The GloVe word-vector cache under the offline embedder (built at install by scripts/build-word-vectors.mjs).
export { SIF_A, WordVectors, findWordVectors, loadWordVectors, parseWordVectors, readWordVectorsHeader } from './word-vectors';
export type { WordVectorsHeader, WordVectorsStatus } from './word-vectors';

// The lexicon port of intent induction (libs/evolution Lexicon) over WordNet.
export { createWordNetLexicon, loadWordNetLexicon } from './lexicon';
export type { WordNetLexiconOptions } from './lexicon';

// The WordNet 3.1 reader under the offline embedder (the offline utterance mapper reads it too).
export { WordNet } from './wordnet';
export type { IndexEntry, Pointer, Pos, Synset, WordNetLoadOptions } from './wordnet';
export { defaultDictDir } from './offline';

// OpenAI-compatible endpoints.
export { createOpenAIEmbedder } from './openai';
export type { OpenAIEmbedderOptions } from './openai';

// transformers.js (local ONNX models).
export { DEFAULT_TRANSFORMERS_MODEL, createTransformersEmbedder, type TransformersDtype, type TransformersEmbedder, type TransformersEmbedderOptions, type TransformersEmbedderStats } from './transformers';

// Choosing one from the environment.
export { EMBEDDER_KINDS, createEmbedderFromEnv } from './env';
export type { EmbedderKind } from './env';

// Judging an embedder on labelled pairs.
export { separation } from './separation';
export type { LabelledScore, Separation } from './separation';
