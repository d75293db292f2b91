import type { IncomingMessage } from 'node:http';
import { canonicalizeAgentCard } from '@a2a-js/sdk';
import { ParleyError, type Jwks } from '@parley/protocol';
import type { ParleyAgentCardJson } from './a2a-card';

/**
 * Which A2A agent card a client gets, and its signature.
 *
 * - A2A v1.0 (the default): the `a2a.proto` AgentCard in ProtoJSON
 *   (lowerCamelCase members; endpoints only in `supportedInterfaces`, each with
 *   its `protocolBinding` and `protocolVersion`; no top-level `url`,
 *   `protocolVersion` or `preferredTransport`; `securitySchemes` as the proto's
 *   oneof, e.g. `{"httpAuthSecurityScheme": {...}}`; `securityRequirements` as
 *   `{schemes: {name: {list: [scopes]}}}`).
 * - A2A v0.3 JSON for older clients, when asked: `?version=0.3` on the card's URL
 *   or the `A2A-Version: 0.3` request header (the header A2A v1.0 clients send
 *   with every request; the query wins when both are given). Top-level `url`,
 *   `preferredTransport` and `protocolVersion`, `additionalInterfaces`,
 *   OpenAPI-style `securitySchemes` (`{"type": "http", "scheme": "bearer"}`),
 *   `security` as `{name: [scopes]}` and `supportsAuthenticatedExtendedCard`.
 *   Any other version is refused (HTTP 400, `invalid_request`, rule
 *   `supported_version`).
 *
 * Either card is signed (A2A "Agent Card Signing"): `signatures` holds one JWS
 * in the JSON form `{protected, signature}` with a detached payload, the RFC 8785
 * canonical JSON of the card as A2A canonicalizes it before signing: without
 * `signatures`, members never set or empty ("", [], {}) left out, and for v1.0
 * first normalised through the a2a.proto codec (@a2a-js/sdk's
 * `canonicalizeAgentCard`, so its `verifyAgentCardSignature` checks our cards).
 * The JWS is the one Parley's negotiation signs templates with (draft-zhou §7:
 * Ed25519, `kid`), plus `jku` naming the gateway's `/.well-known/jwks.json`,
 * which publishes the key.
 */

export const A2A_CARD_VERSIONS = ['1.0', '0.3'] as const;
export type A2aCardVersion = (typeof A2A_CARD_VERSIONS)[number];
/** The v0.3 card's protocolVersion (the last v0.3 release the SDKs read). */
export const A2A_V03_PROTOCOL_VERSION = '0.3.0';

/** What signs cards: libs/runtime's KeyRing fits. */
export interface CardSigner {
  sign(payload: unknown, context?: Record<string, unknown>): string;
  jwks(): Jwks;
}

function versionOf(raw: string, path: string): A2aCardVersion {
  const v = raw.trim();
  if (/^1(?:\.0(?:\.\d+)?)?$/.test(v)) return '1.0';
  if (/^0\.3(?:\.\d+)?$/.test(v)) return '0.3';
  throw new ParleyError('invalid_request', `A2A card version ${JSON.stringify(v.slice(0, 20))} is not served; ask for 1.0 (default) or 0.3`, {
    path,
    rule: 'supported_version',
    details: { supported: [...A2A_CARD_VERSIONS] },
  });
}

/** The card version a request asks for: `?version=` first, then the `A2A-Version` header, else 1.0. */
export function requestedCardVersion(req: IncomingMessage): A2aCardVersion {
  const q = (req.url ?? '').indexOf('?');
  if (q >= 0) {
    const v = new URLSearchParams((req.url ?? '').slice(q + 1)).get('version');
    if (v !== null) return versionOf(v, 'query.version');
  }
  const h = req.headers['a2a-version'];
  const header = Array.isArray(h) ? h[0] : h;
  return header === undefined || header.trim() === '' ? '1.0' : versionOf(header, 'headers.a2a-version');
}

// ---------------------------------------------------------------------------
// v1.0 → v0.3
// ---------------------------------------------------------------------------

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** One v1.0 security scheme (ProtoJSON oneof) as the v0.3 OpenAPI-style object. */
export function v03SecurityScheme(v1: unknown): Json {
  const s = obj(v1);
  const described = (x: Json): Json => (str(x.description) ? { description: x.description } : {});
  if (s.httpAuthSecurityScheme) {
    const x = obj(s.httpAuthSecurityScheme);
    return { type: 'http', scheme: String(x.scheme ?? '').toLowerCase(), ...(str(x.bearerFormat) ? { bearerFormat: x.bearerFormat } : {}), ...described(x) };
  }
  if (s.apiKeySecurityScheme) {
    const x = obj(s.apiKeySecurityScheme);
    return { type: 'apiKey', in: x.location, name: x.name, ...described(x) };
  }
  if (s.oauth2SecurityScheme) {
    const x = obj(s.oauth2SecurityScheme);
    return { type: 'oauth2', flows: obj(x.flows), ...(str(x.oauth2MetadataUrl) ? { oauth2MetadataUrl: x.oauth2MetadataUrl } : {}), ...described(x) };
  }
  if (s.openIdConnectSecurityScheme) {
    const x = obj(s.openIdConnectSecurityScheme);
    return { type: 'openIdConnect', openIdConnectUrl: x.openIdConnectUrl, ...described(x) };
  }
  if (s.mtlsSecurityScheme) return { type: 'mutualTLS', ...described(obj(s.mtlsSecurityScheme)) };
  throw new ParleyError('internal', 'A security scheme of the card has no v0.3 form', { path: 'card.securitySchemes', rule: 'scheme_kind' });
}

