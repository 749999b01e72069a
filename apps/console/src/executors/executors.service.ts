import { Inject, Injectable } from '@nestjs/common';
import { redactParamsSchema, type JsonValue } from '@baton/domain';
import { DataSource } from 'typeorm';
import { countSentAheadByExecutor, deleteDownExecutor, ExecutorEntity, findExecutor, findTenant, inTransaction, listExecutors, TenantEntity } from '@baton/persistence';
import { auditChange } from '../audit';
import { conflict, notFound } from '../common/api-error';
import { CLOCK, type Clock } from '../common/clock';
import type { ExecutorQuery, ExecutorView } from './dto/executor.dto';
import { ExecutorSecretService } from './executor-secret.service';

/** Whether the caller sees secret-named values in clear (seesSecretValues). */
export interface ShownValues {
  secretValues: boolean;
}

@Injectable()
export class ExecutorsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly secrets: ExecutorSecretService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The tenant's executors; `shown.secretValues` false (a viewer): their handlers' params schemas redacted (redactParamsSchema). */
  async list(tenantId: string, query: ExecutorQuery, shown: ShownValues): Promise<ExecutorView[]> {
    const rows = await listExecutors(this.dataSource.manager, tenantId, { app: query.app, state: query.state });
    const tenant = await this.tenant(tenantId);
    const sentAhead = await this.sentAhead(tenant);
    return rows.map((row) => this.view(row, tenant, sentAhead, shown));
  }

  async get(tenantId: string, id: number, shown: ShownValues): Promise<ExecutorView> {
    const row = await findExecutor(this.dataSource.manager, tenantId, id);
    if (!row) throw notFound('Executor', id);
    const tenant = await this.tenant(tenantId);
    return this.view(row, tenant, await this.sentAhead(tenant), shown);
  }

  /**
   * Removes a DOWN executor's row (a stopped or vanished process that would otherwise stay listed
   * for good); 409 for an UP one — it would register again at its next heartbeat anyway.
   */
  async remove(tenantId: string, id: number): Promise<void> {
    await inTransaction(this.dataSource, async (em) => {
      const row = await findExecutor(em, tenantId, id);
      if (!row) throw notFound('Executor', id);
      if (!(await deleteDownExecutor(em, { tenantId, executorId: id }))) {
        // Refused by the guarded delete: the state it saw, not the one read before it.
        const state = (await findExecutor(em, tenantId, id))?.state ?? row.state;
        throw conflict(`Executor ${id} (${row.app} at ${row.url}) is ${state}: only a DOWN executor can be removed`, [{ field: 'state', reason: `is ${state}, not DOWN` }]);
      }
      await auditChange(em, { tenantId, objectType: 'executor', objectId: id, before: { app: row.app, url: row.url, state: row.state, heartbeatAt: row.heartbeatAt } });
    });
  }

  private async tenant(tenantId: string): Promise<TenantEntity> {
    const tenant = await findTenant(this.dataSource.manager, tenantId);
    if (!tenant) throw notFound('Tenant', tenantId);
    return tenant;
  }

  /** The runs sent ahead to each of the tenant's executors that wait there for their instant: its reported in-flight figure counts them, its load does not. */
  private sentAhead(tenant: TenantEntity): Promise<Map<number, number>> {
    return countSentAheadByExecutor(this.dataSource.manager, { tenantId: tenant.id, engineGroup: tenant.engineGroup, now: this.clock.now() });
  }

  private view(row: ExecutorEntity, tenant: TenantEntity, sentAhead: ReadonlyMap<number, number>, shown: ShownValues): ExecutorView {
    const schemas = (row.handlerSchemas ?? {}) as Record<string, JsonValue>;
    return {
      id: row.id,
      app: row.app,
      url: row.url,
      capacity: row.capacity,
      inFlight: row.inFlight,
      sentAhead: sentAhead.get(row.id) ?? 0,
      state: row.state,
      registeredAt: row.registeredAt,
      heartbeatAt: row.heartbeatAt,
      stoppedAt: row.stoppedAt,
      handlers: row.handlers ?? [],
      handlerSchemas: shown.secretValues ? schemas : Object.fromEntries(Object.entries(schemas).map(([handler, schema]) => [handler, redactParamsSchema(schema) as JsonValue])),
      secret: this.secrets.statusOf(tenant, row.secretVersion),
      wire: row.wire,
    };
  }
}
