/**
 * The console's one way to Parley: JSON-RPC 2.0 at the gateway's /rpc, with the
 * operator's credential (an API key or a JWT) as `Authorization: Bearer`. The
 * credential lives in sessionStorage: gone when the tab closes.
 */
const STORAGE_KEY = 'parley.console.credential';

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly type: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export function credential(): string | null {
  return sessionStorage.getItem(STORAGE_KEY);
}

export function signIn(value: string): void {
  sessionStorage.setItem(STORAGE_KEY, value.trim());
}

export function signOut(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

let nextId = 1;

export async function call<T = unknown>(method: string, params: Record<string, unknown> = {}): Promise<T> {
  const cred = credential();
  const res = await fetch('/rpc', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cred ? { authorization: `Bearer ${cred}` } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  });
  const body = (await res.json().catch(() => null)) as { result?: T; error?: { code: number; message: string; data?: { type?: string } } } | null;
  if (!body) throw new RpcError(-32603, `HTTP ${res.status}`, 'internal', res.status);
  if (body.error) throw new RpcError(body.error.code, body.error.message, body.error.data?.type ?? 'internal', res.status);
  return body.result as T;
}

/** Whether the gateway knows a method: a call with no params answers method_not_found only when it does not. */
export async function hasMethod(method: string): Promise<boolean> {
  try {
    await call(method, {});
    return true;
  } catch (e) {
    return !(e instanceof RpcError && e.type === 'method_not_found');
  }
}
