import { describe, expect, it } from 'vitest';
import type { EngineConfig } from '../config/engine-config';
import { aClaimedRun } from '../testing/claimed-run-fixture';
import type { TenantDirectory, TenantInfo } from '../tenants/tenant-directory';
import { DispatchAdmission, TENANT_READ_WAIT_MS } from './dispatch-admission';

/** The directory as admission reads it: rows read so far (null: read, and absent), and the reads asked for. */
function directory() {
  const rows = new Map<string, Pick<TenantInfo, 'ratePerSec' | 'burst'> | null>();
  const asked: string[] = [];
  const fake = {
    hasRead: (id: string) => rows.has(id),
    peek: (id: string) => rows.get(id) ?? undefined,
    prefetch: (ids: Iterable<string>) => asked.push(...ids),
  };
  return { rows, asked, admission: new DispatchAdmission({ taskRatePerSec: 0, taskBurst: 1 } as EngineConfig, fake as unknown as TenantDirectory) };
}

describe('DispatchAdmission', () => {
  it("a tenant's first runs wait for its row, then go by its own rate (5/s, burst 1), not by the defaults'", () => {
    const { rows, asked, admission } = directory();
    const runs = [1, 2, 3].map((id) => aClaimedRun(id, 1_000));
    expect(runs.map((run) => admission.takeTokens(run, 1_000))).toEqual([TENANT_READ_WAIT_MS, TENANT_READ_WAIT_MS, TENANT_READ_WAIT_MS]);
    expect(asked).toEqual(['acme', 'acme', 'acme']);
    rows.set('acme', { ratePerSec: 5, burst: 1 });
    expect(admission.takeTokens(runs[0], 1_005)).toBe(0);
    expect(admission.takeTokens(runs[1], 1_005)).toBe(200);
    expect(admission.takeTokens(runs[1], 1_205)).toBe(0);
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
