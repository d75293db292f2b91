import { parseAgentProfile, parseCapabilityRequest, type AgentProfile } from '@parley/an';
import type { TaskApi } from '@parley/contracts';
import { ParleyError, toParleyError } from '@parley/protocol';
import { plain, type TaskCtx } from './context';
import { toWireProfile } from './to-wire';
import { agentFailure, decodeAgentReply, encodeWire } from './wire';

/**
 * CapabilityRequest (draft 004 §5.1): the registry's profile when it has one,
 * else the agent's own answer on its task subject, checked like a registration.
 */
export async function capabilityRequest(c: TaskCtx, req: Parameters<TaskApi['capabilityRequest']>[0]) {
  const p = parseCapabilityRequest(plain(req, ['skills']));
  if (c.deps.profiles) {
    try {
      const r = await c.deps.profiles.getProfile({ name: p.send_to });
      if (r.profile) return { profile: toWireProfile(r.profile, p.skills), source: 'registry' };
    } catch (e) {
      c.log.debug('registry has no profile; asking the agent', { agent: p.send_to, error: e });
    }
  }
  const raw = await c.bus.request(c.subjects.task(p.send_to), encodeWire({ kind: 'capability', send_from: p.send_from, ...(p.skills ? { skills: p.skills } : {}) }), {
    timeoutMs: c.deps.timeoutMs,
  });
  const reply = decodeAgentReply(raw, p.send_to);
  if (reply.ok !== true) throw new ParleyError('agent_error', `Agent ${p.send_to} did not describe itself: ${agentFailure(reply.error).message}`, { details: { agent: p.send_to } });
  let profile: AgentProfile;
  try {
    profile = parseAgentProfile(reply.profile, 'reply.profile');
  } catch (e) {
    const err = toParleyError(e);
    throw new ParleyError('agent_response_invalid', `Agent ${p.send_to} answered with an invalid profile: ${err.message}`, { path: err.path, rule: err.rule });
  }
  if (profile.name !== p.send_to) {
    throw new ParleyError('agent_response_invalid', `Agent ${p.send_to} answered with the profile of ${profile.name}`, { path: 'reply.profile.name', rule: 'name_match' });
  }
  return { profile: toWireProfile(profile, p.skills), source: 'agent' };
}
