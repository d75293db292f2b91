import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  type ConsumerConfig,
  type ConsumerInfo,
  type SeqMsgRequest,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { filterCovers } from './match';
import type { NatsCtx } from './nats-context';

// Durable JetStream consumers of the NATS adapter: their filters and their creation or update.

export type ServerFilter = Pick<ConsumerConfig, 'filter_subject' | 'filter_subjects'>;

/**
 * One filter goes to the server as filter_subject; several as filter_subjects
 * when the server has it (2.10+). Otherwise the server gets the narrowest one
 * subject covering them all (coverOf: `p.v1.*.pool.matured` and `p.v1.*.pool.grown`
 * give `p.v1.*.pool.*`), so the consumer is not sent the events no filter wants
 * (every execute's own), and the bus acks what the cover lets through but no filter
 * matches, without calling the handler.
 */
export function planFilters(x: Pick<NatsCtx, 'multiFilter'>, filters: string[]): { server: ServerFilter; client?: string[] } {
  if (filters.length === 0) return { server: { filter_subject: undefined, filter_subjects: undefined } };
  if (filters.length === 1) return { server: { filter_subject: filters[0], filter_subjects: undefined } };
  if (x.multiFilter) return { server: { filter_subject: undefined, filter_subjects: filters } };
  return { server: { filter_subject: coverOf(filters), filter_subjects: undefined }, client: filters };
}

/**
 * The narrowest single NATS subject filter that matches every subject any of `filters` matches, or undefined
 * when only the whole stream does. Filters of one length without `>`: each token kept where all agree, `*`
 * where they differ. Otherwise the tokens they share from the start, short of the shortest filter's last, then `>`.
 */
export function coverOf(filters: readonly string[]): string | undefined {
  const split = filters.map((f) => f.split('.'));
  const first = split[0];
  if (!first) return undefined;
  const sameLength = split.every((t) => t.length === first.length);
  if (sameLength && !split.some((t) => t.includes('>'))) {
    const cover = first.map((tok, i) => (split.every((t) => t[i] === tok) ? tok : '*'));
    return cover.every((t) => t === '*') ? undefined : cover.join('.');
  }
  const shortest = Math.min(...split.map((t) => t.length));
  const prefix: string[] = [];
  for (let i = 0; i < shortest - 1; i++) {
    const tok = first[i] as string;
    if (tok === '>' || !split.every((t) => t[i] === tok)) break;
    prefix.push(tok);
  }
  return prefix.length === 0 || prefix.every((t) => t === '*') ? undefined : `${prefix.join('.')}.>`;
}

/**
 * Creates the durable, or brings its filter and limits up to date keeping its position. It is never deleted
 * for the events it holds in flight: replicas share a durable, and one that looks idle to the server (between
 * pulls, reconnecting) may still be working on them. Events a process died holding come back after ack_wait.
 */
