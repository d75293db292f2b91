/**
 * The catalogue of (agent, scenario) pairs the MCP and A2A faces expose, built
 * from the registry (ListAgents) and negotiation (ListSchemas, GetSchema) over
 * gRPC, and cached briefly.
 *
 * Staleness is bounded two ways: entries live `ttlMs` (a few seconds), and the
 * gateway invalidates the cache itself when it handles a `register_agent` or
 * `publish_schema`. Another gateway replica's writes show up within the TTL.
 * GetSchema answers are re-read on every rebuild too: a published version
 * never changes (zhou §6.2.2), but the effective template carries the global
 * patches, so MCP tool schemas follow patches within the TTL.
 */
import { templateFromWire, type Agent, type GetSchemaResponse, type NegotiationApi, type RegistryApi } from '@parley/contracts';
import type { ToolLike } from '@parley/adol';
import { ParleyError, type JsonObject } from '@parley/protocol';
import type { Logger } from '@parley/runtime';
import { deriveTool, type DerivedTool, type ToolSource } from './mcp-tools';

export interface CatalogEntry extends DerivedTool {
  source: ToolSource;
}

/** An entry as adol's selectTools sees it: the tool, its tags, and the entry it stands for. */
export type SelectableEntry = ToolLike & { entry: CatalogEntry };

/** The tools as selection (chang §3.4) reads them: with their agent's tags, and the example requests an operator attached. */
export function selectableOf(entries: readonly CatalogEntry[], examples?: ReadonlyMap<string, readonly string[]>): SelectableEntry[] {
  return entries.map((e) => {
    const ex = examples?.get(e.tool.name);
    return { ...(e.tool as unknown as ToolLike), tags: e.tags, ...(ex ? { examples: [...ex] } : {}), entry: e };
  });
}

export interface CatalogOptions {
  /** How long a built catalogue is served (default 5000 ms). */
  ttlMs?: number;
  now?: () => number;
  log?: Logger;
  /** Example requests per tool name, for selection only (adol-params parseToolExamples). */
  examples?: ReadonlyMap<string, readonly string[]>;
}

interface Built {
  at: number;
  entries: CatalogEntry[];
  /** Built once per catalogue, so adol's per-list caches (embeddings, BM25) are reused until the next rebuild. */
  selectable: SelectableEntry[];
  byName: Map<string, CatalogEntry>;
  agents: Map<string, Agent>;
}

export class ToolCatalog {
  private readonly ttlMs: number;
  private readonly now: () => number;
  private built: Built | undefined;
  private pending: Promise<Built> | undefined;
  private generation = 0;
  private readonly schemas = new Map<string, Promise<GetSchemaResponse>>();

  constructor(
    private readonly backends: { registry: RegistryApi; negotiation: NegotiationApi },
    private readonly opts: CatalogOptions = {},
  ) {
    this.ttlMs = opts.ttlMs ?? 5000;
    this.now = opts.now ?? Date.now;
  }

  /** Drops the cached lists (the gateway calls this after a register or publish). */
  invalidate(): void {
    this.generation++;
    this.built = undefined;
    this.pending = undefined;
  }

  async entries(): Promise<CatalogEntry[]> {
    return (await this.current()).entries;
  }

  async selectable(): Promise<SelectableEntry[]> {
    return (await this.current()).selectable;
  }

  /** The registered agent, or undefined. */
  async agent(name: string): Promise<Agent | undefined> {
    return (await this.current()).agents.get(name);
  }

  /** A tool by name. A miss rebuilds once (the tool may be newer than the cache), at most once a second. */
  async byName(name: string): Promise<CatalogEntry | undefined> {
    return (await this.holding([name])).byName.get(name);
  }

  /**
   * The selectable tools, for a tools/list that names some (`_meta.names`): a name the cached catalogue does not
   * hold rebuilds it once, as byName does, so a tool registered on another replica within the TTL can be listed
   * by name as soon as it can be called.
   */
  async selectableHolding(names: readonly string[]): Promise<SelectableEntry[]> {
    return (await this.holding(names)).selectable;
  }

