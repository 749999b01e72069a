import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { findTenant, inTransaction, listEngineNodes, rotateExecutorSecret, tenantAppNames, TenantEntity } from '@baton/persistence';
import { auditChange } from '../audit';
import { conflict, notFound } from '../common/api-error';
import { CLOCK, type Clock } from '../common/clock';
import { newExecutorSecret } from '../common/secrets';
import { DEFAULT_SECRET_OVERLAP_SECONDS, type ExecutorConnectionView, type RotatedExecutorSecretView } from './dto/executor-secret.dto';
import type { ExecutorSecretStatus } from '../api-types';

/**
 * A tenant's executor secret: rotation with an overlap window, and what an executor needs to
 * connect. The engines accept the previous secret until `previous_secret_expires_at` and sign
 * to each executor with the secret of its latest heartbeat (apps/engine/src/security/executor-secrets.ts).
 */
@Injectable()
export class ExecutorSecretService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * A new secret; the current one becomes the previous one, valid `overlapSeconds` more (0:
   * dropped now). A secret that was still "previous" from an earlier rotation is dropped at
   * once: a tenant has at most two valid secrets. The update is guarded by the version read, so
   * two rotations at the same moment cannot both win (the second gets 409).
   */
  async rotate(tenantId: string, overlapSeconds = DEFAULT_SECRET_OVERLAP_SECONDS): Promise<RotatedExecutorSecretView> {
    const row = await findTenant(this.dataSource.manager, tenantId);
    if (!row) throw notFound('Tenant', tenantId);
    const executorSecret = newExecutorSecret();
    const secretVersion = row.executorSecretVersion + 1;
    const previousSecretExpiresAt = overlapSeconds > 0 ? this.clock.now() + overlapSeconds * 1000 : null;
    await inTransaction(this.dataSource, async (em) => {
      const rotated = await rotateExecutorSecret(em, {
        tenantId,
        readVersion: row.executorSecretVersion,
        executorSecret,
        previousExecutorSecret: previousSecretExpiresAt === null ? null : row.executorSecret,
        previousSecretExpiresAt,
      });
      if (!rotated) throw conflict(`The executor secret of tenant "${tenantId}" was rotated meanwhile: reload and try again`);
      await auditChange(em, {
        tenantId,
        objectType: 'executor-secret',
        objectId: tenantId,
        before: { secretVersion: row.executorSecretVersion },
        after: { secretVersion, overlapSeconds, previousSecretExpiresAt },
      });
    });
    return { tenantId, executorSecret, secretVersion, previousSecretExpiresAt };
  }

  /** Engine URLs (UP engines of the tenant's group), app names and the secret's state, for the "Connect an executor" panel. */
  async connection(tenantId: string): Promise<ExecutorConnectionView> {
    const em = this.dataSource.manager;
    const tenant = await findTenant(em, tenantId);
    if (!tenant) throw notFound('Tenant', tenantId);
    const nodes = await listEngineNodes(em);
    const engineUrls = nodes.filter((n) => n.state === 'UP' && n.groups.split(',').map((g) => g.trim()).includes(tenant.engineGroup)).map((n) => n.url);
    return {
      tenantId,
      engineGroup: tenant.engineGroup,
      engineUrls: [...new Set(engineUrls)],
      apps: await tenantAppNames(em, tenantId),
      secretVersion: tenant.executorSecretVersion,
      previousSecretExpiresAt: this.liveExpiry(tenant),
    };
  }

  /** Whether an executor whose latest heartbeat was verified by `secretVersion` has the secret it needs. */
  statusOf(tenant: TenantEntity, secretVersion: number | null): ExecutorSecretStatus {
    if (secretVersion === null) return 'UNKNOWN';
    if (secretVersion === tenant.executorSecretVersion) return 'CURRENT';
    if (secretVersion === tenant.executorSecretVersion - 1 && this.liveExpiry(tenant) !== null) return 'PREVIOUS';
    return 'OUTDATED';
  }

  private liveExpiry(tenant: TenantEntity): number | null {
    return tenant.previousExecutorSecret && tenant.previousSecretExpiresAt !== null && this.clock.now() < tenant.previousSecretExpiresAt ? tenant.previousSecretExpiresAt : null;
  }
}
