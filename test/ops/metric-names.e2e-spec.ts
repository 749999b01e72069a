import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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
});
