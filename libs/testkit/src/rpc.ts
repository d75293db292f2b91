/** Raw JSON-RPC over HTTP for tests: returns status and the parsed body untouched. */
export interface RawResponse {
  status: number;
  text: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export async function postRaw(url: string, body: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  const res = await fetch(`${url}/rpc`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, text, body: parsed };
}

let id = 0;
export async function rpc(url: string, method: string, params?: unknown): Promise<RawResponse> {
  return postRaw(url, JSON.stringify({ jsonrpc: '2.0', id: ++id, method, ...(params === undefined ? {} : { params }) }));
}

/** The Figure 8 payload of draft-zhou Appendix A.2. */
export const FIGURE_8 = {
  schema_id: 'flight_booking_v1',
  payload: {
    origin: 'PEK',
    destination: 'SHA',
    departure_date: '2026-05-04',
    cabin_class: 'business',
    passenger_count: 1,
    other: 'window seat',
  },
} as const;

export async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 20_000, everyMs = 100): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < until) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}
