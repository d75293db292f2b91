/**
 * Cross-domain fault management: use case 2.1 of the multi-agent data model
 * for autonomous networks (TM Forum AN Level 4, IG1501), "fault management for
 * large-scale batch out of service of mobile network base stations".
 *
 * Step 5 of that flow: the service-layer cross-domain agent has correlated
 * incidents from the wireless agent (3a), the IP network agent (3b) and user
 * complaints (3c), identified a cross-domain fault, the affected sites and the
 * return link, and "sends diagnostic information to the corresponding resource
 * layer fault agent", which "performs self-diagnosis and returns the fault
 * information and handling recommendations". The document notes these
 * interactions are "typically deterministic and qualitative" and that
 * structured communication "enhances reliability and efficiency": this
 * template is that diagnostic request; the response schema is the resource
 * agent's answer, which tells the cross-domain agent whether automatic repair
 * is possible or a trouble ticket went to the field engineer (steps 6-8).
 */
import type { JsonObject, SchemaTemplate } from '@parley/protocol';
import { JSON_SCHEMA_2020_12, schemaUpdateSuggestionSchema, type ScenarioDefinition } from './common';

export const FAULT_DOMAINS = ['wireless', 'ip_network', 'transport', 'core', 'cross_domain'] as const;
export const FAULT_SEVERITIES = ['critical', 'major', 'minor', 'warning'] as const;

export const faultManagementTemplate: SchemaTemplate = {
  schema_id: 'fault_management_v1',
  scenario: 'fault_management',
  keys: [
    {
      key_name: 'incident_id',
      key_type: 'string',
      required: true,
      semantic_description:
        "Identifier of the incident (or correlated incident group) to diagnose, as assigned by the reporting domain agent or the OSS. Example mapping: 'incident INC-20260504-0193 from the wireless agent' -> 'INC-20260504-0193'.",
      pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$',
    },
    {
      key_name: 'fault_domain',
      key_type: 'string',
      required: true,
      semantic_description:
        "Network domain where the fault is observed or suspected. Acceptable values: wireless (RAN, base stations), ip_network (IP/MPLS routers and links), transport (optical or microwave transmission), core (core network), cross_domain (symptoms in several domains, e.g. base stations down because their IP backhaul failed). Example mapping: 'hundreds of base stations went down and the IP agent reports a line interruption' -> 'cross_domain'.",
      enum: [...FAULT_DOMAINS],
    },
    {
      key_name: 'alarm_type',
      key_type: 'string',
      required: true,
      semantic_description:
        "Type of the triggering alarm or incident, in snake_case, using the reporting agent's alarm name when known. Example mapping: 'base stations out of service' -> 'base_station_out_of_service'; 'the backhaul line is down' -> 'link_down'; 'optical power too low' -> 'optical_power_low'.",
      min_length: 1,
      max_length: 128,
    },
    {
      key_name: 'affected_site_ids',
      key_type: 'array',
      required: true,
      semantic_description:
        "Identifiers of the affected sites or network elements (base stations, routers), one per item, as known to the inventory. Example mapping: 'sites 1021, 1022 and 1035 are out of service' -> ['1021', '1022', '1035'].",
      items_type: 'string',
      min_items: 1,
      max_items: 5000,
    },
    {
      key_name: 'severity',
      key_type: 'string',
      required: false,
      default_value: 'major',
      semantic_description:
        "Perceived severity (ITU-T X.733). Acceptable values: critical, major, minor, warning. Example mapping: 'a mass outage, customers cannot call' -> 'critical'; 'degraded but still in service' -> 'minor'.",
      enum: [...FAULT_SEVERITIES],
    },
    {
      key_name: 'occurred_at',
      key_type: 'string',
      required: true,
      semantic_description:
        "When the fault occurred (the first alarm was raised), as an RFC 3339 date-time with offset. Example mapping: 'at 09:12 this morning, Beijing time, on 4 May 2026' -> '2026-05-04T09:12:00+08:00'.",
      format: 'date-time',
    },
    {
      key_name: 'suspected_link',
      key_type: 'string',
      required: false,
      semantic_description:
        "The link suspected to cause the fault, typically the return (backhaul) link of the affected sites, as 'A-end<->Z-end' or the link's inventory id. Example mapping: 'the line between aggregation router AGG-03 and core router CR-01 was cut' -> 'AGG-03<->CR-01'.",
      max_length: 256,
    },
    {
      key_name: 'user_complaint_count',
      key_type: 'integer',
      required: false,
      semantic_description: "Number of user complaints correlated with this incident. Example mapping: 'about forty customers complained' -> 40.",
      minimum: 0,
    },
    {
      key_name: 'diagnosis_depth',
      key_type: 'string',
      required: false,
      default_value: 'quick',
      semantic_description:
        "How deep the resource-layer agent should diagnose. Acceptable values: quick (correlate alarms and topology only), full (also run active tests such as loopback and optical power checks; slower). Example mapping: 'just tell me where the fault is' -> 'quick'; 'run a thorough check' -> 'full'.",
      enum: ['quick', 'full'],
    },
    {
      key_name: 'other',
      key_type: 'array',
      items_type: 'string',
      required: false,
      semantic_description:
        "Escape valve for unstructured semantic fragments that cannot be mapped to existing keys, one fragment per item. Example mapping: 'the site is on a rooftop and needs the landlord's key' -> ['site access requires landlord key'].",
    },
  ],
};

