import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryBus, createSubjects } from '@parley/events';
import { createAgent, type Agent } from '@parley/agent-sdk';

// How an agent authenticates (draft-zhou §7, trust): its gateway API key as a bearer token when it
// registers, and the checks on its NATS connection options (TLS itself: tls.int.test.ts).
const bus = createMemoryBus({ subjects: createSubjects('sdk-conn') });
const agents: Agent[] = [];
const servers: Server[] = [];

afterEach(async () => {
  for (const a of agents.splice(0)) await a.close();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** A stand-in gateway: records each JSON-RPC call with its headers and answers it. */
async function fakeGateway(): Promise<{ url: string; calls: Array<{ method: string; headers: IncomingHttpHeaders }> }> {
  const calls: Array<{ method: string; headers: IncomingHttpHeaders }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const msg = JSON.parse(body) as { id: number; method: string };
      calls.push({ method: msg.method, headers: req.headers });
      const result = msg.method === 'publish_schema' ? { schema: { schema_id: 'echo_v1', version: 1 }, created: true, notes: [] } : { agent: {}, created: true };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const addr = server.address();
  return { url: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`, calls };
}

const template = { scenario: 'echo', version: 1, keys: [] } as never;

describe('agent SDK: credentials', () => {
  it('sends its API key as a bearer token on every registration call', async () => {
    const gw = await fakeGateway();
    const a = await createAgent({ name: 'keyed-agent', bus, prefix: 'sdk-conn', apiKey: 'pk_0123456789abcdef_secret-part' });
    agents.push(a);
    await a.register(gw.url, { scenarios: ['echo'] }, [{ template }]);
    expect(gw.calls.map((c) => c.method)).toEqual(['register_agent', 'publish_schema']);
    for (const c of gw.calls) expect(c.headers.authorization).toBe('Bearer pk_0123456789abcdef_secret-part');
  });

  it('sends no Authorization header without an API key', async () => {
    const gw = await fakeGateway();
    const a = await createAgent({ name: 'anonymous-agent', bus, prefix: 'sdk-conn' });
    agents.push(a);
    await a.register(gw.url, { scenarios: ['echo'] }, []);
    expect(gw.calls).toHaveLength(1);
    expect(gw.calls[0]!.headers.authorization).toBeUndefined();
  });

  it('refuses an API key that cannot be a header value', async () => {
    for (const apiKey of ['', 'two words', 'line\nbreak', 'clé']) {
      await expect(createAgent({ name: 'bad-key-agent', bus, apiKey }), JSON.stringify(apiKey)).rejects.toThrow(/apiKey/);
    }
  });

  it('needs a NATS server or a bus, and NATS credentials in pairs, before connecting', async () => {
    await expect(createAgent({ name: 'lost-agent' })).rejects.toThrow(/natsUrl \(or nats\.servers\) or bus/);
    await expect(createAgent({ name: 'lost-agent', nats: { tls: { ca: 'x' } } })).rejects.toThrow(/natsUrl \(or nats\.servers\) or bus/);
    await expect(createAgent({ name: 'half-agent', nats: { servers: 'tls://127.0.0.1:1', user: 'agents' } })).rejects.toThrow(/nats\.pass is required when nats\.user is set/);
    await expect(createAgent({ name: 'half-agent', natsUrl: 'nats://127.0.0.1:1', nats: { pass: 'secret' } })).rejects.toThrow(/nats\.user is required when nats\.pass is set/);
  });

  it('keeps the in-process bus when given one, whatever the NATS options say', async () => {
    const a = await createAgent({ name: 'bus-agent', bus, prefix: 'sdk-conn', nats: { servers: 'tls://127.0.0.1:1', user: 'u', pass: 'p' } });
    agents.push(a);
    await a.serve('echo', (payload) => ({ payload }));
  });
});
