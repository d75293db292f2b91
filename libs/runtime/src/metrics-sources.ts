// The metrics read when Prometheus scrapes rather than recorded as they happen
// (metrics.ts `scrape()`): outbox depth and age and dead letters by SQL, consumer
// lag from JetStream (or the in-process bus), pool figures (draft-zhou §6.2.1)
// and patch figures (§6.2.2, §6.2.3) from the services' memory, pending audits
// by SQL. Each source rewrites its own label values of the state instruments.
import type { BoundedLabel } from './metrics';
import type { StateInstruments } from './metrics-instruments';

/** What the SQL sources need of a database (libs/storage's Db and Queryable have it; not imported, so the runtime stays below storage). */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

/** One JetStream (or in-process) durable consumer's backlog. */
export interface ConsumerLag {
  consumer: string;
  /** Messages in the stream matching its filter not yet delivered (JetStream num_pending). */
  pending: number;
  /** Delivered, not yet acknowledged (num_ack_pending). */
  ackPending: number;
  /** Deliveries that were redeliveries (num_redelivered). */
  redelivered: number;
}

/** The semantic pool's figures for one scenario, read from its memory (draft-zhou §6.2.1). */
export interface PoolScenarioFigures {
  scenario: string;
  /** Fragments folded into the scenario's global pool. */
  fragments: number;
  clusters: { global: number; client: number };
  /** Heat of the hottest clusters, hottest first (the first `TOP_HEAT` are exported). */
  hottest: readonly number[];
  /** Clusters that passed the dual gate. */
  triggers: number;
}

/** The evolution service's figures for one scenario (draft-zhou §6.2.2, §6.2.3). */
export interface EvolutionScenarioFigures {
  scenario: string;
  /** Patches by status (proposed, active, rejected). */
  patches: Readonly<Record<string, number>>;
  /** Patch keys by lifecycle state (experimental, stable, deprecated, withdrawn). */
  keys: Readonly<Record<string, number>>;
}

export const PATCH_STATUSES = ['proposed', 'active', 'rejected'] as const;
export const KEY_STATES = ['experimental', 'stable', 'deprecated', 'withdrawn'] as const;
/** How many of a scenario's hottest clusters `parley_pool_cluster_heat` reports (label `rank` 1..TOP_HEAT). */
export const TOP_HEAT = 5;

/** A scrape-time source: `refresh` writes its figures; a failure leaves them out of that scrape. */
export interface Source {
  name: string;
  refresh: () => Promise<void>;
}

/** A service's outbox (`<schema>.outbox`) and dead letters (`<schema>.dead_letters`, when the table exists). */
export function outboxSource(st: StateInstruments, service: string, db: Queryable, schema: string): Source {
  return {
    name: `outbox_${service}`,
    async refresh() {
      // Ages by the database's clock, which also wrote created_at.
      const r = await db.query<{ pending: number | string; age: number | string | null; dead_table: string | null }>(
        `SELECT (SELECT count(*) FROM ${schema}.outbox WHERE published_at IS NULL) AS pending,
                (SELECT EXTRACT(EPOCH FROM clock_timestamp() - created_at) FROM ${schema}.outbox WHERE published_at IS NULL ORDER BY seq LIMIT 1) AS age,
                to_regclass('${schema}.dead_letters')::text AS dead_table`,
      );
      const row = r.rows[0];
      st.outboxPending.set({ service }, Number(row?.pending ?? 0));
      st.outboxAge.set({ service }, Math.max(0, Number(row?.age ?? 0)));
      st.deadLetters.set({ service, source: 'outbox' }, 0);
      st.deadLetters.set({ service, source: 'consumer' }, 0);
      if (row?.dead_table) {
        const d = await db.query<{ source: string; n: number | string }>(`SELECT source, count(*) AS n FROM ${schema}.dead_letters WHERE status = 'dead' GROUP BY source`);
        for (const x of d.rows) if (x.source === 'outbox' || x.source === 'consumer') st.deadLetters.set({ service, source: x.source }, Number(x.n));
      }
    },
  };
}

export function consumerSource(st: StateInstruments, read: () => Promise<readonly ConsumerLag[]>): Source {
  return {
    name: 'consumers',
    async refresh() {
      for (const c of await read()) {
        const labels = { consumer: c.consumer };
        st.consumerPending.set(labels, c.pending);
        st.consumerAckPending.set(labels, c.ackPending);
        st.consumerRedelivered.set(labels, c.redelivered);
      }
    },
  };
}

export function poolSource(st: StateInstruments, scenario: BoundedLabel, read: () => readonly PoolScenarioFigures[] | Promise<readonly PoolScenarioFigures[]>): Source {
  return {
    name: 'pool',
    async refresh() {
      for (const f of await read()) {
        const sc = scenario.value(f.scenario);
        st.poolFragments.inc({ scenario: sc }, f.fragments);
        st.poolTriggers.inc({ scenario: sc }, f.triggers);
        st.poolClusters.set({ scenario: sc, scope: 'global' }, f.clusters.global);
        st.poolClusters.set({ scenario: sc, scope: 'client' }, f.clusters.client);
        f.hottest.slice(0, TOP_HEAT).forEach((h, i) => st.poolHeat.set({ scenario: sc, rank: String(i + 1) }, h));
      }
    },
  };
}

export function evolutionSource(st: StateInstruments, scenario: BoundedLabel, read: () => readonly EvolutionScenarioFigures[] | Promise<readonly EvolutionScenarioFigures[]>): Source {
  return {
    name: 'evolution',
    async refresh() {
      // Every scenario the process knows gets its series, zero until it has patches (alerts and
      // dashboards see a scenario before its first patch).
      for (const sc of scenario.values()) {
        for (const s of PATCH_STATUSES) st.patches.set({ scenario: sc, status: s }, 0);
        for (const s of KEY_STATES) st.patchKeys.set({ scenario: sc, state: s }, 0);
      }
      for (const f of await read()) {
        const sc = scenario.value(f.scenario);
        for (const s of PATCH_STATUSES) st.patches.set({ scenario: sc, status: s }, f.patches[s] ?? 0);
        for (const s of KEY_STATES) st.patchKeys.set({ scenario: sc, state: s }, f.keys[s] ?? 0);
      }
    },
  };
}

export function auditSource(st: StateInstruments, scenario: BoundedLabel, db: Queryable): Source {
  return {
    name: 'audits',
    async refresh() {
      const r = await db.query<{ scenario_id: string; n: number | string }>(
        "SELECT scenario_id, count(*) FILTER (WHERE verdict = 'pending') AS n FROM evolution.audit_samples GROUP BY scenario_id",
      );
      for (const s of scenario.values()) st.auditsPending.set({ scenario: s }, 0);
      for (const row of r.rows) st.auditsPending.set({ scenario: scenario.value(row.scenario_id) }, Number(row.n));
    },
  };
}
