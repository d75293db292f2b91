/**
 * Parley's operator console (served by the gateway at /console/): scenarios and
 * agents; per scenario the template, the semantic pool's clusters with their
 * heat over time (draft-zhou §6.2.1), the patch keys by state with their
 * §6.2.3 metrics and decision history, and the operator's decisions (approve,
 * reject, pin, edit); audits to judge; dead letters; event webhooks. Every
 * figure comes from the gateway's JSON-RPC methods, called with the operator's
 * own credential: what the console may do is what the credential may do.
 */
import { call, credential, hasMethod, RpcError, signIn, signOut } from './api';
import { heatChart, type HeatPoint } from './chart';
import { h, kv, pct, pill, table, when, type Child } from './dom';

// ---------------------------------------------------------------- wire shapes (the JSON-RPC results used here)
interface Whoami {
  principal: string;
  roles: string[];
  tenant: string;
  via: string;
}
interface Agent {
  name: string;
  scenarios: string[];
  domain: string;
  tags: string[];
  description: string;
  executions: number;
  last_executed_at: string;
}
interface SchemaVersion {
  agent: string;
  schema_id: string;
  scenario: string;
  scenario_id: string;
  version: number;
}
interface TemplateKey {
  key_name: string;
  key_type: string;
  required: boolean;
  semantic_description: string;
  experimental?: boolean;
  deprecated?: boolean;
  enum?: unknown[];
}
interface Cluster {
  id: string;
  scope: string;
  size: number;
  distinct_clients: number;
  heat: number;
  peak_heat: number;
  matured: boolean;
  matured_at?: string;
  samples: string[];
  heat_history: HeatPoint[];
  patch_id?: string;
  key_name?: string;
}
interface KeyMetrics {
  usage_frequency?: number;
  value_type_correctness?: number;
  client_adoption_rate?: number;
  semantic_alignment_accuracy?: number;
  payloads: number;
  uses: number;
  audits: number;
}
interface PatchKey {
  definition: TemplateKey;
  state: string;
  state_since: string;
  accept_until?: string;
  metrics?: KeyMetrics;
}
interface Patch {
  patch_id: string;
  scenario_id: string;
  scope: string;
  status: string;
  pinned: boolean;
  timestamp: string;
  source_cluster_id?: string;
  new_keys: PatchKey[];
  modified_keys: { key_name: string; semantic_description: string }[];
  approval_reasons: string[];
}
interface Decision {
  seq: number;
  at: string;
  patch_id: string;
  key_name: string;
  action: string;
  reasons: string[];
  figures?: Record<string, unknown>;
  actor: string;
}
interface AuditSample {
  sample_id: string;
  patch_id: string;
  key_name: string;
  scenario_id: string;
  value?: unknown;
  utterance?: string;
  verdict: string;
  at: string;
}

// ---------------------------------------------------------------- state
const app = document.getElementById('app') as HTMLElement;
let me: Whoami | undefined;
/** Methods colleagues' releases add; probed once: a missing one shows its button disabled with a note. */
const optional = { edit_patch: false, list_dead_letters: false };
let refreshTimer: number | undefined;

function errorText(e: unknown): string {
  return e instanceof RpcError ? `${e.type}: ${e.message}` : e instanceof Error ? e.message : String(e);
}

/** A section that loads itself and shows what failed instead of throwing. */
function loading(title: string, testid: string, load: () => Promise<Child>): HTMLElement {
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  const s = h('section', { testid }, title ? h('h3', {}, title) : null, body);
  load().then(
    (content) => body.replaceChildren(h('div', {}, content)),
    (e: unknown) => {
      if (e instanceof RpcError && e.status === 401) return void logout('Your credential was refused; sign in again.');
      body.replaceChildren(h('p', { class: 'error' }, errorText(e)));
    },
  );
  return s;
}

// ---------------------------------------------------------------- login
function logout(message?: string): void {
  signOut();
  me = undefined;
  renderLogin(message);
}

