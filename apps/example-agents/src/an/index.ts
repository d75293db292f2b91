import type { AnRole } from '@parley/examples';
import { startAnAgent, type AnAgentOptions, type RoleFactory, type RunningAnAgent } from './host';
import { crossDomainRole } from './cross-domain';
import { energySavingRole } from './energy-saving';
import { ipRole } from './ip';
import { optimizationRole } from './optimization';
import { troubleTicketRole } from './trouble-ticket';
import { wirelessRole } from './wireless';

export { startAnAgent, type AnAgentOptions, type RoleContext, type RoleFactory, type RoleImpl, type RunningAnAgent } from './host';
export { createGatewayRpc, type GatewayRpc } from './gateway';

/** The example AN agents by role (draft 004 §2.1, §2.2); profiles and decision logic in @parley/examples. */
export const AN_ROLE_FACTORIES: Record<AnRole, RoleFactory> = {
  wireless: wirelessRole,
  ip: ipRole,
  'cross-domain': crossDomainRole,
  'trouble-ticket': troubleTicketRole,
  optimization: optimizationRole,
  'energy-saving': energySavingRole,
};

/** Starts the example AN agent of `role`. */
export function startExampleAnAgent(role: AnRole, opts: AnAgentOptions): Promise<RunningAnAgent> {
  return startAnAgent(role, AN_ROLE_FACTORIES[role], opts);
}
