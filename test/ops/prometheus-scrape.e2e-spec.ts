import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { metricsTenantLabel, readMetricsLabelKey } from '@baton/persistence';
import { useCluster, waitFor } from '../cluster/support/cluster';
import { PrometheusServer } from './support/prometheus-server';

type RulesFile = { groups: Array<{ name: string; rules: Array<{ alert?: string; record?: string; for?: string }> }> };

/** The alert this test causes, and the `for:` its copy of the rules gives it instead of the shipped one. */
const ALERT = 'BatonEngineDown';
const SHIPPED_FOR = '1m';
const TEST_FOR = '2s';

/**
 * ops/prometheus/baton.rules.yml, as shipped but for one documented substitution: BatonEngineDown's
 * `for: 1m` becomes `for: 2s` (a minute of waiting would be most of this file's CI cost; the
 * expression, labels and every other rule are the shipped ones).
 */
function rulesWithShortFor(): string {
  const rules = parse(readFileSync(join(__dirname, '../../ops/prometheus/baton.rules.yml'), 'utf8')) as RulesFile;
  const alert = rules.groups.flatMap((g) => g.rules).find((r) => r.alert === ALERT);
  expect(alert?.for, `the shipped ${ALERT}'s for:`).toBe(SHIPPED_FOR);
  alert!.for = TEST_FOR;
  return stringify(rules);
}

/**
 * A real Prometheus scraping a cluster and evaluating the shipped rules end to end (issue 43):
 * 2 engine processes on MariaDB, scraped every second as job `baton-engine`; one is stopped and
 * BatonEngineDown fires for it (and only it); recording rules have the engines' figures.
 */
describe('ops: Prometheus scrapes 2 engines and evaluates ops/prometheus/baton.rules.yml', () => {
  const ctx = useCluster('prometheus');

  it("fires BatonEngineDown for the stopped engine alone, and records the per-tenant due runs and the outbox's oldest alarm", async () => {
    const c = ctx.cluster;
    const [stopped, live] = await c.startEngines(2, { BATON_LOAD_SAMPLE_MS: '500' });
    const rulesFile = join(c.dir, 'baton.rules.yml');
    writeFileSync(rulesFile, rulesWithShortFor());
    const target = (url: string) => new URL(url).host;
    const prometheus = await PrometheusServer.start({ dir: c.dir, job: 'baton-engine', targets: [target(stopped.url), target(live.url)], rulesFile, intervalSeconds: 1 });
    try {
      const up = (instance: string) => async () => (await prometheus.query(`up{job="baton-engine",instance="${instance}"}`))[0]?.value[1];
      await waitFor(async () => (await up(target(stopped.url))()) === '1' && (await up(target(live.url))()) === '1', { timeoutMs: 20_000, what: 'both engines scraped up' });

      // A recording rule over both engines' per-tenant gauges (TenantLoadSampler): one series per tenant, no instance
      // — both engines label the tenant alike, keyed by the secret the first of them made in the database.
      const tenant = metricsTenantLabel(await readMetricsLabelKey(c.ds.manager, Date.now()), c.tenant.id);
      const recorded = await waitFor(async () => (await prometheus.query('baton:tenant_due_runs:max')).find((s) => s.metric.tenant === tenant), {
        timeoutMs: 20_000,
        what: `baton:tenant_due_runs:max{tenant="${tenant}"} recorded`,
      });
      expect(recorded.metric).toEqual({ __name__: 'baton:tenant_due_runs:max', tenant });
      expect(recorded.value[1]).toBe('0');
      // The cluster-wide one over the outbox gauges: nothing waits.
      const outbox = await waitFor(async () => (await prometheus.query('baton:alarm_outbox_oldest_age_seconds:max'))[0], { timeoutMs: 10_000, what: 'baton:alarm_outbox_oldest_age_seconds:max recorded' });
      expect(outbox.value[1]).toBe('0');
      expect((await prometheus.alerts()).filter((a) => a.labels.alertname === ALERT)).toEqual([]);

      await stopped.stop();
      const firing = await waitFor(async () => {
        const alerts = (await prometheus.alerts()).filter((a) => a.labels.alertname === ALERT && a.state === 'firing');
        return alerts.length > 0 && alerts;
      }, {
        timeoutMs: 20_000,
        what: `${ALERT} firing`,
        detail: async () => JSON.stringify(await prometheus.alerts()),
      });
      expect(firing.map((a) => [a.labels.instance, a.labels.job, a.labels.severity])).toEqual([[target(stopped.url), 'baton-engine', 'critical']]);
      expect(await up(target(live.url))()).toBe('1');
    } finally {
      await prometheus.stop();
    }
  });
});