  /** The catalogue, rebuilt once (at most once a second) when it misses one of `names`: the tools may be newer than the cache. */
  private async holding(names: readonly string[]): Promise<Built> {
    const c = await this.current();
    if (names.every((n) => c.byName.has(n)) || this.now() - c.at < 1000) return c;
    this.invalidate();
    return this.current();
  }

  private current(): Promise<Built> {
    if (this.built && this.now() - this.built.at < this.ttlMs) return Promise.resolve(this.built);
    if (!this.pending) {
      const gen = this.generation;
      const p = this.build().then(
        (b) => {
          if (gen === this.generation) this.built = b;
          if (this.pending === p) this.pending = undefined;
          return b;
        },
        (e: unknown) => {
          if (this.pending === p) this.pending = undefined;
          throw e;
        },
      );
      this.pending = p;
    }
    return this.pending;
  }

  private schema(agent: string, schemaId: string): Promise<GetSchemaResponse> {
    const key = `${agent}\u0000${schemaId}`;
    let p = this.schemas.get(key);
    if (!p) {
      p = this.backends.negotiation.getSchema({ schema_id: schemaId, agent });
      this.schemas.set(key, p);
      p.catch(() => this.schemas.delete(key));
    }
    return p;
  }

  private async build(): Promise<Built> {
    const at = this.now();
    // A schema's effective view changes when global patches do (draft-zhou §6.2.2), so
    // each rebuild reads it again: MCP tool schemas follow patches within the TTL.
    this.schemas.clear();
    const [agentsR, schemasR] = await Promise.all([this.backends.registry.listAgents({}), this.backends.negotiation.listSchemas({})]);
    const agents = new Map(agentsR.agents.map((a) => [a.name, a]));
    // The latest version per (agent, scenario): a tool always executes the newest base schema.
    const latest = new Map<string, (typeof schemasR.schemas)[number]>();
    for (const s of schemasR.schemas) {
      const k = `${s.agent}\u0000${s.scenario_id}`;
      const prev = latest.get(k);
      if (!prev || s.version > prev.version) latest.set(k, s);
    }
    const sources = await Promise.all(
      [...latest.values()]
        // A tool is an (agent, scenario) the registry says the agent serves.
        .filter((s) => agents.get(s.agent)?.scenarios.includes(s.scenario_id))
        .map(async (s): Promise<ToolSource | undefined> => {
          const agent = agents.get(s.agent) as Agent;
          try {
            const r = await this.schema(s.agent, s.schema_id);
            if (!r.template) return undefined;
            return {
              agent: { name: agent.name, description: agent.description, domain: agent.domain, tags: agent.tags, version: agent.version },
              schema: { schema_id: s.schema_id, scenario: s.scenario, scenario_id: s.scenario_id, version: s.version },
              template: templateFromWire(r.template),
              responseSchema: r.response_schema as JsonObject | undefined,
            };
          } catch (e) {
            // One unreadable schema must not hide every other tool.
            this.opts.log?.warn('catalog: schema unreadable, tool left out', { agent: s.agent, schema_id: s.schema_id, error: e });
            return undefined;
          }
        }),
    );
    const entries: CatalogEntry[] = [];
    const byName = new Map<string, CatalogEntry>();
    for (const source of sources) {
      if (!source) continue;
      const d = deriveTool(source);
      if (byName.has(d.tool.name)) {
        this.opts.log?.warn('catalog: tool name collision, second tool left out', { name: d.tool.name, agent: source.agent.name });
        continue;
      }
      const entry: CatalogEntry = { ...d, source };
      entries.push(entry);
      byName.set(d.tool.name, entry);
    }
    entries.sort((a, b) => (a.tool.name < b.tool.name ? -1 : a.tool.name > b.tool.name ? 1 : 0));
    return { at, entries, selectable: selectableOf(entries, this.opts.examples), byName, agents };
  }
}

/** `agent_not_found` naming the path the agent came from. */
export function agentNotFound(name: string, path: string): ParleyError {
  return new ParleyError('agent_not_found', `No agent named "${name}" is registered`, { path, rule: 'exists' });
}
