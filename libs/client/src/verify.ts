/**
 * The verify half of Parley's signatures (draft-zhou §7: schema negotiation and
 * update messages integrity-protected), for client agents: canonical JSON
 * (RFC 8785), compact JWS with a detached payload (RFC 7515 Appendix F), Ed25519
 * (RFC 8037), against the gateway's JWKS (`/.well-known/jwks.json`).
 *
 * Canonical JSON and the JWS check itself are libs/protocol's (jws.ts), the same
 * code the services use; the signing half is libs/runtime's. This file adds the
 * JWKS fetching, caching and rotation a client needs.
 */
import { verifyDetached, type Jwk, type VerifyResult } from '@parley/protocol';

export { PARLEY_JWS_TYP, canonicalJson, jwsHeader, verifyDetached, type Jwk, type JwsHeader, type VerifyFailure, type VerifyResult } from '@parley/protocol';

/** A JWKS as fetched from the gateway (`/.well-known/jwks.json`). */
export interface Jwks {
  keys: Jwk[];
}

/**
 * Verification against a JWKS that is either pinned (given) or fetched from the
 * gateway and cached; an unknown kid fetches it once more (a rotated key), one
 * fetch at a time. `check` never throws for a bad signature: it returns the result.
 */
export interface Verifier {
  check(payload: unknown, jws: string): Promise<VerifyResult>;
  jwks(): Promise<Jwks>;
}

export function createVerifier(source: { jwks: Jwks } | { fetchJwks: () => Promise<Jwks> }): Verifier {
  if ('jwks' in source) {
    const pinned = source.jwks;
    return { check: async (p, jws) => verifyDetached(p, jws, pinned), jwks: async () => pinned };
  }
  let cached: Jwks | undefined;
  let loading: Promise<Jwks> | undefined;
  const load = (): Promise<Jwks> => {
    loading ??= source
      .fetchJwks()
      .then((j) => {
        cached = j;
        return j;
      })
      .finally(() => {
        loading = undefined;
      });
    return loading;
  };
  return {
    async check(payload, jws) {
      const had = cached;
      const first = verifyDetached(payload, jws, had ?? (await load()));
      if (first.ok || first.reason !== 'unknown_kid' || had === undefined) return first;
      // Rotation: a key published after our copy was fetched.
      return verifyDetached(payload, jws, await load());
    },
    jwks: async () => cached ?? load(),
  };
}

/** Checks that a fetched document is a JWKS (`{ keys: [...] }`). */
export function asJwks(doc: unknown): Jwks | undefined {
  if (doc === null || typeof doc !== 'object' || !Array.isArray((doc as { keys?: unknown }).keys)) return undefined;
  return { keys: ((doc as { keys: unknown[] }).keys).filter((k): k is Jwk => k !== null && typeof k === 'object' && typeof (k as Jwk).kty === 'string') };
}
