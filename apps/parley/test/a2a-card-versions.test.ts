import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role, type Message, type Part } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { isLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { verifyDetached, type Jwks } from '@parley/protocol';
import { createLogger } from '@parley/runtime';
import { FIGURE_8, useKey } from '@parley/testkit';
import { cardSigningPayload, type A2aCardVersion } from '@parley/gateway';
import { startParley, type EmbeddedParley } from '../src/embedded';

// A2A card versions on `npm start` (apps/gateway/src/a2a-card-versions.ts): the default card is v1.0 for
// @a2a-js/sdk's v1.0 client; a v0.3 client asks for `?version=0.3` and talks the v0.3 wire
// (message/send) through the SDK's v0.3 compat layer; both cards verify against the gateway's JWKS.

let parley: EmbeddedParley;

beforeAll(async () => {
  parley = await startParley({ port: 0, log: createLogger({ level: 'silent' }) });
  useKey(parley.url, parley.devKey);
});

afterAll(async () => {
  await parley?.stop();
});

const authorized: typeof fetch = (input, init) => fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), authorization: `Bearer ${parley.devKey}` } });

function dataPart(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

/** The card's signature against the gateway's JWKS (Parley's check; what it covers: cardSigningPayload). */
async function verifies(card: Record<string, unknown>, version: A2aCardVersion): Promise<boolean> {
  const jwks = (await (await fetch(`${parley.url}/.well-known/jwks.json`)).json()) as Jwks;
  const { signatures } = card as { signatures: Array<{ protected: string; signature: string }> };
  return verifyDetached(cardSigningPayload(card, version), `${signatures[0]?.protected}..${signatures[0]?.signature}`, jwks).ok;
}

describe('A2A card versions on npm start', () => {
  it('serves the signed v1.0 card by default, with no v0.3 top-level fields', async () => {
    const card = (await (await fetch(`${parley.url}/a2a/skyways-air/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    for (const legacy of ['url', 'protocolVersion', 'preferredTransport']) expect(card).not.toHaveProperty(legacy);
    expect(isLegacyAgentCard(card)).toBe(false);
    expect(await verifies(card, '1.0')).toBe(true);
  });

  it('a v0.3 client reads the ?version=0.3 card and executes over message/send', async () => {
    const raw = (await (await fetch(`${parley.url}/a2a/skyways-air/.well-known/agent-card.json?version=0.3`)).json()) as Record<string, unknown>;
    expect(raw).toMatchObject({ protocolVersion: '0.3.0', url: `${parley.url}/a2a/skyways-air`, preferredTransport: 'JSONRPC' });
    expect(await verifies(raw, '0.3')).toBe(true);

    const legacy = { legacyCompat: { enabled: true } };
    const methods: string[] = [];
    const recording: typeof fetch = (input, init) => {
      if (typeof init?.body === 'string') methods.push((JSON.parse(init.body) as { method: string }).method);
      return authorized(input, init);
    };
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl: recording, ...legacy })],
        cardResolver: new DefaultAgentCardResolver(legacy),
      }),
    );
    const client = await factory.createFromUrl(`${parley.url}/a2a/skyways-air/`, '.well-known/agent-card.json?version=0.3');
    const message: Message = { messageId: crypto.randomUUID(), contextId: '', taskId: '', role: Role.ROLE_USER, parts: [dataPart({ scenario: 'flight_booking', payload: FIGURE_8.payload })], metadata: undefined, extensions: [], referenceTaskIds: [] };
    const reply = (await client.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined })) as Message;
    expect(reply.role).toBe(Role.ROLE_AGENT);
    const part = reply.parts[0]?.content as { $case: string; value: Record<string, unknown> };
    expect(part.$case).toBe('data');
    expect(part.value.status).toBe('confirmed');
    expect(methods).toEqual(['message/send']);
  });
});
