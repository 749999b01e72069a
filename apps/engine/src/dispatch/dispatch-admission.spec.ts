import { describe, expect, it } from 'vitest';
import type { EngineConfig } from '../config/engine-config';
import { aClaimedRun } from '../testing/claimed-run-fixture';
import type { TenantDirectory, TenantInfo } from '../tenants/tenant-directory';
import { DispatchAdmission, TENANT_READ_WAIT_MS, TOKEN_STEP_MS } from './dispatch-admission';

/** The directory as admission reads it: rows read so far (null: read, and absent), and the reads asked for. */
function directory(config: Partial<EngineConfig> = {}) {
  const rows = new Map<string, Pick<TenantInfo, 'ratePerSec' | 'burst'> | null>();
  const asked: string[] = [];
  const fake = {
    hasRead: (id: string) => rows.has(id),
    peek: (id: string) => rows.get(id) ?? undefined,
    prefetch: (ids: Iterable<string>) => asked.push(...ids),
  };
  return { rows, asked, admission: new DispatchAdmission({ taskRatePerSec: 0, taskBurst: 1, ...config } as EngineConfig, fake as unknown as TenantDirectory) };
}

describe('DispatchAdmission', () => {
  it("a tenant's first runs wait for its row, then go by its own rate (5/s, burst 1), not by the defaults'", () => {
    const { rows, asked, admission } = directory();
    const runs = [1, 2, 3].map((id) => aClaimedRun(id, 1_000));
    expect(runs.map((run) => admission.takeTokens(run, 1_000))).toEqual([TENANT_READ_WAIT_MS, TENANT_READ_WAIT_MS, TENANT_READ_WAIT_MS]);
    expect(asked).toEqual(['acme', 'acme', 'acme']);
    rows.set('acme', { ratePerSec: 5, burst: 1 });
    expect(admission.takeTokens(runs[0], 1_005)).toBe(0);
    expect(admission.takeTokens(runs[1], 1_005)).toBe(195); // its token is there at 1,200 (the buckets' clock read to the step: 1,000)
    expect(admission.takeTokens(runs[1], 1_200)).toBe(0);
  });

  it('a paced task’s runs get their tokens a step at a time: those waiting go out together at the step, at the same rate', () => {
    const { rows, admission } = directory({ taskRatePerSec: 500, taskBurst: 1_000 });
    rows.set('acme', { ratePerSec: 100_000, burst: 100_000 });
    const run = (id: number) => aClaimedRun(id, 1_000, { taskId: 7 });
    let taken = 0;
    while (admission.takeTokens(run(taken), 1_000) === 0) taken++;
    expect(taken).toBe(1_000); // the task's burst
    // 20 more runs in line at 1,003 (a pump's `ahead`): a token every 2 ms, each run waits until the step its token is in.
    const waits = Array.from({ length: 20 }, (_, ahead) => 1_003 + admission.takeTokens(run(2_000 + ahead), 1_003, ahead));
    expect(new Set(waits)).toEqual(new Set([1_000 + TOKEN_STEP_MS, 1_000 + 2 * TOKEN_STEP_MS]));
    expect(waits.filter((at) => at === 1_000 + TOKEN_STEP_MS)).toHaveLength(12); // tokens at 1,002 … 1,024
    // At the step, a step's worth is there at once; one more waits for the next step.
    const atStep = Array.from({ length: 13 }, (_, i) => admission.takeTokens(run(3_000 + i), 1_000 + TOKEN_STEP_MS));
    expect(atStep.filter((w) => w === 0)).toHaveLength(12);
    expect(atStep[12]).toBe(TOKEN_STEP_MS);
  });

  it('a burst that holds less than a step’s refill gets a shorter step: no token is lost to its cap', () => {
    const { rows, admission } = directory();
    rows.set('acme', { ratePerSec: 1_000, burst: 10 }); // 10 tokens hold 10 ms of refill
    const run = (id: number) => aClaimedRun(id, 1_000);
    let sent = 0;
    for (let now = 1_000; now < 2_000; now++) while (admission.takeTokens(run(sent), now) === 0) sent++;
    expect(sent).toBeGreaterThanOrEqual(1_000); // the burst, then 1,000 a second (a 25 ms step would cap it at 10 per 25 ms)
  });

  it('says a tenant is out of tokens while its bucket is empty: not before its first run took one, nor once a token is back', () => {
    const { rows, admission } = directory();
    rows.set('acme', { ratePerSec: 5, burst: 1 });
    expect(admission.outOfTokens('acme', 1_000)).toBe(false);
    expect(admission.takeTokens(aClaimedRun(1, 1_000), 1_000)).toBe(0);
    expect(admission.outOfTokens('acme', 1_000)).toBe(true);
    expect(admission.outOfTokens('acme', 1_199)).toBe(true);
    expect(admission.outOfTokens('acme', 1_200)).toBe(false);
  });

  it('a tenant read as absent is not held for its row: its runs go to dispatch, which defers them', () => {
    const { rows, admission } = directory();
    rows.set('acme', null);
    expect(admission.takeTokens(aClaimedRun(1, 1_000), 1_000)).toBe(0);
  });
});
