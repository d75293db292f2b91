/**
 * What the LLM adapters' tests share beyond the stub chat server of libs/testkit.
 */
import type { ChatBody } from '@parley/testkit';

export { answer, completion, freePort, startChatServer, type ChatBody, type ChatServer, type Handler, type Received, type Reply } from '@parley/testkit';

/** The JSON array of fragments quoted on the last line of the intent-induction user message. */
export function promptFragments(body: ChatBody): { text: string; count: number }[] {
  const user = body.messages.find((m) => m.role === 'user');
  if (!user) throw new Error('no user message');
  const lines = user.content.split('\n');
  return JSON.parse(lines[lines.length - 1] as string) as { text: string; count: number }[];
}

/** The ParleyError a promise or function throws (fails the test when nothing is thrown). */
export async function catchError<E extends Error>(p: Promise<unknown> | (() => unknown), cls: new (...a: never[]) => E): Promise<E> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    if (e instanceof cls) return e;
    throw e;
  }
  throw new Error(`expected a ${cls.name}, nothing was thrown`);
}
