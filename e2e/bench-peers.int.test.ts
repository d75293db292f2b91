/**
 * The peers `npm run bench` measures Parley against (bench/peers) do the work they stand for: each validates
 * the flight_booking_v1 payload and runs the example agent's bookFlight, so a figure beside Parley's execute
 * compares like with like (draft-zhou §5.1's booking, Figure 8 in, Figure 9 out).
 */
import { freePort, startProcess, waitReady, type ServiceProcess } from '@parley/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const FIGURE_8 = { origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04', cabin_class: 'business', passenger_count: 1, other: 'window seat' };

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Record<string, any>> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, any>;
}

describe('bench/peers', () => {
  const procs: ServiceProcess[] = [];
  let floor = '';
  let mcp = '';
  beforeAll(async () => {
    const [fp, mp] = await Promise.all([freePort(), freePort()]);
    procs.push(startProcess('floor', 'bench/peers/floor.ts', { PORT: `${fp}` }), startProcess('mcp-peer', 'bench/peers/mcp-peer.ts', { PORT: `${mp}` }));
    floor = `http://127.0.0.1:${fp}`;
    mcp = `http://127.0.0.1:${mp}`;
    await Promise.all([waitReady(`${floor}/healthz`, procs[0]!), waitReady(`${mcp}/healthz`, procs[1]!)]);
  });
  afterAll(async () => {
    for (const p of procs) await p.stop();
  });

  it('the floor books Figure 8 (window seat: row letter A) and refuses a payload without its required keys', async () => {
    const ok = await post(`${floor}/rpc`, { jsonrpc: '2.0', id: 1, method: 'execute', params: { payload: FIGURE_8 } });
    expect(ok.result.result.status).toBe('confirmed');
    expect(ok.result.result.seat).toMatch(/A$/);
    const bad = await post(`${floor}/rpc`, { jsonrpc: '2.0', id: 2, method: 'execute', params: { payload: { origin: 'PEK' } } });
    expect(bad.error.code).toBe(-32602);
  });

  it('the MCP SDK peer books Figure 8 through tools/call and answers a tool error for a payload without its required keys', async () => {
    const accept = { accept: 'application/json, text/event-stream' };
    const ok = await post(`${mcp}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'bookFlight', arguments: FIGURE_8 } }, accept);
    expect(ok.result.isError).toBeFalsy();
    expect(ok.result.structuredContent.status).toBe('confirmed');
    expect(ok.result.structuredContent.seat).toMatch(/A$/);
    const bad = await post(`${mcp}/mcp`, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'bookFlight', arguments: { origin: 'PEK' } } }, accept);
    expect(bad.result?.isError === true || bad.error !== undefined).toBe(true);
  });
});
