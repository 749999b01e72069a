/** A plain text table (what the bench prints). */
export function table(headers: string[], rows: Array<Array<string | number>>): string {
  const cells = rows.map((r) => r.map((c) => (typeof c === 'number' ? fmt(c) : c)));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => String(r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => String(c ?? '').padStart(widths[i])).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}

/** Markdown version of the same table (for docs/BENCHMARKS.md). */
export function markdownTable(headers: string[], rows: Array<Array<string | number>>): string {
  const cells = rows.map((r) => r.map((c) => (typeof c === 'number' ? fmt(c) : c)));
  return [`| ${headers.join(' | ')} |`, `|${headers.map(() => '---').join('|')}|`, ...cells.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

export function fmt(n: number): string {
  if (!Number.isFinite(n)) return '-';
  if (Number.isInteger(n)) return String(n);
  return Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(2);
}
