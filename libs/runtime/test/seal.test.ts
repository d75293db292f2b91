/**
 * Sealing data at rest (draft-zhou §7): AES-256-GCM envelopes with a key id,
 * bound to a context, rotatable; keys from the environment.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, SealError, createSealer, dataKeyId, ephemeralSealer, generateDataKey, parseDataKeys, sealerFromEnv } from '@parley/runtime';

const KEY = Buffer.alloc(32, 7);
const B64 = KEY.toString('base64');

describe('seal / open (AES-256-GCM)', () => {
  it('round-trips any text; the envelope names the key and shows nothing of the text', () => {
    const s = createSealer([{ kid: 'k1', key: KEY }]);
    const env = s.seal('window seat, mail me at jane.doe@example.com', 'pool.inputs:e1:0');
    expect(env).toMatch(/^psl1\.k1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(env).not.toContain('jane');
    expect(Buffer.from(env.split('.')[3]!, 'base64url').toString('latin1')).not.toContain('jane');
    expect(s.open(env, 'pool.inputs:e1:0')).toBe('window seat, mail me at jane.doe@example.com');
    expect(s.kidOf(env)).toBe('k1');
    expect(s.kidOf('plain text')).toBeNull();
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 500 }), fc.string({ maxLength: 40 }), (text, ctx) => {
        expect(s.open(s.seal(text, ctx), ctx)).toBe(text);
      }),
    );
  });

  it('a fresh IV each time: the same text seals differently', () => {
    const s = createSealer([{ kid: 'k1', key: KEY }]);
    const a = s.seal('same');
    const b = s.seal('same');
    expect(a).not.toBe(b);
    expect(a.split('.')[2]).not.toBe(b.split('.')[2]);
    expect(s.open(a)).toBe(s.open(b));
  });

  it('refuses another context, a tampered envelope, an edited key id, an unknown key and non-envelopes', () => {
    const s = createSealer([{ kid: 'k1', key: KEY }, { kid: 'k2', key: Buffer.alloc(32, 9) }]);
    const env = s.seal('secret', 'row-1');
    const fail = (e: string, ctx?: string) => {
      try {
        s.open(e, ctx);
      } catch (err) {
        expect(err).toBeInstanceOf(SealError);
        return (err as SealError).reason;
      }
      return 'opened';
    };
    expect(fail(env, 'row-2')).toBe('bad_seal');
    expect(fail(env)).toBe('bad_seal');
    const parts = env.split('.');
    const body = Buffer.from(parts[3]!, 'base64url');
    body[0] = body[0]! ^ 1;
    expect(fail([parts[0], parts[1], parts[2], body.toString('base64url')].join('.'), 'row-1')).toBe('bad_seal');
    // The key id is authenticated: naming the other held key does not open it.
    expect(fail(['psl1', 'k2', parts[2], parts[3]].join('.'), 'row-1')).toBe('bad_seal');
    expect(fail(['psl1', 'k9', parts[2], parts[3]].join('.'), 'row-1')).toBe('unknown_key');
    expect(fail('secret')).toBe('malformed');
    expect(fail('psl1.k1.short.x')).toBe('malformed');
  });

  it('rotates: the first key seals, every listed key opens; dropping a key makes its envelopes unreadable', () => {
    const oldKey = generateDataKey('old');
    const newKey = generateDataKey('new');
    const before = createSealer([oldKey]).seal('kept a while', 'c');
    const rotated = createSealer([newKey, oldKey]);
    expect(rotated.kid).toBe('new');
    expect(rotated.kids).toEqual(['new', 'old']);
    expect(rotated.open(before, 'c')).toBe('kept a while');
    expect(rotated.kidOf(rotated.seal('x'))).toBe('new');
    expect(() => createSealer([newKey]).open(before, 'c')).toThrow(expect.objectContaining({ reason: 'unknown_key', kid: 'old' }));
  });

  it('an ephemeral sealer says so and opens only its own envelopes', () => {
    const a = ephemeralSealer();
    const b = ephemeralSealer();
    expect(a.ephemeral).toBe(true);
    expect(a.kid).not.toBe(b.kid);
    expect(() => b.open(a.seal('x'))).toThrow(SealError);
    expect(createSealer([generateDataKey()]).ephemeral).toBe(false);
  });
});

describe('keys from the environment (PARLEY_DATA_KEY)', () => {
  it('reads one base64 key (kid from its fingerprint) or a rotation list of kid:key', () => {
    const one = parseDataKeys(B64);
    expect(one).toEqual([{ kid: dataKeyId(KEY), key: KEY }]);
    expect(dataKeyId(KEY)).toMatch(/^k[0-9a-f]{8}$/);
    const other = randomBytes(32);
    const two = parseDataKeys(` 2026b:${other.toString('base64url')} , 2026a:${B64} `);
    expect(two.map((k) => k.kid)).toEqual(['2026b', '2026a']);
    expect(two[0]!.key.equals(other)).toBe(true);
    const s = sealerFromEnv({ PARLEY_DATA_KEY: `2026b:${other.toString('base64')},2026a:${B64}` })!;
    expect(s.kid).toBe('2026b');
    expect(s.open(createSealer([{ kid: '2026a', key: KEY }]).seal('old', 'c'), 'c')).toBe('old');
    expect(sealerFromEnv({})).toBeUndefined();
    expect(sealerFromEnv({ PARLEY_DATA_KEY: '  ' })).toBeUndefined();
  });

  it('names the variable of a bad key: not base64, not 32 bytes, a bad or repeated key id', () => {
    expect(() => parseDataKeys('not base64!')).toThrow(ConfigError);
    expect(() => parseDataKeys(Buffer.alloc(16).toString('base64'))).toThrow(/PARLEY_DATA_KEY key 1 must be 32 bytes/);
    expect(() => parseDataKeys(`bad kid:${B64}`)).toThrow(/key id/);
    expect(() => parseDataKeys(`a:${B64},a:${randomBytes(32).toString('base64')}`)).toThrow(/appears twice/);
    expect(() => parseDataKeys(`${B64},${B64}`)).toThrow(/appears twice/);
    expect(() => sealerFromEnv({ MY_KEY: 'x' }, 'MY_KEY')).toThrow(/MY_KEY/);
    expect(() => createSealer([])).toThrow(TypeError);
    expect(() => createSealer([{ kid: 'k', key: Buffer.alloc(31) }])).toThrow(TypeError);
  });
});
