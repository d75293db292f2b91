// The drafts' example scenarios: seeded templates and response schemas, and the
// pure logic of the example server agents that serve them.
export {
  SCENARIOS,
  type ScenarioDefinition,
  type SeedScenario,
  flightBookingTemplate,
  flightBookingResponseSchema,
  flightBookingExamplePayload,
  photoRetouchTemplate,
  photoRetouchResponseSchema,
  photoRetouchExamplePayload,
  faultManagementTemplate,
  faultManagementResponseSchema,
  faultManagementExamplePayload,
} from './scenarios/index';
export { bookFlight, type FlightBookingContext } from './agents/flight-booking';
export { retouchPhoto } from './agents/photo-retouch';
export { diagnoseFault } from './agents/fault-management';
export * from './an/index'; // the autonomous-network agents (draft 004 §2.1, §2.2): decision logic and profiles
