/**
 * The client's typed methods come from the gateway's JSON-RPC method table
 * (libs/protocol/src/rpc-methods.ts) through the generated methods.gen.ts: the
 * generated files are current (regenerate with `npm run gen:rpc`), every
 * documented method is a client method that sends that method with the params
 * given, and the types follow the table (checked by tsc on this file).
 */
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { RPC_METHODS } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RPC_CLIENT_METHODS, createParleyClient, type ParleyClient, type rpc } from '../src/index';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const camel = (method: string) => method.replace(/[._]([a-z])/g, (_m, c: string) => c.toUpperCase());

describe('generated from the method table', () => {
  it('rpc-wire.gen.ts and methods.gen.ts are current with proto/ and the table (else run `npm run gen:rpc`)', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/gen-rpc.ts', '--check'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, `${r.stderr}${r.stdout}`).toBe(0);
    expect(r.stdout).toContain('current');
  });

  it('names one client method per documented method', () => {
    expect(Object.values(RPC_CLIENT_METHODS).sort()).toEqual(RPC_METHODS.map((m) => m.name).sort());
    for (const m of RPC_METHODS) expect((RPC_CLIENT_METHODS as Record<string, string>)[camel(m.name)]).toBe(m.name);
  });
});

describe('the typed methods on the wire', () => {
  let server: Server;
  let client: ParleyClient;
  const seen: Array<{ method: string; params: unknown }> = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const msg = JSON.parse(body) as { id: number; method: string; params: unknown };
        seen.push({ method: msg.method, params: msg.params });
        res.setHeader('content-type', 'application/json');
        const result = msg.method === 'get_patch' ? { patch: { patch_id: 'p1', status: 'active' } } : msg.method === 'rpc.discover' ? { openrpc: '1.3.2', methods: [] } : { echoed: msg.method };
        res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    client = createParleyClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  // The client's own methods (etags, signatures) call more than one method; the rest send exactly theirs.
  const own = new Set(['getSchemaTemplate', 'getSchemaTemplateSigned', 'getSchemaUpdates', 'execute']);

  it.each(Object.entries(RPC_CLIENT_METHODS).filter(([fn]) => !own.has(fn)))('%s sends %s with the params given', async (fn, method) => {
    const f = (client as unknown as Record<string, (p?: object) => Promise<unknown>>)[fn];
    expect(typeof f, `client.${fn}`).toBe('function');
    seen.length = 0;
    await f?.({ probe: fn });
    expect(seen).toEqual([{ method, params: { probe: fn } }]);
  });

  it('the client-own methods exist too', () => {
    for (const fn of own) expect(typeof (client as unknown as Record<string, unknown>)[fn]).toBe('function');
  });

  it('types params and results from the table (tsc checks this body)', async () => {
    const r: rpc.GetPatchResult = await client.getPatch({ patch_id: 'p1' });
    const status: string | undefined = r.patch?.status;
    expect(status).toBe('active');
    // A typed call by name gives the same types; a misspelt member would not compile.
    const again: rpc.GetPatchResult = await client.call('get_patch', { patch_id: 'p1' });
    expect(again.patch?.patch_id).toBe('p1');
    const doc = await client.discover();
    expect(doc.openrpc).toBe('1.3.2');
    // @ts-expect-error — a required param missing is a type error.
    await client.getPatch({});
    // @ts-expect-error — an undocumented member is a type error.
    await client.listClusters({ scenario: 'flight_booking', nope: 1 });
  });
});
