/** Raw JSON-RPC over HTTP for tests: returns status and the parsed body untouched. */
export interface RawResponse {
  status: number;
  text: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** The credential `rpc`/`postRaw` send to each gateway URL unless told otherwise (draft-zhou §7: every call is authenticated). */
const keys = new Map<string, string>();

/** Makes `key` the default `Authorization: Bearer` credential of requests to the gateway at `url`. */
export function useKey(url: string, key: string): void {
  keys.set(url, key);
}

export async function postRaw(url: string, body: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  const key = keys.get(url);
  const auth: Record<string, string> = key !== undefined ? { authorization: `Bearer ${key}` } : {};
  const res = await fetch(`${url}/rpc`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth, ...headers }, body });
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
/** One JSON-RPC call; `key` overrides the URL's default credential (`null`: send none). */
export async function rpc(url: string, method: string, params?: unknown, key?: string | null): Promise<RawResponse> {
  const headers: Record<string, string> = key === undefined ? {} : key === null ? { authorization: '' } : { authorization: `Bearer ${key}` };
  return postRaw(url, JSON.stringify({ jsonrpc: '2.0', id: ++id, method, ...(params === undefined ? {} : { params }) }), headers);
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
