import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EngineConfig } from '../../apps/engine/src/config/engine-config';
import type { HttpResponse } from '../../apps/engine/src/http/http-response';
import { MetricsController } from '../../apps/engine/src/http/metrics.controller';
import { EngineMetrics } from '../../apps/engine/src/metrics/engine-metrics';

/** Baton's own metrics (not prom-client's process and Node ones): name → type, from the `# TYPE` lines of an engine's /metrics text. */
async function ownMetrics(): Promise<Map<string, string>> {
  const text = await new EngineMetrics({ defaultMetrics: false }).registry.metrics();
  return new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]));
}

/** The rows of docs/OPERATIONS.md's metrics table: name → type. */
function documentedMetrics(): Map<string, string> {
  const doc = readFileSync(join(__dirname, '../../docs/OPERATIONS.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Metrics (Prometheus)'), doc.indexOf('## Alerting rules (Prometheus)'));
  return new Map([...section.matchAll(/^\| `(baton_engine_\w+)` \| (\w+) \|/gm)].map((m) => [m[1], m[2]]));
}

describe("the engine's metrics", () => {
  it("follow Prometheus's naming: the baton_engine_ prefix, counters in _total and only they, times in seconds", async () => {
    const metrics = await ownMetrics();
    expect(metrics.size).toBeGreaterThan(20);
    for (const [name, type] of metrics) {
      expect(name, name).toMatch(/^baton_engine_[a-z0-9_]+$/);
      expect(name.endsWith('_total'), `${name} (${type})`).toBe(type === 'counter');
      expect(name, name).not.toMatch(/_(ms|millis|milliseconds|minutes|hours)(_|$)/);
    }
  });

  it('are each in the table of docs/OPERATIONS.md "Metrics", with its type, and the table names no other', async () => {
    expect(documentedMetrics()).toEqual(await ownMetrics());
  });

  it("pass promtool check metrics whole, as GET /metrics serves them: Baton's own with samples, and prom-client's process and Node ones", async () => {
    const metrics = new EngineMetrics();
    metrics.runsFired.inc();
    metrics.dispatchFailures.inc({ reason: 'BUSY' });
    metrics.claimDuration.observe({ kind: 'runs' }, 0.004);
    const controller = new MetricsController(metrics, { metricsToken: null } as EngineConfig);
    const text = await controller.metricsText(undefined, { setHeader: () => undefined } as unknown as HttpResponse);
    expect(text).toContain('baton_engine_process_cpu_seconds_total');
    expect(text).toContain('# TYPE baton_engine_nodejs_active_handles gauge');
    const lint = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect({ status: lint.status, problems: `${lint.stdout}${lint.stderr}`.trim() }).toEqual({ status: 0, problems: '' });
  });
});
