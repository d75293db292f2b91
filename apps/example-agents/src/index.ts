import { createAgent, type Agent } from '@parley/agent-sdk';
import type { Bus } from '@parley/events';
import { SCENARIOS, bookFlight, diagnoseFault, retouchPhoto } from '@parley/examples';
import type { JsonObject } from '@parley/protocol';

/**
 * The example server agents of the seeded scenarios, each a few lines on the
 * agent SDK. In production each runs as its own Deployment (one per scenario),
 * its replicas sharing the scenario's NATS queue group.
 */
export const EXAMPLE_AGENTS = {
  flight_booking: {
    name: 'skyways-air',
    handler: (payload: JsonObject, ctx: { execution_id: string }) => bookFlight(payload, { execution_id: ctx.execution_id, now: new Date() }),
  },
  photo_retouch: { name: 'pixel-studio', handler: retouchPhoto },
  fault_management: { name: 'an-cross-domain-fault', handler: diagnoseFault },
} as const;

export type ExampleScenario = keyof typeof EXAMPLE_AGENTS;
export const EXAMPLE_SCENARIOS = Object.keys(EXAMPLE_AGENTS) as ExampleScenario[];

export function isExampleScenario(s: string): s is ExampleScenario {
  return Object.prototype.hasOwnProperty.call(EXAMPLE_AGENTS, s);
}

export interface ExampleAgentOptions {
  natsUrl?: string;
  bus?: Bus;
  prefix?: string;
  /** When set, the agent registers itself and publishes its schema there. */
  gatewayUrl?: string;
  /** The agent's API key at the gateway (a server_agent key owning its name; draft-zhou §7). */
  apiKey?: string;
}

export async function startExampleAgent(scenario: ExampleScenario, opts: ExampleAgentOptions): Promise<Agent> {
  const spec = EXAMPLE_AGENTS[scenario];
  const agent = await createAgent({
    name: spec.name,
    ...(opts.bus ? { bus: opts.bus } : {}),
    ...(opts.natsUrl ? { natsUrl: opts.natsUrl } : {}),
    ...(opts.prefix ? { prefix: opts.prefix } : {}),
    ...(opts.apiKey !== undefined ? { apiKey: opts.apiKey } : {}),
  });
  await agent.serve(scenario, spec.handler);
  if (opts.gatewayUrl) await registerExampleAgent(agent, scenario, opts.gatewayUrl);
  return agent;
}

/** Registers the example agent and publishes its seeded schema (idempotent). */
export async function registerExampleAgent(agent: Agent, scenario: ExampleScenario, gatewayUrl: string): Promise<void> {
  const seed = SCENARIOS.find((s) => s.template.scenario === scenario);
  if (!seed) throw new Error(`no seeded template for ${scenario}`);
  await agent.register(
    gatewayUrl,
    { scenarios: [scenario], description: seed.description, domain: seed.domain, tags: seed.tags, version: '1.0.0' },
    [{ template: seed.template, responseSchema: seed.responseSchema as JsonObject }],
  );
}
