/**
 * The seeded scenarios: the draft's two examples (flight booking, photo
 * retouching) and a cross-domain fault-management scenario from the
 * autonomous-networks use case 2.1.
 */
import { faultManagementScenario } from './fault-management';
import { flightBookingScenario } from './flight-booking';
import { photoRetouchScenario } from './photo-retouch';
import type { ScenarioDefinition } from './common';

export type { ScenarioDefinition } from './common';
/** The name libs/examples/src/index.ts re-exports. */
export type SeedScenario = ScenarioDefinition;
export { JSON_SCHEMA_2020_12, schemaUpdateSuggestionSchema } from './common';
export {
  flightBookingExamplePayload,
  flightBookingExampleResponse,
  flightBookingResponseSchema,
  flightBookingScenario,
  flightBookingTemplate,
} from './flight-booking';
export {
  photoRetouchExamplePayload,
  photoRetouchExampleResponse,
  photoRetouchResponseSchema,
  photoRetouchScenario,
  photoRetouchTemplate,
} from './photo-retouch';
export {
  FAULT_DOMAINS,
  FAULT_SEVERITIES,
  faultManagementExamplePayload,
  faultManagementExampleResponse,
  faultManagementResponseSchema,
  faultManagementScenario,
  faultManagementTemplate,
} from './fault-management';

export const SCENARIOS: ReadonlyArray<ScenarioDefinition> = [flightBookingScenario, photoRetouchScenario, faultManagementScenario];
