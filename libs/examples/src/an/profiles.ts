/**
 * The example AN agents' profiles (draft 004 §5.1, Figure 5). Names follow the
 * recommended form `{Standard Organization}-{Provider}-{Transmit}-{Version}`
 * (`TMF-Acme-Wireless-v1`); the name's version is the profile's major version,
 * which `parseAgentProfile` checks (rule `name_version`). The skills are what
 * the agents discover each other by (§4.1, `discover_profiles {skill}`).
 */
import { parseAgentProfile, type AgentProfile, type AgentSkill, type NegotiationType } from '@parley/an';

export const AN_ROLES = ['wireless', 'ip', 'cross-domain', 'trouble-ticket', 'optimization', 'energy-saving'] as const;
export type AnRole = (typeof AN_ROLES)[number];

export function isAnRole(s: string): s is AnRole {
  return (AN_ROLES as readonly string[]).includes(s);
}

/** The skill names the agents look each other up by. */
export const AN_SKILLS = {
  incidentReporting: 'incident-reporting',
  incidentCorrelation: 'cross-domain-incident-correlation',
  linkDiagnosis: 'ip-link-diagnosis',
  troubleTicketing: 'trouble-ticketing',
  coverageCompensation: 'coverage-compensation',
  energySavingControl: 'energy-saving-control',
} as const;

interface RoleSpec {
  /** The name's third part (the draft's "Transmit"). */
  transmit: string;
  alias: string;
  description: string;
  type: string;
  domain: string;
  management_object: string;
  skills: AgentSkill[];
  push_notifications: boolean;
  negotiate: NegotiationType[];
}

const skill = (name: string, description: string, tags: string[]): AgentSkill => ({ name, description, tags, input_modes: ['text'], output_modes: ['text'] });

const ROLES: Record<AnRole, RoleSpec> = {
  wireless: {
    transmit: 'Wireless',
    alias: 'wireless network fault agent',
    description:
      'Resource-layer fault agent of the mobile (RAN) domain: detects base-station outages, reports incidents to the cross-domain agent (use case 2.1, step 3a) and asks the optimization agent to compensate coverage until the repair (use case 2.2).',
    type: 'fault-management',
    domain: 'wireless',
    management_object: 'gNodeB, cell',
    skills: [skill(AN_SKILLS.incidentReporting, 'Reports RAN incidents (base stations and cells out of service) with their alarms.', ['fault', 'incident', 'ran'])],
    push_notifications: true,
    negotiate: ['FULFILLMENT'],
  },
  ip: {
    transmit: 'IPNetwork',
    alias: 'IP network fault agent',
    description:
      'Resource-layer fault agent of the IP network domain: reports link incidents (use case 2.1, step 3b) and diagnoses links on request, returning the fault and handling recommendations (step 5).',
    type: 'fault-management',
    domain: 'ip',
    management_object: 'router, link',
    skills: [
      skill(AN_SKILLS.incidentReporting, 'Reports IP network incidents (links down, loss of signal) with their alarms.', ['fault', 'incident', 'ip']),
      skill(AN_SKILLS.linkDiagnosis, 'Diagnoses an IP/optical link (interfaces, optical power, protection) and says whether it can be repaired automatically; async, with status notifications.', ['fault', 'diagnosis', 'ip', 'link']),
    ],
    push_notifications: true,
    negotiate: [],
  },
  'cross-domain': {
    transmit: 'CrossDomain',
    alias: 'service-layer cross-domain fault agent',
    description:
      'Service-layer fault agent (OSS): correlates incidents across the wireless and IP domains (use case 2.1, step 4), asks the resource-layer agent for a diagnosis (step 5) and opens a trouble ticket when automatic repair is impossible (step 6).',
    type: 'fault-management',
    domain: 'cross-domain',
    management_object: 'service, site',
    skills: [skill(AN_SKILLS.incidentCorrelation, 'Receives incidents from domain agents and correlates them by site, time window and backhaul link.', ['fault', 'correlation', 'incident'])],
    push_notifications: true,
    negotiate: [],
  },
  'trouble-ticket': {
    transmit: 'TroubleTicket',
    alias: 'trouble ticket agent',
    description: 'Opens repair trouble tickets and assigns them to field maintenance engineers (use case 2.1, step 6).',
    type: 'ticketing',
    domain: 'oss',
    management_object: 'trouble ticket',
    skills: [skill(AN_SKILLS.troubleTicketing, 'Opens a repair trouble ticket for a diagnosed fault and answers with its id.', ['ticket', 'repair', 'fme'])],
    push_notifications: false,
    negotiate: [],
  },
  optimization: {
    transmit: 'Optimization',
    alias: 'mobile network optimization agent',
    description:
      'Experience optimization agent of the mobile domain: compensates the coverage of out-of-service sites by raising neighbour-cell power, negotiating lower energy-saving targets with the energy-saving agent (use case 2.2).',
    type: 'performance-optimization',
    domain: 'wireless',
    management_object: 'cell',
    skills: [skill(AN_SKILLS.coverageCompensation, 'Compensates the coverage of out-of-service cells from their neighbours until told to undo it (cancel the task).', ['optimization', 'coverage', 'ran'])],
    push_notifications: true,
    negotiate: ['FEASIBILITY', 'FULFILLMENT'],
  },
  'energy-saving': {
    transmit: 'EnergySaving',
    alias: 'energy-saving agent',
    description: 'Runs the cells\' energy-saving policies; lowers or suspends a cell\'s energy-saving target on request and resumes it afterwards (use case 2.2).',
    type: 'energy-saving',
    domain: 'wireless',
    management_object: 'cell',
    skills: [skill(AN_SKILLS.energySavingControl, 'Checks whether energy-saving targets can be lowered (FEASIBILITY), negotiates the new targets (FULFILLMENT), applies and resumes them.', ['energy-saving', 'ran'])],
    push_notifications: true,
    negotiate: ['FEASIBILITY', 'FULFILLMENT'],
  },
};

export interface AnProfileOptions {
  /** Default `TMF`. */
  organization?: string;
  /** Default `Acme`. */
  provider?: string;
  /** Semantic version; default `1.0.0`. The name carries `v<major>`. */
  version?: string;
}

/** The agent name of a role: `TMF-Acme-Wireless-v1`. */
export function anAgentName(role: AnRole, o: AnProfileOptions = {}): string {
  const version = o.version ?? '1.0.0';
  return `${o.organization ?? 'TMF'}-${o.provider ?? 'Acme'}-${ROLES[role].transmit}-v${version.split('.')[0]}`;
}

/** The role's profile, checked by libs/an's parseAgentProfile (throws `agent_invalid` if an option breaks it). */
export function anProfile(role: AnRole, o: AnProfileOptions = {}): AgentProfile {
  const r = ROLES[role];
  return parseAgentProfile({
    name: anAgentName(role, o),
    alias: r.alias,
    description: r.description,
    type: r.type,
    version: o.version ?? '1.0.0',
    provider: o.provider ?? 'Acme',
    domain: r.domain,
    management_object: r.management_object,
    skills: r.skills,
    capability: { streaming: false, push_notifications: r.push_notifications, negotiate: r.negotiate },
    authentication: [{ id: 'none', scheme: 'none' }],
  });
}

/** Every role's profile. */
export function anProfiles(o: AnProfileOptions = {}): Record<AnRole, AgentProfile> {
  return Object.fromEntries(AN_ROLES.map((r) => [r, anProfile(r, o)])) as Record<AnRole, AgentProfile>;
}