function renderLogin(message?: string): void {
  stopRefresh();
  const input = h('input', { type: 'password', placeholder: 'pk_… or a JWT', testid: 'login-credential', autocomplete: 'off' }) as HTMLInputElement;
  const err = h('p', { class: 'error', testid: 'login-error' }, message ?? '');
  const form = h(
    'form',
    {
      onsubmit: (e) => {
        e.preventDefault();
        signIn(input.value);
        void start().catch((x: unknown) => {
          signOut();
          err.textContent = errorText(x);
        });
      },
    },
    h('h2', {}, 'Parley console'),
    h('p', { class: 'muted' }, 'Sign in with an operator API key or your JWT. It is kept in this tab only (sessionStorage) and sent as Authorization: Bearer.'),
    input,
    h('button', { class: 'primary', type: 'submit', testid: 'login-submit' }, 'Sign in'),
    err,
  );
  app.replaceChildren(h('div', { class: 'login' }, form));
  input.focus();
}

async function start(): Promise<void> {
  me = await call<Whoami>('whoami');
  if (!me.roles.includes('operator')) {
    signOut();
    renderLogin(`${me.principal} has no operator role (roles: ${me.roles.join(', ') || 'none'}): the console is for operators.`);
    return;
  }
  const [edit, dead] = await Promise.all([hasMethod('edit_patch'), hasMethod('list_dead_letters')]);
  optional.edit_patch = edit;
  optional.list_dead_letters = dead;
  window.addEventListener('hashchange', route);
  route();
}

// ---------------------------------------------------------------- shell and routing
function shell(active: string, content: HTMLElement): void {
  const link = (href: string, text: string, key: string) => h('a', { href, class: active === key ? 'active' : '', testid: `nav-${key}` }, text);
  app.replaceChildren(
    h(
      'header',
      {},
      h('h1', {}, 'Parley'),
      h('nav', {}, link('#/', 'Scenarios', 'scenarios'), link('#/audits', 'Audits', 'audits'), link('#/dead-letters', 'Dead letters', 'dead-letters'), link('#/webhooks', 'Event webhooks', 'webhooks')),
      h('span', { class: 'who', testid: 'whoami' }, `${me?.principal ?? ''} (${me?.via ?? ''})`),
      h('button', { onclick: () => logout() }, 'Sign out'),
    ),
    h('main', {}, content),
  );
}

function stopRefresh(): void {
  if (refreshTimer !== undefined) window.clearInterval(refreshTimer);
  refreshTimer = undefined;
}

/** Re-renders the view every few seconds, unless the operator is typing into it. */
function autoRefresh(render: () => void, everyMs = 3000): void {
  stopRefresh();
  refreshTimer = window.setInterval(() => {
    const busy = [...document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('main input, main textarea')].some((i) => i === document.activeElement || i.value !== '');
    if (!busy && document.visibilityState === 'visible') render();
  }, everyMs);
}

