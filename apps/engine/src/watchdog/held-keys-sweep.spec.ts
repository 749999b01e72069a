import type { DataSource } from 'typeorm';
import { describe, expect, it } from 'vitest';
import type { RunKeyRef } from '@baton/persistence';
import { useTestDatabase } from '../../../../test/support/databases';
import type { KeyAdmissions } from '../runs/key-admissions';
import { seedRun, seedTask, seedTenant } from '../testing/dispatch-side-kit';
import { HeldKeysSweep } from './held-keys-sweep';

/** Two tenants' keys with HELD runs. */
async function heldKeys(ds: DataSource): Promise<void> {
  for (const tenant of ['acme', 'globex']) {
    await seedTenant(ds, { id: tenant });
    const task = await seedTask(ds, { name: 'sync', tenantId: tenant });
    const id = await seedRun(ds, task, { state: 'HELD', claimedBy: null });
    await ds.query("UPDATE runs SET run_key = 'c1', key_scope = ? WHERE id = ?", [`t:${task.id}`, id]);
  }
}

describe('the held-keys sweep (sqlite)', () => {
  const db = useTestDatabase('sqlite');

  it("releases every key it finds though one key's release fails: one tenant's broken key never holds back another's", async () => {
    await db.clear();
    await heldKeys(db.dataSource);
    const asked: string[] = [];
    const keys = {
      release: async (ref: RunKeyRef) => {
        asked.push(ref.tenantId);
        if (ref.tenantId === 'acme') throw new Error('a broken bound');
        return 1;
      },
    } as unknown as KeyAdmissions;
    const sweep = new HeldKeysSweep(db.dataSource, keys);
    expect(await sweep.tick()).toBe(1);
    expect(asked.sort()).toEqual(['acme', 'globex']);
  });
});