/** The resource-layer agent's diagnosis (use case 2.1 step 5) and what happens next (steps 6-8). */
export const faultManagementResponseSchema: JsonObject = {
  $schema: JSON_SCHEMA_2020_12,
  title: 'fault_management_v1 result',
  type: 'object',
  required: ['diagnosis_id', 'root_cause', 'fault_location', 'confidence', 'auto_repair_possible', 'recommended_actions'],
  properties: {
    diagnosis_id: { type: 'string', minLength: 1, description: 'Id of this diagnosis, e.g. "DG-20260504-0007".' },
    root_cause: { type: 'string', description: 'The diagnosed root cause, e.g. "fibre cut on AGG-03<->CR-01".' },
    fault_location: { type: 'string', description: 'Where the fault is: network element, port or link.' },
    confidence: { type: 'number', minimum: 0, maximum: 1, description: 'Confidence in the root cause, 0 to 1.' },
    auto_repair_possible: { type: 'boolean', description: 'Whether the fault can be repaired automatically (e.g. by rerouting); if not, a trouble ticket goes to a field engineer.' },
    recommended_actions: { type: 'array', items: { type: 'string' }, description: 'Handling recommendations, in order.' },
    trouble_ticket_id: { type: 'string', description: 'Present when a repair trouble ticket was opened for a field engineer.' },
    schema_update_suggestion: schemaUpdateSuggestionSchema(),
  },
};

export const faultManagementExamplePayload: JsonObject = {
  incident_id: 'INC-20260504-0193',
  fault_domain: 'cross_domain',
  alarm_type: 'base_station_out_of_service',
  affected_site_ids: ['1021', '1022', '1035'],
  severity: 'critical',
  occurred_at: '2026-05-04T09:12:00+08:00',
  suspected_link: 'AGG-03<->CR-01',
  user_complaint_count: 40,
  other: ['site access requires landlord key'],
};

export const faultManagementExampleResponse: JsonObject = {
  diagnosis_id: 'DG-20260504-0007',
  root_cause: 'Fibre cut on the backhaul link AGG-03<->CR-01',
  fault_location: 'AGG-03 port xe-0/0/1',
  confidence: 0.92,
  auto_repair_possible: false,
  recommended_actions: ['Dispatch a field engineer to splice the fibre between AGG-03 and CR-01', 'Reroute traffic of sites 1021, 1022 and 1035 via AGG-04 meanwhile'],
  trouble_ticket_id: 'TT-20260504-0311',
};

export const faultManagementScenario: ScenarioDefinition = {
  template: faultManagementTemplate,
  responseSchema: faultManagementResponseSchema,
  description: 'Diagnose a cross-domain network fault, e.g. a mass base-station outage caused by a backhaul link (autonomous networks L4, use case 2.1).',
  tags: ['fault-management', 'autonomous-networks', 'cross-domain', 'telecom'],
  domain: 'network_operations',
  examplePayload: faultManagementExamplePayload,
  exampleResponse: faultManagementExampleResponse,
};