const v03Security = (reqs: unknown): Array<Record<string, string[]>> =>
  (Array.isArray(reqs) ? reqs : []).map((r) => Object.fromEntries(Object.entries(obj(obj(r).schemes)).map(([name, scopes]) => [name, [...((obj(scopes).list as string[] | undefined) ?? [])]])));

/**
 * The v0.3 JSON card of a v1.0 card: the first v0.3 JSON-RPC interface is the
 * card's `url`, other v0.3 interfaces are `additionalInterfaces`. Throws when
 * the card offers no v0.3 interface.
 */
export function toV03Card(card: ParleyAgentCardJson): Json {
  const legacy = card.supportedInterfaces.filter((i) => i.protocolVersion.startsWith('0.3'));
  const primary = legacy.find((i) => i.protocolBinding === 'JSONRPC') ?? legacy[0];
  if (!primary) throw new ParleyError('invalid_request', 'This agent offers no A2A v0.3 interface', { path: 'query.version', rule: 'supported_version', details: { supported: ['1.0'] } });
  const { extendedAgentCard, extensions, streaming, pushNotifications } = card.capabilities ?? {};
  return {
    protocolVersion: A2A_V03_PROTOCOL_VERSION,
    name: card.name,
    description: card.description,
    url: primary.url,
    preferredTransport: primary.protocolBinding,
    additionalInterfaces: legacy.filter((i) => i !== primary).map((i) => ({ url: i.url, transport: i.protocolBinding })),
    ...(card.provider ? { provider: { organization: card.provider.organization, url: card.provider.url } } : {}),
    version: card.version,
    ...(card.documentationUrl ? { documentationUrl: card.documentationUrl } : {}),
    ...(card.iconUrl ? { iconUrl: card.iconUrl } : {}),
    capabilities: { streaming: streaming ?? false, pushNotifications: pushNotifications ?? false, ...(extensions?.length ? { extensions } : {}) },
    securitySchemes: Object.fromEntries(Object.entries(card.securitySchemes).map(([name, s]) => [name, v03SecurityScheme(s)])),
    security: v03Security(card.securityRequirements),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map(({ securityRequirements, ...s }) => ({ ...s, ...(securityRequirements?.length ? { security: v03Security(securityRequirements) } : {}) })),
    supportsAuthenticatedExtendedCard: extendedAgentCard ?? false,
  };
}

// ---------------------------------------------------------------------------
// Signing
// ---------------------------------------------------------------------------

/** A JSON value without its empty members ("", null, [], {}), recursively; undefined when nothing is left. */
export function withoutEmpty(v: unknown): unknown {
  if (v === '' || v === null || v === undefined) return undefined;
  if (Array.isArray(v)) {
    const kept = v.map(withoutEmpty).filter((x) => x !== undefined);
    return kept.length ? kept : undefined;
  }
  if (typeof v === 'object') {
    const kept = Object.entries(v as Json)
      .map(([k, x]) => [k, withoutEmpty(x)] as const)
      .filter(([, x]) => x !== undefined);
    return kept.length ? Object.fromEntries(kept) : undefined;
  }
  return v;
}

/** What a card's signature covers (see the top of this file), as a JSON value to canonicalise. */
export function cardSigningPayload(card: Json, version: A2aCardVersion): unknown {
  // The SDK reads the card as ProtoJSON (its JSON form, as served: the decoded form would lose securitySchemes).
  if (version === '1.0') return JSON.parse(canonicalizeAgentCard(card as never)) as unknown;
  const { signatures: _drop, ...unsigned } = card;
  return withoutEmpty(unsigned) ?? {};
}

/**
 * The card with `signatures: [{protected, signature}]`: a JWS (RFC 7515 JSON
 * form, detached payload) over the RFC 8785 canonical JSON of
 * `cardSigningPayload`. `jku` names where the key is published.
 */
export function signCard<T extends Json>(card: T, version: A2aCardVersion, signer: CardSigner, jku: string): T & { signatures: Array<{ protected: string; signature: string }> } {
  const { signatures: _drop, ...unsigned } = card;
  const [protectedHeader, , signature] = signer.sign(cardSigningPayload(unsigned, version), { jku }).split('.');
  return { ...(unsigned as T), signatures: [{ protected: protectedHeader as string, signature: signature as string }] };
}

/** The card a request asks for (version chosen, signed). Throws `invalid_request` for a version not served. */
export function presentCard(req: IncomingMessage, card: ParleyAgentCardJson, signer: CardSigner, baseUrl: string): Json {
  const version = requestedCardVersion(req);
  const body = version === '0.3' ? toV03Card(card) : (card as unknown as Json);
  return signCard(body, version, signer, `${baseUrl}/.well-known/jwks.json`);
}
