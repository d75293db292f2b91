import type { AgentProfile as DomainProfile } from '@parley/an';
import type { AgentProfile } from './gen/parley/v1/agent_profile';

/**
 * A parsed AN agent profile (draft 004 §5.1) as the protobuf message. Optional
 * members are carried only when present; the timestamps are the registry's
 * (ISO 8601), empty when a caller sends a profile to be registered.
 */
export function profileToWire(p: DomainProfile, registeredAt = '', updatedAt = ''): AgentProfile {
  return {
    name: p.name,
    ...(p.alias !== undefined ? { alias: p.alias } : {}),
    description: p.description,
    ...(p.type !== undefined ? { type: p.type } : {}),
    version: p.version,
    provider: p.provider,
    ...(p.domain !== undefined ? { domain: p.domain } : {}),
    ...(p.management_object !== undefined ? { management_object: p.management_object } : {}),
    skills: p.skills.map((s) => ({ name: s.name, description: s.description, tags: [...s.tags], input_modes: [...s.input_modes], output_modes: [...s.output_modes] })),
    capability: { streaming: p.capability.streaming, push_notifications: p.capability.push_notifications, negotiate: [...p.capability.negotiate] },
    authentication: p.authentication.map((m) => ({
      id: m.id,
      scheme: m.scheme,
      ...(m.jwt_info !== undefined ? { jwt_info: m.jwt_info } : {}),
      ...(m.oauth !== undefined ? { oauth: m.oauth } : {}),
    })),
    registered_at: registeredAt,
    updated_at: updatedAt,
  };
}
