import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SCRAPE_SERIES, engineSeriesNames, promqlMetricNames } from './support/metric-names';

const DIR = join(__dirname, '../../ops/prometheus');

/** Every rule of the rules file. */
function rules(): Array<{ expr: string; alert?: string; record?: string }> {
  const file = parse(readFileSync(join(DIR, 'baton.rules.yml'), 'utf8')) as { groups: Array<{ rules: Array<{ expr: string; alert?: string; record?: string }> }> };
  return file.groups.flatMap((g) => g.rules);
}

describe('the Prometheus rules shipped in ops/prometheus', () => {
  it('pass promtool check rules and promtool test rules (a case firing each alert, one not)', () => {
    // Debian's `prometheus` package (.ci/run installs it).
    expect(execFileSync('promtool', ['check', 'rules', 'baton.rules.yml'], { cwd: DIR, encoding: 'utf8' })).toContain('SUCCESS');
    expect(execFileSync('promtool', ['test', 'rules', 'baton.rules.test.yml'], { cwd: DIR, encoding: 'utf8' })).toContain('SUCCESS');
  });

  it('has a test case for every alert', () => {
    const tests = readFileSync(join(DIR, 'baton.rules.test.yml'), 'utf8');
    const alerts = [...readFileSync(join(DIR, 'baton.rules.yml'), 'utf8').matchAll(/- alert: (\w+)/g)].map((m) => m[1]);
    expect(alerts.length).toBeGreaterThan(0);
    for (const alert of alerts) expect(tests, alert).toContain(`alertname: ${alert}`);
  });

  it("names only series an engine's /metrics has, Prometheus's own per target, or its own recording rules", async () => {
    const known = new Set([...(await engineSeriesNames()), ...SCRAPE_SERIES, ...rules().flatMap((r) => (r.record ? [r.record] : []))]);
    const named = new Set(rules().flatMap((r) => promqlMetricNames(r.expr)));
    expect(named.size).toBeGreaterThan(0);
    for (const name of named) expect(known, name).toContain(name);
  });
});
