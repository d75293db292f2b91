import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role, type Message, type Part } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { createLogger } from '@parley/runtime';
import { FIGURE_8, useKey } from '@parley/testkit';
import { startParley, type EmbeddedParley } from '../src/embedded';

// Parley's A2A face (apps/gateway/src/a2a.ts) through @a2a-js/sdk 1.3.0's client (A2A v1.0),
// plus the v0.3 `message/send` wire by hand.
const EXTENSION = 'https://parley.dev/a2a/ext/schema-negotiation/v1';

/** The A2A SDK's client, sending the development key (draft-zhou §7: A2A calls are authenticated; cards are public). */
const factory = () =>
  new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [
        new JsonRpcTransportFactory({
          fetchImpl: (input, init) => fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), authorization: `Bearer ${parley.devKey}` } }),
        }),
      ],
    }),
  );

let parley: EmbeddedParley;

beforeAll(async () => {
  parley = await startParley({ port: 0, log: createLogger({ level: 'silent' }) });
  useKey(parley.url, parley.devKey);
});

afterAll(async () => {
  await parley?.stop();
});

const countExecutions = async () => Number((await parley.db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution.executions')).rows[0]?.n);

function dataPart(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

function userMessage(parts: Part[], metadata?: Record<string, unknown>): Message {
  return { messageId: crypto.randomUUID(), contextId: '', taskId: '', role: Role.ROLE_USER, parts, metadata, extensions: [], referenceTaskIds: [] };
}

const send = (message: Message) => ({ tenant: '', message, configuration: undefined, metadata: undefined });

/** The data of a reply Message's single data part. */
function replyData(r: unknown): Record<string, unknown> {
  const m = r as Message;
  expect(m.role).toBe(Role.ROLE_AGENT);
  const part = m.parts[0];
  expect(part?.content?.$case).toBe('data');
  return (part?.content as { value: Record<string, unknown> }).value;
}

const rawRpc = async (path: string, body: unknown) => {
  const r = await fetch(`${parley.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${parley.devKey}` }, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as { result?: Record<string, unknown>; error?: { code: number; message: string; data: Record<string, unknown> } } };
};

describe('A2A agent cards', () => {
  it("serves the gateway's card with every scenario as a skill and the schema-negotiation extension", async () => {
    const card = await new DefaultAgentCardResolver().resolve(parley.url);
    expect(card.name).toBe('Parley');
    expect(card.supportedInterfaces[0]).toMatchObject({ url: `${parley.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
    expect(card.skills.map((s) => s.id).sort()).toEqual(['an-cross-domain-fault__fault_management', 'pixel-studio__photo_retouch', 'skyways-air__flight_booking']);
    const ext = card.capabilities?.extensions.find((e) => e.uri === EXTENSION);
    expect(ext?.params?.schema_ids).toEqual(expect.arrayContaining(['flight_booking_v1', 'photo_retouch_v2', 'fault_management_v1']));
    expect(card.capabilities?.streaming).toBe(false);
  });

  it("serves an agent's card at /a2a/<agent>/.well-known/agent-card.json with its own skills", async () => {
    const client = await factory().createFromUrl(`${parley.url}/a2a/skyways-air/`);
    const card = await client.getAgentCard();
    expect(card.name).toBe('skyways-air');
    expect(card.description).toMatch(/^Book a flight/);
    expect(card.skills.map((s) => s.id)).toEqual(['skyways-air__flight_booking']);
    expect(card.skills[0]?.tags).toEqual(expect.arrayContaining(['travel', 'flight_booking']));
    expect(card.supportedInterfaces[0]?.url).toBe(`${parley.url}/a2a/skyways-air`);
  });

  it('answers 404 for an unknown agent', async () => {
    const card = await fetch(`${parley.url}/a2a/nobody/.well-known/agent-card.json`);
    expect(card.status).toBe(404);
    const r = await rawRpc('/a2a/nobody', { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} });
    expect(r.status).toBe(404);
    expect(r.body.error?.code).toBe(-32022);
    expect(r.body.error?.data.type).toBe('agent_not_found');
  });
});

describe('A2A SendMessage (v1.0) executes a scenario', () => {
  it("runs flight_booking from a data part {scenario, payload} and replies with Figure 9's shape", async () => {
    const before = await countExecutions();
    const client = await factory().createFromUrl(`${parley.url}/a2a/skyways-air/`);
    const reply = await client.sendMessage(send(userMessage([dataPart({ scenario: 'flight_booking', payload: FIGURE_8.payload })])));
    const data = replyData(reply);
    expect(data.status).toBe('confirmed');
    expect(data.seat).toMatch(/A$/);
    expect((reply as Message).metadata).toMatchObject({ agent: 'skyways-air', schema_id: 'flight_booking_v1', scenario_id: 'flight_booking' });
    expect(await countExecutions()).toBe(before + 1);
  });

  it('takes the payload itself as the data part with the scenario in metadata, at the gateway endpoint', async () => {
    const client = await factory().createFromUrl(parley.url);
    const reply = await client.sendMessage(send(userMessage([dataPart(FIGURE_8.payload)], { scenario: 'Flight Booking', requireOutput: ['booking_id', 'status'] })));
    const data = replyData(reply);
    expect(Object.keys(data)).toEqual(['booking_id', 'status']);
    expect(data.status).toBe('confirmed');
  });

  it("a bad payload's error names the key path and rule, and nothing executes", async () => {
    const before = await countExecutions();
    const client = await factory().createFromUrl(`${parley.url}/a2a/skyways-air/`);
    const e = (await client
      .sendMessage(send(userMessage([dataPart({ schema_id: 'flight_booking_v1', payload: { ...FIGURE_8.payload, passenger_count: 12 } })])))
      .catch((x: unknown) => x)) as Error & { envelopeCode?: number; data?: Record<string, unknown> };
    expect(e).toBeInstanceOf(Error);
    expect(e.message).toContain('payload_invalid (at payload.passenger_count, rule maximum)');
    expect(e.envelopeCode).toBe(-32011);
    expect(e.data).toMatchObject({ type: 'payload_invalid', path: 'payload.passenger_count', rule: 'maximum' });
    expect(await countExecutions()).toBe(before);
  });

  it('names what is missing when the message has no data part or no scenario', async () => {
    const text: Part = { content: { $case: 'text', value: 'book me a flight' }, metadata: undefined, filename: '', mediaType: 'text/plain' };
    const client = await factory().createFromUrl(parley.url);
    const noData = (await client.sendMessage(send(userMessage([text]))).catch((x: unknown) => x)) as Error;
    expect(noData.message).toContain('at params.message.parts, rule data_part');
    const noScenario = (await client.sendMessage(send(userMessage([dataPart({ payload: FIGURE_8.payload })]))).catch((x: unknown) => x)) as Error;
    expect(noScenario.message).toContain('at params.message.parts[0].data.scenario, rule required');
  });
});

describe('A2A message/send (v0.3) and the methods Parley does not offer', () => {
  it('runs a v0.3 message with a {kind: "data"} part and replies in v0.3 shape', async () => {
    const r = await rawRpc('/a2a/skyways-air', {
      jsonrpc: '2.0',
      id: 'a',
      method: 'message/send',
      params: { message: { kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'data', data: { scenario: 'flight_booking', payload: FIGURE_8.payload } }] } },
    });
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({ kind: 'message', role: 'agent', parts: [{ kind: 'data', data: { status: 'confirmed' } }] });
  });

  it('a v0.3 validation error is a JSON-RPC error naming the key', async () => {
    const r = await rawRpc('/a2a', {
      jsonrpc: '2.0',
      id: 2,
      method: 'message/send',
      params: { message: { kind: 'message', messageId: 'm-2', role: 'user', parts: [{ kind: 'data', data: { origin: 'PEK', destination: 'SHA' } }], metadata: { scenario: 'flight_booking' } } },
    });
    expect(r.body.error?.code).toBe(-32011);
    expect(r.body.error?.message).toContain('at payload.departure_date, rule required');
  });

  it('answers streaming with UnsupportedOperationError and task methods with TaskNotFoundError', async () => {
    const stream = await rawRpc('/a2a/skyways-air', { jsonrpc: '2.0', id: 3, method: 'message/stream', params: {} });
    expect(stream.body.error?.code).toBe(-32004);
    const task = await rawRpc('/a2a/skyways-air', { jsonrpc: '2.0', id: 4, method: 'GetTask', params: { id: 't-1' } });
    expect(task.body.error?.code).toBe(-32001);
    const unknown = await rawRpc('/a2a', { jsonrpc: '2.0', id: 5, method: 'tasks/fly', params: {} });
    expect(unknown.body.error?.code).toBe(-32601);
  });
});
