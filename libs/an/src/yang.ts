/**
 * RFC 7951 JSON instance data of libs/an/yang/parley-an-agent@2026-11-21.yang
 * (the corrected module of AN draft 004 Appendix A) for Parley's model: the
 * draft's member names (`task-sendFrom`, `dataType`, `jwtInfo`, …) come back,
 * top-level members are module-qualified, empty lists and leaf-lists are
 * left out, and 64-bit integers are strings (RFC 7951 §6.1).
 */
import type { AgentProfile, ContextMessage, DataParam, NegotiationType, Task, TaskNotification } from './model';
import type { NegotiateParams } from './task-params';

/** The module the instance data belongs to. */
export const YANG_MODULE = 'parley-an-agent';
export const YANG_REVISION = '2026-11-21';

const q = (name: string): string => `${YANG_MODULE}:${name}`;

type Json = Record<string, unknown>;

/** Sets `o[k] = v` unless v is undefined or an empty array. */
function set(o: Json, k: string, v: unknown): void {
  if (v === undefined) return;
  if (Array.isArray(v) && v.length === 0) return;
  o[k] = v;
}

/** `{ "parley-an-agent:agent": { … } }`: a profile as the read-only `agent` container (5.1). */
export function profileToYangJson(p: AgentProfile): object {
  const agent: Json = { name: p.name };
  set(agent, 'alias', p.alias);
  agent.description = p.description;
  set(agent, 'type', p.type);
  if (p.skills.length > 0) {
    agent.skills = {
      skill: p.skills.map((s) => {
        const o: Json = { 'skill-name': s.name, 'skill-description': s.description };
        set(o, 'skill-tags', [...s.tags]);
        set(o, 'input-modes', [...s.input_modes]);
        set(o, 'output-modes', [...s.output_modes]);
        return o;
      }),
    };
  }
  agent.version = p.version;
  agent.provider = p.provider;
  set(agent, 'domain', p.domain);
  const capability: Json = { streaming: p.capability.streaming, 'push-notifications': p.capability.push_notifications };
  set(capability, 'negotiate', [...p.capability.negotiate]);
  agent.capability = capability;
  set(agent, 'management-object', p.management_object);
  if (p.authentication.length > 0) {
    agent.authentication = {
      'authentication-methods': p.authentication.map((m) => {
        const o: Json = { 'accessinfo-id': m.id, scheme: m.scheme };
        set(o, 'jwtInfo', m.jwt_info);
        set(o, 'oauth', m.oauth);
        return o;
      }),
    };
  }
  return { [q('agent')]: agent };
}

/** The `context` list key of a message: task id, `#`, seq (`#` never occurs in a task id). */
export function contextEntryId(m: Pick<ContextMessage, 'task_id' | 'seq'>): string {
  return `${m.task_id}#${m.seq}`;
}

function info(i: ContextMessage['request']): Json | undefined {
  if (!i) return undefined;
  const o: Json = {};
  set(o, 'content', i.content);
  set(o, 'dataParam', i.data_params ? [...i.data_params] : undefined);
  return Object.keys(o).length > 0 ? o : undefined;
}

function dataParam(d: DataParam): Json {
  const o: Json = { id: d.id, dataType: d.data_type };
  set(o, 'description', d.description);
  set(o, 'dataSize', d.data_size === undefined ? undefined : String(d.data_size));
  set(o, 'format', d.format);
  set(o, 'url', d.url);
  set(o, 'data', d.data);
  set(o, 'chunked', d.chunked);
  set(o, 'finished', d.finished);
  return o;
}

/**
 * A task with its context and data params (5.2): `tasks` (header, content,
 * prompt, payload, subscription, status, tail), the `context` list and the
 * `data-params` list its leafrefs (`msg-data`, `dataParam`, `context`) point into.
 */
export function taskToYangJson(t: { task: Task; context: readonly ContextMessage[]; data_params: readonly DataParam[] }): object {
  const { task } = t;
  const tasks: Json = {
    'task-sendFrom': task.send_from,
    'task-sendTo': task.send_to,
    commuType: 'taskAssign',
    'task-id': task.task_id,
  };
  set(tasks, 'content', task.content);
  if (task.prompt) {
    tasks.prompt = {
      'target-object': task.prompt.target_object,
      'task-description': task.prompt.task_description,
      'environmental-information': task.prompt.environmental_information,
    };
  }
  set(tasks, 'scenario', task.scenario);
  set(tasks, 'schema-id', task.schema_id);
  set(tasks, 'payload', task.payload);
  if (task.subscription) {
    const s: Json = { 'subscript-protocol': task.subscription.protocol };
    set(s, 'subscript-method', task.subscription.method);
    set(s, 'subscript-url', task.subscription.url);
    tasks['task-subscription'] = s;
  }
  tasks['task-async'] = task.task_async;
  tasks['task-status'] = task.status;
  set(tasks, 'created-at', task.created_at);
  set(tasks, 'updated-at', task.updated_at);
  set(tasks, 'result', task.result);
  set(tasks, 'expected-response', task.expected_response);
  set(
    tasks,
    'term-explains',
    task.term_explains.map((e) => ({ term: e.term, explanation: e.explanation })),
  );
  set(tasks, 'msg-data', [...task.msg_data]);
  set(tasks, 'context', t.context.map(contextEntryId));

  const out: Json = { [q('tasks')]: tasks };
  set(
    out,
    q('context'),
    t.context.map((m) => {
      const o: Json = {
        id: contextEntryId(m),
        'task-id': m.task_id,
        seq: m.seq,
        sendFrom: m.send_from,
        sendTo: m.send_to,
        commuType: m.commu_type,
        time: m.time,
      };
      set(o, 'request-info', info(m.request));
      set(o, 'response-info', info(m.response));
      return o;
    }),
  );
  set(out, q('data-params'), t.data_params.map(dataParam));
  return out;
}

/** `{ "parley-an-agent:condition-notifications": { … } }`: one status change (5.4 Figure 9), for `yanglint -t notif`. */
export function notificationToYangJson(n: TaskNotification): object {
  const entry: Json = { 'task-async': n.task_async, status: n.status, 'start-time': n.start_time };
  set(entry, 'required', n.required);
  const o: Json = {
    'task-sendFrom': n.send_from,
    'task-sendTo': n.send_to,
    commuType: n.commu_type,
    'task-id': n.task_id,
    seq: n.seq,
  };
  if (n.previous_status !== null) o['previous-status'] = n.previous_status;
  o.time = n.at;
  o['input-required'] = [entry];
  set(o, 'result', n.result);
  return { [q('condition-notifications')]: o };
}

/** `{ "parley-an-agent:task-negotiate": { … } }`: the input of one negotiation step (5.3 Figure 8), for `yanglint -t rpc`. */
export function negotiateToYangJson(p: NegotiateParams, type: NegotiationType): object {
  const o: Json = {
    'task-sendFrom': p.send_from,
    'task-sendTo': p.send_to,
    commuType: type === 'FEASIBILITY' ? 'FeasibilityNegotiate' : 'FulfillmentNegotiate',
  };
  set(o, 'task-id', p.task_id);
  o.type = type;
  o.content = [...p.content];
  set(o, 'verdict', p.verdict);
  set(o, 'reply', p.reply ? [...p.reply] : undefined);
  return { [q('task-negotiate')]: o };
}
