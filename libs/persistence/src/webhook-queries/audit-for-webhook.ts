import type { EntityManager } from 'typeorm';
import { listAuditRecordsById, type AuditRow } from '../audit-queries/list-audit-records';

/** The audit records a batch of deliveries carries, by id (a record purged meanwhile is absent). */
export async function findAuditRecordsForWebhooks(manager: EntityManager, auditIds: readonly number[]): Promise<Map<number, AuditRow>> {
  const rows = await listAuditRecordsById(manager, [...new Set(auditIds)]);
  return new Map(rows.map((r) => [r.id, r]));
}
