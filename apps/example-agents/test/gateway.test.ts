import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ParleyError } from '@parley/protocol';
import { createGatewayRpc } from '../src/an/gateway';

// The example agents' gateway calls go through the client SDK's JSON-RPC call: what they send and the typed errors they get.
describe('example agents: gateway JSON-RPC', () => {
  let server: Server;
  let base: string;
  const seen: { auth: string | undefined; body: { jsonrpc: string; id: number; method: string; params: unknown } }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      req.on('end', () => {
        const body = JSON.parse(raw) as (typeof seen)[number]['body'];
        seen.push({ auth: req.headers.authorization, body });
        if (body.method === 'broken') return void res.writeHead(502).end('<html>bad gateway</html>');
        if (body.method === 'task_cancel') {
          const data = { type: 'task_not_found', message: 'no task t-1', path: 'params.task_id', rule: 'exists' };
          return void res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, error: { code: -32004, message: data.message, data } }));
        }
        res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { profiles: [{ name: 'ip-agent' }] } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('posts JSON-RPC 2.0 with the API key as a bearer token, numbering the calls, and returns the result', async () => {
    const rpc = createGatewayRpc(base, { apiKey: 'pk_test' });
    expect(await rpc.call('discover_profiles', { skill: 'diagnosis' })).toEqual({ profiles: [{ name: 'ip-agent' }] });
    await rpc.call('discover_profiles', {});
    expect(seen.slice(-2).map((s) => [s.auth, s.body.jsonrpc, s.body.id, s.body.method])).toEqual([
      ['Bearer pk_test', '2.0', 1, 'discover_profiles'],
      ['Bearer pk_test', '2.0', 2, 'discover_profiles'],
    ]);
    expect(seen.at(-2)!.body.params).toEqual({ skill: 'diagnosis' });
    await createGatewayRpc(base).call('discover_profiles', {});
    expect(seen.at(-1)!.auth).toBeUndefined();
  });

  it('turns a JSON-RPC error into the ParleyError it serialises, a 5xx without one into unavailable, no answer into unavailable', async () => {
    const rpc = createGatewayRpc(base);
    const err = await rpc.call('task_cancel', { task_id: 't-1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParleyError);
    expect(err).toMatchObject({ type: 'task_not_found', path: 'params.task_id', rule: 'exists' });
    // A 5xx without a JSON-RPC error is the gateway (or what stands before it) unavailable, with its status.
    await expect(rpc.call('broken', {})).rejects.toMatchObject({ type: 'unavailable', message: expect.stringContaining('502') });
    await expect(createGatewayRpc('http://127.0.0.1:1', { timeoutMs: 2000 }).call('discover_profiles', {})).rejects.toMatchObject({ type: 'unavailable' });
  });
});
