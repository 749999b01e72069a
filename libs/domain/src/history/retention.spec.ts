import { describe, expect, it } from 'vitest';
import { MAX_PURGE_PERIOD_MS, purgePeriodMs, taskRetention, tenantRetention, validateRetention } from './retention';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const CEILING = { runsMs: 30 * DAY, logsMs: 7 * DAY, alarmsMs: 30 * DAY, minRunsKept: 100 };

describe('retention: the floor of newest runs kept stays under the ceiling', () => {
  it("refuses a minRunsKept above the ceiling's, naming the field and the ceiling", () => {
    expect(validateRetention({ runsMs: null, minRunsKept: 100_000 }, CEILING)).toEqual([
      { field: 'minRunsKept', reason: "must be an integer from 0 to 100, the cluster's ceiling (BATON_MAX_RUNS_KEPT), or null" },
    ]);
    expect(validateRetention({ runsMs: null, minRunsKept: 100 }, CEILING)).toEqual([]);
  });

  it('applies a policy stored before the ceiling was lowered within it, for the tenant and its tasks', () => {
    const tenant = tenantRetention(CEILING, { runsMs: null, minRunsKept: 5000 });
    expect(tenant.minRunsKept).toBe(100);
    expect(taskRetention(CEILING, tenant, { runsMs: null, minRunsKept: 70_000 }).minRunsKept).toBe(100);
    expect(taskRetention(CEILING, tenant, { runsMs: null, minRunsKept: 3 }).minRunsKept).toBe(3);
  });
});

describe('retention: how often a tenant is purged', () => {
  const MINUTE = 60_000;
  it('purges every tenth of the shortest retention, at most every 10 minutes', () => {
    expect(purgePeriodMs(HOUR, 10_000)).toBe(6 * MINUTE);
    expect(purgePeriodMs(7 * DAY, 10_000)).toBe(MAX_PURGE_PERIOD_MS);
    expect(purgePeriodMs(100 * MINUTE, 10_000)).toBe(MAX_PURGE_PERIOD_MS);
    expect(purgePeriodMs(100 * MINUTE - 10, 10_000)).toBe(10 * MINUTE - 1);
  });

  it("never sooner than the history job's own period", () => {
    expect(purgePeriodMs(MINUTE, 10_000)).toBe(10_000);
    expect(purgePeriodMs(MINUTE, 1_000)).toBe(6_000);
    expect(purgePeriodMs(7 * DAY, 20 * MINUTE)).toBe(20 * MINUTE);
  });
});
