/**
 * A tiny hand-written SVG grouped bar chart (no canvas, no dependency): one group per category,
 * one bar per series, a linear y axis with five ticks, an optional horizontal target line.
 */
export interface BarChart {
  title: string;
  unit: string;
  categories: string[];
  series: Array<{ name: string; values: number[] }>;
  /** Horizontal reference lines (targets). */
  lines?: Array<{ label: string; value: number }>;
  /** Log scale on y (useful when figures span decades). */
  log?: boolean;
}

const COLORS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1'];

export function barChartSvg(chart: BarChart): string {
  const W = Math.max(640, 90 + chart.categories.length * (chart.series.length * 18 + 30));
  const H = 380;
  const left = 70;
  const right = 20;
  const top = 40;
  const bottom = 80;
  const plotW = W - left - right;
  const plotH = H - top - bottom;
  const all = [...chart.series.flatMap((s) => s.values), ...(chart.lines ?? []).map((l) => l.value)].filter((v) => Number.isFinite(v) && v > 0);
  const maxV = all.length ? Math.max(...all) : 1;
  const minV = chart.log ? Math.max(1, Math.min(...all)) : 0;
  const logMin = chart.log ? Math.floor(Math.log10(minV)) : 0;
  const logMax = chart.log ? Math.ceil(Math.log10(maxV)) : 0;
  const niceMax = chart.log ? 10 ** logMax : niceCeil(maxV);
  const y = (v: number) => {
    if (!Number.isFinite(v) || v <= 0) return top + plotH;
    if (chart.log) return top + plotH - ((Math.log10(Math.max(v, 10 ** logMin)) - logMin) / Math.max(1, logMax - logMin)) * plotH;
    return top + plotH - (v / niceMax) * plotH;
  };
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`);
  out.push(`<rect width="${W}" height="${H}" fill="#fff"/>`);
  out.push(`<text x="${W / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold">${esc(chart.title)}</text>`);
  const ticks = chart.log ? range(logMin, logMax).map((e) => 10 ** e) : [0, 1, 2, 3, 4, 5].map((i) => (niceMax * i) / 5);
  for (const t of ticks) {
    out.push(`<line x1="${left}" x2="${W - right}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" stroke="#ddd"/>`);
    out.push(`<text x="${left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end">${esc(short(t))}</text>`);
  }
  out.push(`<text x="14" y="${top + plotH / 2}" transform="rotate(-90 14 ${top + plotH / 2})" text-anchor="middle">${esc(chart.unit)}</text>`);
  const groupW = plotW / chart.categories.length;
  const barW = Math.min(22, (groupW - 16) / chart.series.length);
  chart.categories.forEach((cat, ci) => {
    const gx = left + ci * groupW + (groupW - barW * chart.series.length) / 2;
    chart.series.forEach((s, si) => {
      const v = s.values[ci];
      const yy = y(v);
      out.push(`<rect x="${(gx + si * barW).toFixed(1)}" y="${yy.toFixed(1)}" width="${(barW - 2).toFixed(1)}" height="${(top + plotH - yy).toFixed(1)}" fill="${COLORS[si % COLORS.length]}"><title>${esc(`${cat} ${s.name}: ${short(v)} ${chart.unit}`)}</title></rect>`);
    });
    out.push(`<text x="${(left + ci * groupW + groupW / 2).toFixed(1)}" y="${top + plotH + 16}" text-anchor="middle">${esc(cat)}</text>`);
  });
  (chart.lines ?? []).forEach((l, i) => {
    out.push(`<line x1="${left}" x2="${W - right}" y1="${y(l.value).toFixed(1)}" y2="${y(l.value).toFixed(1)}" stroke="#c00" stroke-dasharray="6 4"/>`);
    // Labels alternate right / left, so close lines do not print over each other.
    const [x, anchor] = i % 2 === 0 ? [W - right - 4, 'end'] : [left + 4, 'start'];
    out.push(`<text x="${x}" y="${(y(l.value) - 4).toFixed(1)}" text-anchor="${anchor}" fill="#c00">${esc(l.label)}</text>`);
  });
  out.push(`<line x1="${left}" x2="${left}" y1="${top}" y2="${top + plotH}" stroke="#333"/><line x1="${left}" x2="${W - right}" y1="${top + plotH}" y2="${top + plotH}" stroke="#333"/>`);
  chart.series.forEach((s, si) => {
    const lx = left + si * 110;
    out.push(`<rect x="${lx}" y="${H - 28}" width="12" height="12" fill="${COLORS[si % COLORS.length]}"/><text x="${lx + 16}" y="${H - 18}">${esc(s.name)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}

function niceCeil(v: number): number {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function range(a: number, b: number): number[] {
  return Array.from({ length: b - a + 1 }, (_, i) => a + i);
}

function short(v: number): string {
  if (!Number.isFinite(v)) return '-';
  if (v >= 1000) return `${+(v / 1000).toFixed(1)}k`;
  return String(+v.toFixed(2));
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
