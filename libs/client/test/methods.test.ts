/**
 * The client's typed methods come from the gateway's JSON-RPC method table
 * (libs/protocol/src/rpc-methods.ts) through the generated methods.gen.ts: the
 * generated files are current (regenerate with `npm run gen:rpc`), every
 * documented method is a client method that sends that method with the params
 * given, and the types follow the table (checked by tsc on this file).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RPC_METHODS, SHARED_SCHEMAS } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_FILE, WIRE_FILE, camel, protoImage, renderClientTypes, renderWireModule, wireSchemas, type TableMethod } from '../../../scripts/gen-rpc';
import { RPC_CLIENT_METHODS, createParleyClient, type ParleyClient, type rpc } from '../src/index';

describe('generated from the method table', () => {
  const wire = wireSchemas(protoImage());

  it('rpc-wire.gen.ts is current with proto/parley/v1 (else run `npm run gen:rpc`)', () => {
    expect(readFileSync(WIRE_FILE, 'utf8') === renderWireModule(wire), 'libs/protocol/src/rpc-wire.gen.ts is stale: run `npm run gen:rpc`').toBe(true);
  });

  it('methods.gen.ts is current with the table (else run `npm run gen:rpc`)', () => {
    const text = renderClientTypes(RPC_METHODS as unknown as TableMethod[], SHARED_SCHEMAS as never, wire);
    expect(readFileSync(CLIENT_FILE, 'utf8') === text, 'libs/client/src/methods.gen.ts is stale: run `npm run gen:rpc`').toBe(true);
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
