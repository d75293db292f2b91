/**
 * BM25 terms of tool selection (draft-chang §3.4) for scripts written without spaces:
 * character bigrams, so a Chinese or Japanese request meets a tool text that shares
 * words with it; other scripts keep their words.
 */
import { describe, expect, it } from 'vitest';
import { lexicalTerms } from '../src/select';

describe('lexical terms in other scripts', () => {
  it('indexes spaceless scripts by character bigrams for BM25', () => {
    expect(lexicalTerms('我想要靠窗的座位')).toEqual(['我想', '想要', '要靠', '靠窗', '窗的', '的座', '座位']);
    expect(lexicalTerms('窓')).toEqual(['窓']);
    expect(lexicalTerms('место у окна')).toEqual(['место', 'у', 'окна']);
  });
});
