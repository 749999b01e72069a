/**
 * What the queue benchmark prints and draws: one table row per (case,
 * structure), and bench/results/queue.svg — total ops/s per structure and
 * resizes per calendar queue, side by side.
 */
import { barChartSvg } from '../support/svg';
import { table } from '../support/table';
import type { StructureName } from './hold-model';
import type { DistributionName } from './workloads';

export interface Row {
  n: number;
  distribution: DistributionName;
  structure: StructureName;
  repetitions: number;
  fillOpsPerSec: number;
  holdOpsPerSec: number;
  burstOpsPerSec: number;
  totalOpsPerSec: number;
  resizes: number | null;
  retunes: number | null;
  finalBuckets: number | null;
}

type OpsKey = 'fillOpsPerSec' | 'holdOpsPerSec' | 'burstOpsPerSec' | 'totalOpsPerSec';

const LABEL: Record<StructureName, string> = { 'pram-cq': 'PRAM calendar queue', 'naive-cq': 'naive calendar queue', 'binary-heap': 'binary heap' };

export function caseLabel(r: Pick<Row, 'n' | 'distribution'>): string {
  return `${r.n >= 1e6 ? `${r.n / 1e6}M` : `${r.n / 1e3}k`} ${r.distribution}`;
}

/** r's figure over the binary heap's in the same case (same process run), or NaN. */
export function vsHeap(rows: readonly Row[], r: Row, key: OpsKey): number {
  const heap = rows.find((h) => h.n === r.n && h.distribution === r.distribution && h.structure === 'binary-heap');
  return heap ? r[key] / heap[key] : NaN;
}

export function resultTable(rows: readonly Row[]): string {
  const m = (v: number) => (v / 1e6).toFixed(2);
  const x = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}x` : '-');
  return table(
    ['case', 'structure', 'fill Mops/s', 'hold Mops/s', 'burst Mops/s', 'total Mops/s', 'resizes', 'retunes', 'hold vs heap', 'total vs heap'],
    rows.map((r) => [
      caseLabel(r),
      r.structure,
      m(r.fillOpsPerSec),
      m(r.holdOpsPerSec),
      m(r.burstOpsPerSec),
      m(r.totalOpsPerSec),
      r.resizes ?? '-',
      r.retunes ?? '-',
      x(vsHeap(rows, r, 'holdOpsPerSec')),
      x(vsHeap(rows, r, 'totalOpsPerSec')),
    ]),
  );
}

export function resultSvg(rows: readonly Row[]): string {
  const cases = [...new Set(rows.map(caseLabel))];
  const structures = [...new Set(rows.map((r) => r.structure))];
  const value = (c: string, s: StructureName, f: (r: Row) => number | null) => f(rows.find((r) => caseLabel(r) === c && r.structure === s) as Row) ?? NaN;
  const ops = barChartSvg({
    title: 'Timer queues, hold model: total throughput',
    unit: 'M ops/s (median)',
    categories: cases,
    series: structures.map((s) => ({ name: LABEL[s], values: cases.map((c) => value(c, s, (r) => r.totalOpsPerSec / 1e6)) })),
  });
  const calendars = structures.filter((s) => s !== 'binary-heap');
  const resizes = barChartSvg({
    title: 'Calendar-queue resizes (O(n) rebuilds)',
    unit: 'resizes per run',
    categories: cases,
    series: calendars.map((s) => ({ name: LABEL[s], values: cases.map((c) => value(c, s, (r) => r.resizes)) })),
  });
  return sideBySide(ops, resizes);
}

/** Two standalone SVG documents as one, the second to the right of the first. */
function sideBySide(a: string, b: string): string {
  const size = (svg: string) => {
    const m = /width="(\d+)" height="(\d+)"/.exec(svg) as RegExpExecArray;
    return { w: Number(m[1]), h: Number(m[2]) };
  };
  const sa = size(a);
  const sb = size(b);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${sa.w + sb.w}" height="${Math.max(sa.h, sb.h)}">`,
    a.trim(),
    `<g transform="translate(${sa.w} 0)">`,
    b.trim(),
    '</g>',
    '</svg>',
    '',
  ].join('\n');
}
