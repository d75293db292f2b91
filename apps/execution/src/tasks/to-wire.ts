import type { AgentProfile, ContextMessage, NegotiationRound, TaskNotification } from '@parley/an';
import type {
  AgentProfile as WireProfile,
  ContextMessage as WireContextMessage,
  NegotiationRound as WireRound,
  Task as WireTaskMessage,
  TaskNotification as WireNotification,
} from '@parley/contracts';
import type { StoredTask } from './store';

// The task service's model → its gRPC messages.

export function toWireTask(t: StoredTask): WireTaskMessage {
  return {
    task_id: t.task_id,
    send_from: t.send_from,
    send_to: t.send_to,
    task_async: t.task_async,
    status: t.status,
    term_explains: t.term_explains.map((x) => ({ ...x })),
    msg_data: [...t.msg_data],
    created_at: t.created_at,
    updated_at: t.updated_at,
    last_seq: t.last_seq,
    ...(t.content !== undefined ? { content: t.content } : {}),
    ...(t.prompt ? { prompt: { ...t.prompt } } : {}),
    ...(t.scenario !== undefined ? { scenario: t.scenario } : {}),
    ...(t.schema_id !== undefined ? { schema_id: t.schema_id } : {}),
    ...(t.payload ? { payload: { ...t.payload } } : {}),
    ...(t.expected_response !== undefined ? { expected_response: t.expected_response } : {}),
    ...(t.subscription ? { subscription: { ...t.subscription } } : {}),
    ...(t.result ? { result: { ...t.result } } : {}),
  };
}

export function toWireNotification(n: TaskNotification): WireNotification {
  return {
    task_id: n.task_id,
    seq: n.seq,
    send_from: n.send_from,
    send_to: n.send_to,
    commu_type: n.commu_type,
    task_async: n.task_async,
    status: n.status,
    start_time: n.start_time,
    at: n.at,
    ...(n.previous_status !== null ? { previous_status: n.previous_status } : {}),
    ...(n.required !== undefined ? { required: n.required } : {}),
    ...(n.result ? { result: { ...n.result } } : {}),
  };
}

export function toWireRound(r: NegotiationRound): WireRound {
  return {
    task_id: r.task_id,
    type: r.type,
    round: r.round,
    proposer: r.proposer,
    proposal: [...r.proposal],
    reply: [...(r.reply ?? [])],
    at: r.at,
    ...(r.verdict !== undefined ? { verdict: r.verdict } : {}),
  };
}

export function toWireMessage(m: ContextMessage): WireContextMessage {
  const info = (i: ContextMessage['request']) => (i ? { data_params: [...(i.data_params ?? [])], ...(i.content !== undefined ? { content: i.content } : {}) } : undefined);
  const request = info(m.request);
  const response = info(m.response);
  return {
    task_id: m.task_id,
    seq: m.seq,
    send_from: m.send_from,
    send_to: m.send_to,
    commu_type: m.commu_type,
    time: m.time,
    ...(request ? { request } : {}),
    ...(response ? { response } : {}),
  };
}

export function toWireProfile(p: AgentProfile | WireProfile, skills?: readonly string[]): WireProfile {
  const wanted = skills && skills.length > 0 ? new Set(skills) : undefined;
  const src = p as WireProfile & AgentProfile;
  return {
    name: src.name,
    description: src.description,
    version: src.version,
    provider: src.provider,
    skills: src.skills.filter((s) => !wanted || wanted.has(s.name)).map((s) => ({ ...s, tags: [...s.tags], input_modes: [...s.input_modes], output_modes: [...s.output_modes] })),
    capability: src.capability
      ? { streaming: src.capability.streaming, push_notifications: src.capability.push_notifications, negotiate: [...src.capability.negotiate] }
      : { streaming: false, push_notifications: false, negotiate: [] },
    authentication: src.authentication.map((a) => ({ ...a })),
    registered_at: src.registered_at ?? '',
    updated_at: src.updated_at ?? '',
    ...(src.alias !== undefined ? { alias: src.alias } : {}),
    ...(src.type !== undefined ? { type: src.type } : {}),
    ...(src.domain !== undefined ? { domain: src.domain } : {}),
    ...(src.management_object !== undefined ? { management_object: src.management_object } : {}),
  };
}

