/** Heat over time as an inline SVG: the sampled history, the heat now, the dual gate's threshold dashed. */
const NS = 'http://www.w3.org/2000/svg';

function el(tag: string, attrs: Record<string, string | number>): SVGElement {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

export interface HeatPoint {
  at: string;
  heat: number;
}

export function heatChart(points: readonly HeatPoint[], now: { at: number; heat: number }, threshold: number | undefined, width = 340, height = 96): SVGElement {
  const series = [...points.map((p) => ({ t: Date.parse(p.at), v: p.heat })).filter((p) => Number.isFinite(p.t)), { t: now.at, v: now.heat }].sort((a, b) => a.t - b.t);
  const pad = { l: 30, r: 6, t: 8, b: 16 };
  const t0 = series[0]!.t;
  const t1 = Math.max(series[series.length - 1]!.t, t0 + 60_000);
  const vmax = Math.max(1, ...series.map((p) => p.v), threshold ?? 0) * 1.1;
  const x = (t: number) => pad.l + ((t - t0) / (t1 - t0)) * (width - pad.l - pad.r);
  const y = (v: number) => height - pad.b - (v / vmax) * (height - pad.t - pad.b);
  const svg = el('svg', { class: 'heat', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img' });
  const title = el('title', {});
  title.textContent = `heat over time: now ${now.heat.toFixed(1)}${threshold !== undefined ? `, gate at ${threshold}` : ''}`;
  svg.appendChild(title);
  const pts = series.map((p) => `${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`);
  svg.appendChild(el('polygon', { class: 'area', points: `${x(series[0]!.t).toFixed(1)},${y(0)} ${pts.join(' ')} ${x(series[series.length - 1]!.t).toFixed(1)},${y(0)}` }));
  svg.appendChild(el('polyline', { class: 'line', points: pts.join(' ') }));
  for (const p of series) svg.appendChild(el('circle', { cx: x(p.t).toFixed(1), cy: y(p.v).toFixed(1), r: 2, fill: '#2457c5' }));
  if (threshold !== undefined) {
    svg.appendChild(el('line', { class: 'threshold', x1: pad.l, x2: width - pad.r, y1: y(threshold), y2: y(threshold) }));
    const label = el('text', { x: width - pad.r - 2, y: y(threshold) - 2, 'text-anchor': 'end' });
    label.textContent = `gate ${threshold}`;
    svg.appendChild(label);
  }
  const axis = (v: number) => {
    const t = el('text', { x: pad.l - 4, y: y(v) + 3, 'text-anchor': 'end' });
    t.textContent = String(Math.round(v));
    svg.appendChild(t);
  };
  axis(0);
  axis(vmax / 1.1);
  const span = el('text', { x: pad.l, y: height - 3 });
  span.textContent = `${new Date(t0).toISOString().slice(5, 16).replace('T', ' ')} → now`;
  svg.appendChild(span);
  return svg;
}