export async function ensureConsumer(
  x: NatsCtx,
  durable: string,
  filter: ServerFilter,
  maxAckPending = x.maxAckPending,
  clientFilters?: readonly string[],
): Promise<void> {
  const cfg: Partial<ConsumerConfig> = {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(x.ackWaitMs),
    max_ack_pending: maxAckPending,
    // Never give up on an event: a handler that keeps failing holds its consumer back, visibly, instead of losing data.
    max_deliver: -1,
    ...filter,
  };
  let existing: ConsumerInfo | undefined;
  try {
    existing = await x.jsm.consumers.info(x.subjects.stream, durable);
  } catch (err) {
    if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.ConsumerNotFound)) throw err;
  }
  // Servers before 2.10 accept a filter change but go on delivering by the old filter.
  // A consumer that filters on the client side (clientFilters) can keep a durable whose server filter is wider
  // than the one it would ask for: re-creating it would restart the pulls of replicas of an earlier release that
  // asked for another one, and they would re-create it back, each time.
  // So a deployment upgraded in place keeps its durables' filters; new durables get the narrow one.
  if (existing && clientFilters !== undefined && !sameFilter(existing.config, filter) && serverCovers(existing.config, clientFilters)) {
    await x.jsm.consumers.update(x.subjects.stream, durable, { ack_wait: cfg.ack_wait, max_ack_pending: maxAckPending });
    return;
  }
  const refilter = existing !== undefined && !x.multiFilter && !sameFilter(existing.config, filter);
  if (existing && refilter) {
    const from = existing.ack_floor.stream_seq + 1;
    x.log.warn('re-creating durable consumer with its new filter', { durable, from_seq: from, in_flight: existing.num_ack_pending });
    await x.jsm.consumers.delete(x.subjects.stream, durable);
    await x.jsm.consumers.add(x.subjects.stream, { ...cfg, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: from });
    return;
  }
  // A new durable that filters on the client side starts at the first message any of its filters wants (firstWantedSeq).
  const start = existing === undefined && clientFilters !== undefined ? await firstWantedSeq(x, clientFilters) : undefined;
  try {
    await x.jsm.consumers.add(x.subjects.stream, start === undefined ? cfg : { ...cfg, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: start });
  } catch (err) {
    if (!(err instanceof JetStreamApiError)) throw err;
    // The durable exists with another filter or limits (a new release): update it in place, keeping its position.
    await x.jsm.consumers.update(x.subjects.stream, durable, { ack_wait: cfg.ack_wait, max_ack_pending: maxAckPending, ...filter });
  }
}

/**
 * Where a new durable whose server filter is a cover (servers before 2.10) may start without missing an event
 * it wants: the lowest stream seq any of `filters` matches (the server finds it, `next_by_subj`), and at most
 * the stream's last seq + 1, read before the lookups, so an event stored while they run is not skipped either.
 * Every message before it matches no filter and would be acked unhandled: a durable reading a stream of
 * executions for its rare patch events skips the executions stored before the first one. Only for a durable
 * that does not exist (nothing acknowledged to keep). Undefined (start at the stream's first message) when a
 * lookup fails.
 */
export async function firstWantedSeq(x: Pick<NatsCtx, 'jsm' | 'subjects' | 'log'>, filters: readonly string[]): Promise<number | undefined> {
  try {
    const { state } = await x.jsm.streams.info(x.subjects.stream);
    let start = state.last_seq + 1;
    for (const f of filters) {
      // STREAM.MSG.GET takes `next_by_subj` (server 2.9+; the client sends the request as given, its type lacks the
      // member): the first message at or after `seq` on a subject `f` matches. A server that ignored it would answer
      // the message at `seq`, the stream's first: a start that misses nothing.
      const m = await x.jsm.streams.getMessage(x.subjects.stream, { seq: state.first_seq, next_by_subj: f } as SeqMsgRequest);
      if (m && m.seq < start) start = m.seq;
    }
    return start;
  } catch (err) {
    x.log.warn('could not find the first event a new durable wants: it starts at the stream start', { stream: x.subjects.stream, error: err instanceof Error ? err.message : String(err) });
    return undefined;
  }
}

/** Whether a durable's server filter lets through every subject the client filters match (none = the whole stream). */
function serverCovers(have: Partial<ConsumerConfig>, client: readonly string[]): boolean {
  const server = [...(have.filter_subjects ?? []), ...(have.filter_subject ? [have.filter_subject] : [])];
  if (server.length === 0) return true;
  return client.every((c) => server.some((s) => filterCovers(s, c)));
}

function sameFilter(have: Partial<ConsumerConfig>, want: ServerFilter): boolean {
  const norm = (c: Pick<ConsumerConfig, 'filter_subject' | 'filter_subjects'>) =>
    [...(c.filter_subjects ?? []), ...(c.filter_subject ? [c.filter_subject] : [])].filter((f) => f !== '>').sort().join(' ');
  return norm(have) === norm(want);
}
