import { EngineMetrics } from '../../../apps/engine/src/metrics/engine-metrics';

/**
 * Metric names, as the ops checks compare them: the names a PromQL expression reads (the rules
 * file, the Grafana dashboards) against the series names an engine's GET /metrics exposes.
 */

/** PromQL keywords that look like names: binary operators, modifiers and aggregation clauses. */
const KEYWORDS = new Set(['and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'offset', 'inf', 'nan']);

/**
 * The metric names a PromQL expression selects. Removed first: quoted strings, label matchers
 * `{…}`, ranges and subqueries `[…]`, and the label lists of `by`/`without`/`on`/`ignoring`/
 * `group_left`/`group_right` (label names, not metrics) — Grafana's `$variables` live only there.
 * What is left of the identifiers are function names (followed by `(`), keywords, and the metric
 * names (recording rules' `level:metric:operation` names included).
 */
export function promqlMetricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/gi, ' ');
  const names = new Set<string>();
  for (const m of bare.matchAll(/(?<![\w:.$])([a-zA-Z_:][\w:]*)(\s*\()?/g)) {
    if (m[2] || KEYWORDS.has(m[1].toLowerCase())) continue;
    names.add(m[1]);
  }
  return [...names];
}

/**
 * Every series name a fresh engine's GET /metrics text has (MetricsController serves
 * `registry.metrics()`): each `# TYPE` line's name, and a histogram's `_bucket`, `_sum` and
 * `_count` series, a summary's `_sum` and `_count`.
 */
export async function engineSeriesNames(): Promise<Set<string>> {
  const text = await new EngineMetrics().registry.metrics();
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name);
    if (type === 'histogram') names.add(`${name}_bucket`);
    if (type === 'histogram' || type === 'summary') for (const suffix of ['_sum', '_count']) names.add(`${name}${suffix}`);
  }
  return names;
}

/** Series Prometheus makes itself for every target it scrapes (not on any /metrics). */
export const SCRAPE_SERIES: ReadonlySet<string> = new Set(['up', 'scrape_duration_seconds', 'scrape_samples_scraped', 'scrape_samples_post_metric_relabeling', 'scrape_series_added']);
