import type { EntityManager } from 'typeorm';
import { execute } from '../sql';
import type { RunKeyRef } from './lock-run-key';

/** The statement (exported so the plan test EXPLAINs this very text). */
export const FIND_HELD_KEYS_SQL = `SELECT DISTINCT tenant_id, key_scope, run_key FROM runs
  WHERE state = 'HELD' AND tenant_id > ? ORDER BY tenant_id, key_scope, run_key LIMIT ?`;

/**
 * Keys with held runs, tenant by tenant from `afterTenant` on — the sweep that gives free places
 * to held runs when no run's end did (a run ended some other way than by its callback — a
 * timeout, a cancel by hand —, or an engine died between a run's end and the release):
 *
 *   SELECT DISTINCT tenant_id, key_scope, run_key FROM runs
 *    WHERE state = 'HELD' AND tenant_id > ? ORDER BY tenant_id, key_scope, run_key LIMIT ?
 *
 * On ix_runs_key (state, tenant_id, key_scope, run_key), in its order: a loose index scan, one step
 * per key with held runs however many runs each holds (10,000 held on one key cost one step).
 * The caller moves `afterTenant` on from call to call, so every tenant's keys come in turn.
 */
export async function findHeldKeys(manager: EntityManager, input: { afterTenant: string; limit: number }): Promise<RunKeyRef[]> {
  const { rows } = await execute<Record<string, unknown>>(manager, FIND_HELD_KEYS_SQL, [input.afterTenant, input.limit]);
  return rows.map((r) => ({ tenantId: String(r.tenant_id), scope: String(r.key_scope), key: String(r.run_key ?? '') }));
}
