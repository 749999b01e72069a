import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { SCRAPE_SERIES, engineSeriesNames, promqlMetricNames } from './support/metric-names';

const DIR = join(__dirname, '../../ops/grafana');
const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };

interface Target {
  expr: string;
  datasource: unknown;
}
interface Dashboard {
  uid: string;
  title: string;
  templating: { list: Array<{ name: string; type: string; query: unknown; datasource?: unknown; definition?: string }> };
  panels: Array<{ title: string; datasource: unknown; targets: Target[] }>;
}

const dashboards = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((file) => ({ file, dashboard: JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Dashboard }));

/** Every PromQL expression of a dashboard: its panels' queries, and the metric its variables' `label_values(metric, label)` read. */
function expressions(d: Dashboard): string[] {
  const variables = d.templating.list.filter((v) => v.type === 'query').map((v) => /^label_values\((.+),\s*\w+\)$/.exec(v.definition ?? '')?.[1] ?? `unparsed variable ${v.name}`);
  return [...d.panels.flatMap((p) => p.targets.map((t) => t.expr)), ...variables];
}

/** The expression as Prometheus gets it once Grafana has put in its variables' values. */
function withVariables(expr: string): string {
  return expr.replace(/\$__rate_interval/g, '1m').replace(/\$\{?\w+\}?/g, 'x');
}

describe('the Grafana dashboards shipped in ops/grafana', () => {
  it('are the overview, one tenant and one engine, with unique uids', () => {
    expect(dashboards.map((d) => d.dashboard.uid).sort()).toEqual(['baton-engine', 'baton-overview', 'baton-tenant']);
  });

  it('read every query from the datasource variable (picked at import)', () => {
    for (const { file, dashboard } of dashboards) {
      expect(dashboard.templating.list[0], file).toMatchObject({ name: 'datasource', type: 'datasource', query: 'prometheus' });
      for (const v of dashboard.templating.list.slice(1)) expect(v.datasource, `${file} variable ${v.name}`).toEqual(DATASOURCE);
      expect(dashboard.panels.length, file).toBeGreaterThan(0);
      for (const panel of dashboard.panels) {
        expect(panel.datasource, `${file}: ${panel.title}`).toEqual(DATASOURCE);
        expect(panel.targets.length, `${file}: ${panel.title}`).toBeGreaterThan(0);
        for (const t of panel.targets) expect(t.datasource, `${file}: ${panel.title}`).toEqual(DATASOURCE);
      }
    }
  });

  it("name only series an engine's /metrics has (or Prometheus's own per target)", async () => {
    const known = new Set([...(await engineSeriesNames()), ...SCRAPE_SERIES]);
    for (const { file, dashboard } of dashboards) {
      for (const expr of expressions(dashboard)) {
        const named = promqlMetricNames(expr);
        expect(named.length, `${file}: ${expr}`).toBeGreaterThan(0);
        for (const name of named) expect(known, `${file}: ${expr}`).toContain(name);
      }
    }
  });

  it('are valid PromQL (promtool check rules on each query with its variables filled in)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-grafana-'));
    try {
      const rules = dashboards.flatMap(({ dashboard }) => expressions(dashboard)).map((expr, i) => ({ record: `dashboard_query_${i}`, expr: withVariables(expr) }));
      writeFileSync(join(dir, 'queries.rules.yml'), stringify({ groups: [{ name: 'dashboards', rules }] }));
      expect(execFileSync('promtool', ['check', 'rules', 'queries.rules.yml'], { cwd: dir, encoding: 'utf8' })).toContain(`${rules.length} rules found`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