function route(): void {
  if (!me) return;
  const hash = location.hash.replace(/^#/, '') || '/';
  stopRefresh();
  const scenario = /^\/scenario\/([a-z0-9_]+)$/.exec(hash);
  if (scenario) {
    const render = () => shell('scenarios', scenarioView(scenario[1]!));
    render();
    autoRefresh(render);
  } else if (hash === '/audits') shell('audits', auditsView());
  else if (hash === '/dead-letters') shell('dead-letters', deadLettersView());
  else if (hash === '/webhooks') shell('webhooks', webhooksView());
  else shell('scenarios', scenariosView());
}

// ---------------------------------------------------------------- scenarios and agents
async function scenarioNames(): Promise<string[]> {
  const { agents } = await call<{ agents: Agent[] }>('list_agents');
  return [...new Set(agents.flatMap((a) => a.scenarios))].sort();
}

function scenariosView(): HTMLElement {
  return h(
    'div',
    {},
    h('h2', {}, 'Scenarios and agents'),
    loading('Scenarios', 'scenarios', async () => {
      const [{ agents }, { schemas }] = await Promise.all([call<{ agents: Agent[] }>('list_agents'), call<{ schemas: SchemaVersion[] }>('list_schemas')]);
      const ids = [...new Set([...agents.flatMap((a) => a.scenarios), ...schemas.map((s) => s.scenario_id)])].sort();
      return table(
        ['scenario', 'agents', 'schemas (latest version)'],
        ids.map((id) => {
          const versions = schemas.filter((s) => s.scenario_id === id);
          const latest = new Map<string, SchemaVersion>();
          for (const v of versions) if ((latest.get(v.agent)?.version ?? -1) < v.version) latest.set(v.agent, v);
          return [
            h('a', { href: `#/scenario/${id}`, testid: `scenario-link-${id}` }, id),
            agents.filter((a) => a.scenarios.includes(id)).map((a) => a.name).join(', ') || '-',
            [...latest.values()].map((v) => `${v.schema_id} (v${v.version}, ${v.agent})`).join('; ') || '-',
          ];
        }),
        'scenario-table',
      );
    }),
    loading('Agents', 'agents', async () => {
      const { agents } = await call<{ agents: Agent[] }>('list_agents');
      return table(
        ['agent', 'scenarios', 'domain', 'tags', 'executions', 'last executed', 'description'],
        agents.map((a) => [a.name, a.scenarios.join(', '), a.domain || '-', a.tags.join(', ') || '-', a.executions, when(a.last_executed_at), a.description || '-']),
      );
    }),
  );
}

// ---------------------------------------------------------------- one scenario
function scenarioView(id: string): HTMLElement {
  return h(
    'div',
    {},
    h('div', { class: 'toolbar' }, h('h2', {}, `Scenario ${id}`), h('a', { href: '#/' }, '← all scenarios'), h('span', { class: 'note' }, 'refreshes every 3 s while you are not typing')),
    loading('Template (the global view: base and active global patches)', 'template', async () => {
      const t = await call<{ schema_id: string; keys: TemplateKey[] }>('get_schema_template', { scenario: id });
      return [
        h('p', { class: 'muted' }, `schema ${t.schema_id}`),
        table(
          ['key', 'type', 'required', 'state', 'description'],
          t.keys.map((k) => [
            h('span', { testid: `template-key-${k.key_name}` }, k.key_name),
            k.key_type,
            k.required ? 'yes' : 'no',
            k.experimental ? pill('experimental') : k.deprecated ? pill('deprecated') : '',
            k.semantic_description,
          ]),
        ),
      ];
    }),
    loading('Clusters of the semantic pool (draft-zhou §6.2.1)', 'clusters', async () => {
      const r = await call<{ clusters: Cluster[]; heat_threshold?: number; embedder: string }>('list_clusters', { scenario: id, limit: 50 });
      if (r.clusters.length === 0) return h('p', { class: 'muted' }, 'No clusters yet: they form from what clients put in `other`.');
      const now = Date.now();
      const card = (c: Cluster) =>
          h(
            'div',
            { class: 'card', testid: `cluster-${c.id}` },
            h('h4', {}, c.id, pill(c.scope === 'global' ? 'global' : 'one client'), c.matured ? pill('matured', 'active') : null, c.key_name ? pill(`→ ${c.key_name}`, 'experimental') : null),
            heatChart(c.heat_history, { at: now, heat: c.heat }, r.heat_threshold || undefined),
            kv([
              ['heat', `${c.heat.toFixed(1)} now, ${c.peak_heat.toFixed(1)} at peak`],
              ['size', `${c.size} fragments`],
              ['distinct clients', String(c.distinct_clients)],
              ['matured', c.matured ? when(c.matured_at) : 'no'],
              ['patch', c.patch_id ?? '-'],
            ]),
            h('div', { class: 'note' }, 'sample fragments (sanitised):'),
            h('ul', { class: 'samples' }, c.samples.slice(0, 6).map((s) => h('li', {}, s))),
            rawButton(id, c.id),
          );
      // The global pool first; each client's own pool (§6.2.2 personalized adaptation) folded away.
      const global = r.clusters.filter((c) => c.scope === 'global');
      const own = r.clusters.filter((c) => c.scope !== 'global');
      return [
        global.length ? h('div', { class: 'cards' }, global.map(card)) : h('p', { class: 'muted' }, 'No cluster in the global pool yet.'),
        own.length ? h('details', {}, h('summary', {}, `Clients' own pools: ${own.length} cluster${own.length === 1 ? '' : 's'}`), h('div', { class: 'cards' }, own.map(card))) : null,
      ];
    }),
    loading('', 'patches', async () => patchesSection(id)),
  );
}

function rawButton(scenario: string, clusterId: string): HTMLElement {
  const out = h('div', {});
  const b = h('button', {
    onclick: () => {
      b.setAttribute('disabled', '');
      call<{ raw: { raw_text: string; at: string; flags: string[] }[] }>('get_cluster', { scenario, id: clusterId, include_raw: true }).then(
        (r) => out.replaceChildren(h('ul', { class: 'samples' }, r.raw.slice(0, 20).map((x) => h('li', {}, `${when(x.at)} ${x.raw_text || `(${x.flags.join(', ')})`}`)))),
        (e: unknown) => out.replaceChildren(h('p', { class: 'error' }, errorText(e))),
      );
    },
  }, 'Raw fragments (operators only)');
  return h('div', {}, b, out);
}

const KEY_STATES = ['proposed', 'experimental', 'stable', 'deprecated', 'withdrawn'] as const;

async function patchesSection(id: string): Promise<Child> {
  const [{ patches, queued }, { decisions }] = await Promise.all([
    call<{ patches: Patch[]; queued: { key_name: string; cluster_id: string; queued_at: string }[] }>('list_patches', { scenario: id }),
    call<{ decisions: Decision[] }>('list_decisions', { scenario: id, limit: 1000 }),
  ]);
  // Keys by state: a proposed patch's keys wait for approval; an active patch's keys have their lifecycle state.
  const rows = patches
    .filter((p) => p.status !== 'rejected')
    .flatMap((p) => p.new_keys.map((k) => ({ p, k, state: p.status === 'proposed' ? 'proposed' : k.state })));
  const byState = KEY_STATES.map((state) => {
    const list = rows.filter((r) => r.state === state);
    return h(
      'div',
      { testid: `keys-${state}` },
      h('h4', {}, pill(state), `${list.length} key${list.length === 1 ? '' : 's'}`),
      list.length === 0
        ? null
        : table(
            ['key', 'type', 'patch', 'scope', 'since', 'usage', 'type correct', 'adoption', 'alignment', 'payloads / uses / audits'],
            list.map(({ p, k }) => [
              k.definition.key_name,
              k.definition.key_type,
              p.patch_id,
              p.scope,
              when(k.state_since),
              pct(k.metrics?.usage_frequency),
              pct(k.metrics?.value_type_correctness),
              pct(k.metrics?.client_adoption_rate),
              pct(k.metrics?.semantic_alignment_accuracy),
              `${k.metrics?.payloads ?? 0} / ${k.metrics?.uses ?? 0} / ${k.metrics?.audits ?? 0}`,
            ]),
          ),
    );
  });
  return [
    h('h3', {}, 'Keys by state, with their §6.2.3 metrics'),
    ...byState,
    h('h3', {}, 'Patches (draft-zhou §6.2.2) and their decisions'),
    patches.length === 0 ? h('p', { class: 'muted' }, 'No patches yet.') : h('div', { class: 'cards' }, patches.map((p) => patchCard(p, decisions.filter((d) => d.patch_id === p.patch_id)))),
    queued.length === 0 ? null : [h('h3', {}, 'Held back by the convergence guard'), table(['key', 'cluster', 'queued'], queued.map((q) => [q.key_name, q.cluster_id, when(q.queued_at)]))],
  ];
}

function patchCard(p: Patch, decisions: Decision[]): HTMLElement {
  const reason = h('input', { type: 'text', placeholder: 'reason (stored with the decision)', testid: `reason-${p.patch_id}` }) as HTMLInputElement;
  const status = h('p', { class: 'error', testid: `action-error-${p.patch_id}` });
  const act = (method: string, extra: Record<string, unknown> = {}) => {
    if (reason.value.trim() === '') {
      status.textContent = 'Give a reason first: it is stored with the decision.';
      return;
    }
    call(method, { patch_id: p.patch_id, reason: reason.value.trim(), ...extra }).then(
      () => {
        reason.value = '';
        route();
      },
      (e: unknown) => (status.textContent = errorText(e)),
    );
  };
  const editor = h('div', {});
  const edit = h(
    'button',
    {
      testid: `edit-${p.patch_id}`,
      disabled: !optional.edit_patch,
      title: optional.edit_patch ? 'Edit a key definition of this patch' : 'edit_patch is not available on this gateway yet',
      onclick: () => editor.replaceChildren(editForm(p, reason, status)),
    },
    'Edit',
  );
  return h(
    'div',
    { class: 'card', testid: `patch-${p.patch_id}` },
    h('h4', {}, p.patch_id, pill(p.status), p.pinned ? pill('pinned') : null, pill(p.scope === 'global' ? 'global' : `client ${p.scope}`)),
    kv([
      ['published', when(p.timestamp)],
      ['from cluster', p.source_cluster_id ?? '-'],
      ['new keys', p.new_keys.map((k) => `${k.definition.key_name} (${k.definition.key_type}, ${k.state})`).join(', ') || '-'],
      ['refines', p.modified_keys.map((m) => m.key_name).join(', ') || '-'],
      ['waits because', p.approval_reasons.join(', ') || '-'],
    ]),
    p.new_keys.map((k) => h('p', { class: 'note' }, `${k.definition.key_name}: ${k.definition.semantic_description}`)),
    h(
      'div',
      { class: 'actions' },
      reason,
      p.status === 'proposed' ? h('button', { class: 'primary', testid: `approve-${p.patch_id}`, onclick: () => act('approve_patch') }, 'Approve') : null,
      p.status !== 'rejected' ? h('button', { class: 'danger', testid: `reject-${p.patch_id}`, onclick: () => act('reject_patch') }, 'Reject') : null,
      p.status !== 'rejected' ? h('button', { testid: `pin-${p.patch_id}`, onclick: () => act('pin_patch', { pinned: !p.pinned }) }, p.pinned ? 'Unpin' : 'Pin') : null,
      edit,
    ),
    optional.edit_patch ? null : h('p', { class: 'note', testid: `edit-note-${p.patch_id}` }, 'Editing needs edit_patch, which this gateway does not offer yet (it answered method_not_found).'),
    editor,
    status,
    h('details', {}, h('summary', {}, `Decision history (${decisions.length})`), table(['#', 'at', 'action', 'key', 'by', 'reasons', 'figures'], decisions.map((d) => [d.seq, when(d.at), d.action, d.key_name || '-', d.actor, d.reasons.join('; '), figures(d.figures)]))),
  );
}

function figures(f: Record<string, unknown> | undefined): string {
  if (!f) return '-';
  return Object.entries(f)
    .map(([k, v]) => `${k}=${typeof v === 'number' ? (Number.isInteger(v) ? v : v.toFixed(2)) : String(v)}`)
    .join(' ');
}

/**
 * edit_patch {patch_id, key, rename?, values?, type?, description?, reason}: an operator's correction of one key of a
 * proposed patch (edited in place) or a published experimental key (a refinement, or a new key with the old one
 * deprecated when renamed). Only the members changed here are sent; the service records who and why.
 */
function editForm(p: Patch, reason: HTMLInputElement, status: HTMLElement): HTMLElement {
  const editable = p.new_keys.filter((k) => p.status === 'proposed' || k.state === 'experimental');
  if (editable.length === 0) return h('p', { class: 'note' }, 'No key of this patch can be edited: only proposed patches and experimental keys can.');
  const key = h('select', { testid: `edit-key-${p.patch_id}` }, editable.map((k) => h('option', { value: k.definition.key_name }, k.definition.key_name))) as HTMLSelectElement;
  const rename = h('input', { type: 'text', placeholder: 'new name (snake_case)', testid: `edit-rename-${p.patch_id}` }) as HTMLInputElement;
  const values = h('input', { type: 'text', placeholder: 'values, comma-separated', testid: `edit-values-${p.patch_id}` }) as HTMLInputElement;
  const type = h('select', { testid: `edit-type-${p.patch_id}` }, ['', 'string', 'integer', 'number', 'boolean', 'array', 'object'].map((t) => h('option', { value: t }, t || '(type unchanged)'))) as HTMLSelectElement;
  const description = h('textarea', { rows: 3, placeholder: 'description', testid: `edit-description-${p.patch_id}` }) as HTMLTextAreaElement;
  const show = () => {
    const def = editable.find((k) => k.definition.key_name === key.value)?.definition;
    rename.value = '';
    values.value = Array.isArray(def?.enum) ? def.enum.map(String).join(', ') : '';
    type.value = '';
    description.value = def?.semantic_description ?? '';
  };
  key.addEventListener('change', show);
  show();
  const save = h(
    'button',
    {
      class: 'primary',
      testid: `edit-save-${p.patch_id}`,
      onclick: () => {
        if (reason.value.trim() === '') {
          status.textContent = 'Give a reason first: it is stored with the decision.';
          return;
        }
        const def = editable.find((k) => k.definition.key_name === key.value)?.definition;
        const params: Record<string, unknown> = { patch_id: p.patch_id, key: key.value, reason: reason.value.trim() };
        if (rename.value.trim() !== '') params.rename = rename.value.trim();
        const vs = values.value.split(',').map((v) => v.trim()).filter((v) => v !== '');
        const oldValues = Array.isArray(def?.enum) ? def.enum.map(String) : [];
        if (vs.length > 0 && vs.join(',') !== oldValues.join(',')) params.values = vs;
        if (type.value !== '') params.type = type.value;
        if (description.value.trim() !== '' && description.value.trim() !== def?.semantic_description) params.description = description.value.trim();
        if (Object.keys(params).length === 3) {
          status.textContent = 'Change the name, the values, the type or the description first.';
          return;
        }
        call('edit_patch', params).then(
          () => route(),
          (e: unknown) => (status.textContent = errorText(e)),
        );
      },
    },
    'Save edit',
  );
  return h('div', { class: 'edit' }, key, rename, values, type, description, save);
}

// ---------------------------------------------------------------- audits
function auditsView(): HTMLElement {
  return h(
    'div',
    {},
    h('h2', {}, 'Audit samples to judge (draft-zhou §6.2.3 semantic alignment)'),
    loading('', 'audits', async () => {
      const scenarios = await scenarioNames();
      const lists = await Promise.all(scenarios.map((s) => call<{ samples: AuditSample[] }>('list_audit_samples', { scenario: s, verdict: 'pending', limit: 100 })));
      const samples = lists.flatMap((l) => l.samples);
      if (samples.length === 0) return h('p', { class: 'muted' }, 'Nothing waits for a verdict.');
      return h(
        'div',
        { class: 'cards' },
        samples.map((s) => {
          const note = h('input', { type: 'text', placeholder: 'note (optional)' }) as HTMLInputElement;
          const err = h('p', { class: 'error' });
          const judge = (aligned: boolean) =>
            call('judge_audit_sample', { sample_id: s.sample_id, aligned, ...(note.value.trim() ? { note: note.value.trim() } : {}) }).then(() => route(), (e: unknown) => (err.textContent = errorText(e)));
          return h(
            'div',
            { class: 'card', testid: `audit-${s.sample_id}` },
            h('h4', {}, s.key_name, pill(s.scenario_id, 'experimental')),
            kv([
              ['value', JSON.stringify(s.value)],
              ['the user said', s.utterance ?? '-'],
              ['patch', s.patch_id],
              ['sampled', when(s.at)],
            ]),
            h('div', { class: 'actions' }, note, h('button', { class: 'primary', onclick: () => void judge(true) }, 'Aligned'), h('button', { class: 'danger', onclick: () => void judge(false) }, 'Misaligned')),
            err,
          );
        }),
      );
    }),
  );
}

// ---------------------------------------------------------------- dead letters
interface DeadLetter {
  id: string;
  source: string;
  consumer?: string;
  event_type: string;
  scenario_id: string;
  error: string;
  attempts: number;
  dead_at: string;
  status: string;
  event_preview: string;
}

function deadLettersView(): HTMLElement {
  if (!optional.list_dead_letters) {
    return h(
      'div',
      { testid: 'dead-letters-unavailable' },
      h('h2', {}, 'Dead letters'),
      h('p', { class: 'note' }, 'This gateway does not offer list_dead_letters yet (it answered method_not_found): dead letters appear here once it does.'),
      h('button', { disabled: true }, 'Retry'),
      ' ',
      h('button', { disabled: true }, 'Discard'),
    );
  }
  return h(
    'div',
    {},
    h('h2', {}, 'Dead letters'),
    loading('', 'dead-letters', async () => {
      const r = await call<{ services: { service: string; dead_letters: DeadLetter[] }[]; total_dead: number; unavailable: { service: string; error: string }[] }>('list_dead_letters');
      const rows = r.services.flatMap((s) => s.dead_letters.map((d) => ({ service: s.service, d })));
      return [
        h('p', {}, `${r.total_dead} dead letter${r.total_dead === 1 ? '' : 's'}`),
        r.unavailable.length ? h('p', { class: 'note' }, `not answering: ${r.unavailable.map((u) => u.service).join(', ')}`) : null,
        table(
          ['service', 'id', 'event', 'scenario', 'source', 'error', 'attempts', 'dead since', ''],
          rows.map(({ service, d }) => {
            const reason = h('input', { type: 'text', placeholder: 'why discard' }) as HTMLInputElement;
            const err = h('span', { class: 'error' });
            return [
              service,
              d.id,
              d.event_type,
              d.scenario_id,
              d.consumer ? `${d.source} (${d.consumer})` : d.source,
              d.error,
              d.attempts,
              when(d.dead_at),
              h(
                'div',
                { class: 'actions' },
                h('button', { onclick: () => void call('retry_dead_letter', { service, id: d.id }).then(() => route(), (e: unknown) => (err.textContent = errorText(e))) }, 'Retry'),
                reason,
                h('button', { class: 'danger', onclick: () => void call('discard_dead_letter', { service, id: d.id, reason: reason.value.trim() }).then(() => route(), (e: unknown) => (err.textContent = errorText(e))) }, 'Discard'),
                err,
              ),
            ];
          }),
        ),
      ];
    }),
  );
}

// ---------------------------------------------------------------- event webhooks
interface Subscription {
  id: string;
  scenario: string;
  events: string[];
  url: string;
  state: string;
  disabled_reason: string;
  last_error: string;
  queued: number;
  delivered: number;
  created_by: string;
}

function webhooksView(): HTMLElement {
  const scenario = h('input', { type: 'text', placeholder: "scenario id or *", value: '*' }) as HTMLInputElement;
  const events = h('input', { type: 'text', value: 'patch.*, key.*, pool.matured' }) as HTMLInputElement;
  const url = h('input', { type: 'url', placeholder: 'https://hooks.example.com/parley' }) as HTMLInputElement;
  const out = h('div', {});
  const create = h('button', {
    class: 'primary',
    onclick: () =>
      void call<{ webhook_secret: string; subscription: Subscription }>('create_event_subscription', {
        scenario: scenario.value.trim(),
        events: events.value.split(',').map((x) => x.trim()).filter(Boolean),
        url: url.value.trim(),
      }).then(
        (r) => out.replaceChildren(h('p', {}, `Subscribed ${r.subscription.id}. Its signing secret, shown once: `, h('code', {}, r.webhook_secret))),
        (e: unknown) => out.replaceChildren(h('p', { class: 'error' }, errorText(e))),
      ),
  }, 'Subscribe');
  return h(
    'div',
    {},
    h('h2', {}, 'Event webhooks (patch.*, key.*, pool.matured)'),
    h('p', { class: 'note' }, 'Deliveries are signed as Standard Webhooks with each subscription\u2019s secret; the URL must pass the allow-list (PARLEY_WEBHOOK_ALLOW).'),
    h('div', { class: 'actions' }, scenario, events, url, create),
    out,
    loading('Subscriptions', 'webhooks', async () => {
      const { subscriptions } = await call<{ subscriptions: Subscription[] }>('list_event_subscriptions');
      return table(
        ['id', 'scenario', 'events', 'url', 'state', 'delivered / queued', 'last error', ''],
        subscriptions.map((s) => [
          s.id,
          s.scenario,
          s.events.join(', '),
          s.url,
          s.state === 'active' ? pill('active') : pill(`disabled: ${s.disabled_reason}`, 'disabled'),
          `${s.delivered} / ${s.queued}`,
          s.last_error || '-',
          h('button', { class: 'danger', onclick: () => void call('delete_event_subscription', { id: s.id }).then(() => route()) }, 'Delete'),
        ]),
      );
    }),
  );
}

// ---------------------------------------------------------------- boot
if (credential()) {
  start().catch((e: unknown) => logout(errorText(e)));
} else {
  renderLogin();
}
