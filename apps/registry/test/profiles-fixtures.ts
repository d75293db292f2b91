import type { AgentProfile as ProfileMessage } from '@parley/contracts';

/**
 * Profiles of the autonomous-networks draft's use cases (004 §2.1: fault
 * management across domains), as gRPC messages.
 */
export function wirelessFault(over: Partial<ProfileMessage> = {}): ProfileMessage {
  return {
    name: 'TMF-Acme-Wireless-v1',
    alias: 'wireless fault agent',
    description: 'Diagnoses wireless access network faults and proposes repairs (use case 2.1).',
    type: 'domain-agent',
    version: '1.2.0',
    provider: 'Acme',
    domain: 'wireless',
    management_object: 'gNodeB',
    skills: [
      {
        name: 'fault_diagnosis',
        description: 'Finds the root cause of a batch of cell outages.',
        tags: ['fault', 'root-cause'],
        input_modes: ['text', 'image'],
        output_modes: ['text'],
      },
      { name: 'fault_repair', description: 'Plans and applies a repair.', tags: ['fault', 'repair'], input_modes: ['text'], output_modes: ['text'] },
    ],
    capability: { streaming: true, push_notifications: true, negotiate: ['FEASIBILITY', 'FULFILLMENT'] },
    authentication: [
      { id: 'jwt-1', scheme: 'jwt', jwt_info: 'issuer https://id.acme.example, audience an-agents' },
      { id: 'open', scheme: 'none' },
    ],
    registered_at: '',
    updated_at: '',
    ...over,
  };
}

export function transportPerf(over: Partial<ProfileMessage> = {}): ProfileMessage {
  return {
    name: 'ETSI-Beta-Transport-v2',
    description: 'Optimises transport network energy use (use case 2.2).',
    version: '2.0.1',
    provider: 'Beta',
    domain: 'Transport',
    skills: [{ name: 'energy_saving', description: 'Shuts idle links at night.', tags: ['energy'], input_modes: ['text'], output_modes: ['text', 'image'] }],
    capability: { streaming: false, push_notifications: true, negotiate: ['FEASIBILITY'] },
    authentication: [{ id: 'key', scheme: 'api_key' }],
    registered_at: '',
    updated_at: '',
    ...over,
  };
}

export function coreFault(over: Partial<ProfileMessage> = {}): ProfileMessage {
  return {
    name: 'acme-core-fault',
    description: 'Core network fault correlation.',
    version: '0.3.0',
    provider: 'Acme',
    domain: 'core',
    skills: [{ name: 'fault_diagnosis', description: 'Correlates core alarms.', tags: ['fault'], input_modes: ['text'], output_modes: ['text'] }],
    capability: { streaming: false, push_notifications: false, negotiate: [] },
    authentication: [],
    registered_at: '',
    updated_at: '',
    ...over,
  };
}
