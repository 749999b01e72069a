import type { EntityManager } from 'typeorm';
import { TenantEntity } from '../../entities';

/**
 * The tenant's new executor secret, the current one kept as the previous one until
 * `previousSecretExpiresAt` (null: dropped now). Guarded by the version read, so of two rotations
 * at the same moment only one matches:
 *
 *   UPDATE tenants SET executor_secret = ?, executor_secret_version = ?, previous_executor_secret = ?, previous_secret_expires_at = ?
 *    WHERE id = ? AND executor_secret_version = ?
 *
 * True when it rotated.
 */
export async function rotateExecutorSecret(
  manager: EntityManager,
  input: { tenantId: string; readVersion: number; executorSecret: string; previousExecutorSecret: string | null; previousSecretExpiresAt: number | null },
): Promise<boolean> {
  const result = await manager.update(
    TenantEntity,
    { id: input.tenantId, executorSecretVersion: input.readVersion },
    {
      executorSecret: input.executorSecret,
      executorSecretVersion: input.readVersion + 1,
      previousExecutorSecret: input.previousExecutorSecret,
      previousSecretExpiresAt: input.previousSecretExpiresAt,
    },
  );
  return Boolean(result.affected);
}
