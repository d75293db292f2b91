/**
 * A tiny DOM builder. Text always goes in as text nodes (textContent), never as
 * HTML: cluster samples, raw fragments and utterances are users' words (draft-zhou
 * §7: hostile until shown otherwise), so nothing here parses markup.
 */
export type Child = Node | string | number | null | undefined | false | Child[];

export interface Attrs {
  class?: string;
  title?: string;
  testid?: string;
  type?: string;
  value?: string;
  placeholder?: string;
  disabled?: boolean;
  href?: string;
  rows?: number;
  autocomplete?: string;
  onclick?: (e: MouseEvent) => void;
  onsubmit?: (e: SubmitEvent) => void;
}

export function h(tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  if (attrs.class) el.className = attrs.class;
  if (attrs.title) el.title = attrs.title;
  if (attrs.testid) el.dataset.testid = attrs.testid;
  if (attrs.href !== undefined) el.setAttribute('href', attrs.href);
  if (attrs.type !== undefined) el.setAttribute('type', attrs.type);
  if (attrs.placeholder !== undefined) el.setAttribute('placeholder', attrs.placeholder);
  if (attrs.autocomplete !== undefined) el.setAttribute('autocomplete', attrs.autocomplete);
  if (attrs.rows !== undefined) el.setAttribute('rows', String(attrs.rows));
  if (attrs.value !== undefined) (el as HTMLInputElement).value = attrs.value;
  if (attrs.disabled) (el as HTMLButtonElement).disabled = true;
  if (attrs.onclick) el.addEventListener('click', attrs.onclick as EventListener);
  if (attrs.onsubmit) el.addEventListener('submit', attrs.onsubmit as EventListener);
  append(el, children);
  return el;
}

function append(el: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

export function table(headers: string[], rows: Child[][], testid?: string): HTMLElement {
  return h('table', testid ? { testid } : {}, h('thead', {}, h('tr', {}, headers.map((x) => h('th', {}, x)))), h('tbody', {}, rows.map((r) => h('tr', {}, r.map((c) => h('td', {}, c))))));
}

export function pill(text: string, kind = text): HTMLElement {
  return h('span', { class: `pill ${kind}` }, text);
}

export function kv(pairs: [string, Child][]): HTMLElement {
  return h('dl', { class: 'kv' }, pairs.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
}

/** A percentage of a ratio in [0, 1], or "-" when there is nothing measured. */
export function pct(r: number | undefined | null): string {
  return r === undefined || r === null ? '-' : `${Math.round(r * 100)}%`;
}

export function when(iso: string | undefined | null): string {
  if (!iso) return '-';
  const t = Date.parse(iso);
  return Number.isFinite(t) ? new Date(t).toISOString().replace('T', ' ').slice(0, 16) : iso;
}
