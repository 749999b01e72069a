import type { EntityManager } from 'typeorm';
import { execute, num, placeholders } from '../engine-queries/sql';

/**
 * The only delete of the audit log: the engines' history job purges up to `limit` records of a
 * tenant (null: records of no tenant, the operators' own) written before `before`, the operator's
 * retention ceiling (BATON_AUDIT_RETENTION_MS). No console route deletes or edits a record.
 *
 *   SELECT id FROM audit_log WHERE tenant_id = ? AND at < ? ORDER BY at LIMIT ?
 *   DELETE FROM audit_log WHERE id IN (…)
 *
 * A range of ix_audit_tenant_time (tenant_id, at, id) that ends at `before`. Returns the records deleted.
 */
export async function purgeAuditRecords(manager: EntityManager, input: { tenantId: string | null; before: number; limit: number }): Promise<number> {
  const { rows } = await execute<{ id: unknown }>(
    manager,
    `SELECT id FROM audit_log WHERE ${input.tenantId === null ? 'tenant_id IS NULL' : 'tenant_id = ?'} AND at < ? ORDER BY at LIMIT ?`,
    [...(input.tenantId === null ? [] : [input.tenantId]), input.before, input.limit],
  );
  if (rows.length === 0) return 0;
  const ids = rows.map((r) => num(r.id));
  const { affected } = await execute(manager, `DELETE FROM audit_log WHERE id IN (${placeholders(ids.length)})`, ids);
  return affected;
}
