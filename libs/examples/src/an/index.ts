/**
 * The example autonomous-network agents' decision logic and profiles (draft
 * 004 §2.1 use case 1, §2.2 use case 2, §5): pure functions; the processes
 * that run them are apps/example-agents/src/an.
 */
export {
  ALARM_SEVERITIES,
  ALARM_SOURCES,
  EXAMPLE_TOPOLOGY,
  IP_ALARM_TYPES,
  TERMS,
  WIRELESS_ALARM_TYPES,
  alarmsFromData,
  alarmsParam,
  allCells,
  compactTime,
  jsonParam,
  listField,
  numberField,
  parseAlarm,
  parseAlarms,
  promptContent,
  proposalFields,
  safeId,
  siteOf,
  terms,
  type AlarmSeverity,
  type AlarmSource,
  type Link,
  type NetworkAlarm,
  type Site,
  type TaskAssignInput,
  type Topology,
} from './common';
export { AN_ROLES, AN_SKILLS, anAgentName, anProfile, anProfiles, isAnRole, type AnProfileOptions, type AnRole } from './profiles';
export { clearedSites, incidentFromReport, incidentPrompt, incidentReportTask, ipIncidents, wirelessIncidents, type Incident } from './incidents';
export {
  DEFAULT_CORRELATION_WINDOW_MS,
  correlateIncidents,
  decideRepair,
  diagnosisRequestTask,
  troubleTicketTask,
  type Correlation,
  type Decision,
} from './cross-domain';
export { diagnoseLink, type LinkDiagnosis } from './ip-fault';
export { openTicket, parseTicketRequest, type TicketRequest, type TroubleTicket } from './trouble-ticket';
export {
  compensationIds,
  compensationPlan,
  compensationReport,
  compensationRequest,
  compensationTask,
  energySavingFeasibilityProposal,
  energySavingTask,
  evaluateCompensationReport,
  evaluateEnergySavingTarget,
  parseCompensationRequest,
  resumeEnergySavingTask,
  type CompensationPlan,
  type CompensationRequest,
} from './optimization';
export {
  DEFAULT_ENERGY_SAVING_TARGET_PERCENT,
  agreedTarget,
  applyTarget,
  cellsOfRequest,
  evaluateFeasibility,
  firstTargetProposal,
  initialEnergyState,
  isResumeRequest,
  proposalAfterCounter,
  resumeTargets,
  type CellEnergyState,
  type EnergyState,
} from './energy-saving';
