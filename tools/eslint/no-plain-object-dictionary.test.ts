/**
 * The lint rule that keeps dictionaries keyed by outside text off plain objects
 * (draft-zhou §7: `other` and payload keys are untrusted): what it flags and what
 * it lets through.
 */
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, describe, it } from 'vitest';
import { noPlainObjectDictionary } from './no-plain-object-dictionary.mjs';

RuleTester.describe = describe;
RuleTester.it = it;
(RuleTester as unknown as { afterAll: typeof afterAll }).afterAll = afterAll;

const tester = new RuleTester({ languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: 'module' } });
const dictionary = [{ messageId: 'dictionary' }];

tester.run('no-plain-object-dictionary', noPlainObjectDictionary, {
  valid: [
    // Maps and null-prototype objects.
    'const m = new Map<string, number>(); function f(w: string) { return m.get(w); }',
    'const d: Record<string, number> = Object.create(null); function f(w: string) { return d[w]; }',
    // Closed key types and literal keys.
    "type P = 'n' | 'v'; const t: Record<P, number> = { n: 1, v: 2 }; function f(p: P) { return t[p]; }",
    "const d: Record<string, number> = {}; d['x'] = 1; const y = d['x'];",
    'const d = {} as Record<"a" | "b", number>; function f(k: "a" | "b") { return d[k]; }',
    // Keys of the code: a const literal, a list of literals, a SCREAMING_CASE constant list.
    "const d: Record<string, number> = {}; const K = 'other'; const y = d[K];",
    "const d: Record<string, number> = {}; for (const m of ['a', 'b'] as const) d[m] = 1;",
    "const MEMBERS = ['a']; function f(d: Record<string, unknown>) { for (const m of MEMBERS) if (d[m]) return 1; }",
    // Own keys of the object itself.
    'function f(o: Record<string, unknown>) { for (const k of Object.keys(o).sort()) console.log(o[k]); }',
    'function f(o: Record<string, unknown>) { return Object.keys(o).map((k) => o[k]); }',
    // The guarded read.
    'const A: Readonly<Record<string, string>> = { pr: "pull request" }; function f(t: string) { return Object.hasOwn(A, t) ? A[t] : undefined; }',
    // Arrays and typed arrays.
    'function f(v: Float32Array, i: number) { return v[i]; }',
    'const xs: string[] = []; function f(i: number) { return xs[i]; }',
  ],
  invalid: [
    // The bug that halted the pool: an abbreviation table read with a token.
    { code: 'const A: Readonly<Record<string, string>> = { pr: "pull request" }; function f(t: string) { return A[t]; }', errors: dictionary },
    { code: 'const d: Record<string, number> = {}; function f(w: string) { d[w] = (d[w] ?? 0) + 1; }', errors: [...dictionary, ...dictionary] },
    { code: 'const d = {} as Record<string, number>; function f(w: string) { return d[w]; }', errors: dictionary },
    { code: 'const d = {}; function f(w: string) { return (d as any)[w]; }', errors: dictionary },
    { code: 'function f(p: Record<string, unknown>, name: string) { return p[name]; }', errors: dictionary },
    { code: 'function f(p: { [k: string]: number }, name: string) { return p[name]; }', errors: dictionary },
    { code: 'class C { private readonly t: Record<string, string> = {}; get(w: string) { return this.t[w]; } }', errors: dictionary },
    { code: 'class C { constructor(private readonly t: Readonly<Record<string, string>>) {} get(w: string) { return this.t[w]; } }', errors: dictionary },
    // A guard on another key does not count.
    { code: 'const A: Record<string, string> = {}; function f(t: string, u: string) { return Object.hasOwn(A, u) ? A[t] : undefined; }', errors: dictionary },
  ],
});
