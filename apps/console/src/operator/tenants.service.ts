import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { normalizeExecutorNetworks, validateExecutorNetworks } from '@baton/domain';
import {
  endPasswordSessionsOfTenant,
  findEngineGroup,
  findTenant,
  insertTenant,
  inTransaction,
  isUniqueViolation,
  listEngineNodes,
  listTenants,
  metricsTenantLabel,
  moveTenantGroup,
  readMetricsLabelKey,
  TenantEntity,
  tenantExists,
  updateTenant,
} from '@baton/persistence';
import { badRequest, conflict, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { ENGINE_SILENT_MS, liveEnginesOf } from '../common/live-engines';
import { newExecutorSecret } from '../common/secrets';
import { auditChange } from '../audit';
import { userView, UsersService } from '../users/users.service';
import { CreatedTenantView, CreateTenantDto, DEFAULT_ENGINE_GROUP, TenantView, UpdateTenantDto } from './dto/operator.dto';

export function tenantView(row: TenantEntity, withSecret: boolean): TenantView {
  return {
    id: row.id,
    name: row.name,
    engineGroup: row.engineGroup,
    ratePerSec: row.ratePerSec,
    burst: row.burst,
    claimShare: row.claimShare,
    executorNetworks: row.executorNetworks ?? null,
    backlogAlarmMs: row.backlogAlarmMs ?? null,
    // Boolean(): MySQL hands back the TINYINT.
    ssoRequired: Boolean(row.ssoRequired),
    createdAt: row.createdAt,
    ...(withSecret ? { executorSecret: row.executorSecret } : {}),
  };
}

@Injectable()
export class TenantsService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly users: UsersService,
  ) {}

  async list(): Promise<TenantView[]> {
    const rows = await listTenants(this.dataSource.manager);
    const label = await this.metricsLabels();
    return rows.map((row) => ({ ...tenantView(row, false), metricsLabel: label(row.id) }));
  }

  async get(id: string): Promise<TenantView> {
    const row = await findTenant(this.dataSource.manager, id);
    if (!row) throw notFound('Tenant', id);
    return { ...tenantView(row, false), metricsLabel: (await this.metricsLabels())(row.id) };
  }

  /**
   * A tenant's `tenant` label on an engine's open `/metrics`, for the operator to read a label back
   * to its tenant: keyed with the cluster's secret, as the engines label it (made here if no engine
   * has yet). Only in the operator's list and get, not in the tenant's audit records.
   */
  private async metricsLabels(): Promise<(tenantId: string) => string> {
    const key = await readMetricsLabelKey(this.dataSource.manager, this.clock.now());
    return (tenantId) => metricsTenantLabel(key, tenantId);
  }

  /**
   * Creates a tenant and, with `admin`, its first TENANT_ADMIN in the same transaction: a bad
   * admin stores no tenant (user names are unique per tenant, so a new tenant's are all free). The engine group must exist; it is not invented
   * here, because a group no engine serves would silently never run the tenant's tasks. An
   * engine creates the groups it serves when it starts.
   */
  async create(dto: CreateTenantDto): Promise<CreatedTenantView> {
    const engineGroup = dto.engineGroup ?? DEFAULT_ENGINE_GROUP;
    const executorNetworks = checkedNetworks(dto.executorNetworks) ?? null;
    const duplicate = () => conflict(`Tenant "${dto.id}" already exists`, [{ field: 'id', reason: 'already exists' }]);
    const admin = dto.admin ? await this.users.newRow({ ...dto.admin, role: 'TENANT_ADMIN', tenantId: dto.id }) : undefined;
    try {
      return await inTransaction(this.dataSource, async (em) => {
        if (!(await findEngineGroup(em, engineGroup))) {
          throw badRequest([{ field: 'engineGroup', reason: noEngineGroup(engineGroup) }]);
        }
        if (await tenantExists(em, dto.id)) throw duplicate();
        const row = Object.assign(new TenantEntity(), {
          id: dto.id,
          name: dto.name,
          engineGroup,
          executorSecret: newExecutorSecret(),
          ratePerSec: dto.ratePerSec ?? 1000,
          burst: dto.burst ?? 2000,
          claimShare: dto.claimShare ?? 1,
          executorNetworks,
          createdAt: this.clock.now(),
        });
        await insertTenant(em, row);
        if (admin) await this.users.insert(em, admin, { username: 'admin.username' });
        const created = { ...tenantView(row, true), ...(admin ? { admin: userView(admin) } : {}) };
        await auditChange(em, { tenantId: row.id, objectType: 'tenant', objectId: row.id, after: created });
        return created;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicate();
      throw error;
    }
  }

  /**
   * Updates a tenant; a new engine group is copied onto its tasks and its runs not ended yet in the
   * same transaction (moveTenantGroup). A group no live engine serves is refused (409 naming
   * engineGroup) unless `allowUnserved`: the tenant's schedules would stop there without a word,
   * its runs waiting until an engine serving the group starts.
   */
  async update(id: string, dto: UpdateTenantDto): Promise<TenantView> {
    const executorNetworks = checkedNetworks(dto.executorNetworks);
    return inTransaction(this.dataSource, async (em) => {
      const row = await findTenant(em, id);
      if (!row) throw notFound('Tenant', id);
      const before = tenantView(row, false);
      if (dto.engineGroup !== undefined && dto.engineGroup !== row.engineGroup) {
        if (!(await findEngineGroup(em, dto.engineGroup))) {
          throw badRequest([{ field: 'engineGroup', reason: noEngineGroup(dto.engineGroup) }]);
        }
        if (dto.allowUnserved !== true && liveEnginesOf(await listEngineNodes(em), dto.engineGroup, this.clock.now()) === 0) {
          throw conflict(`Tenant "${id}" not moved: no live engine serves engine group "${dto.engineGroup}"`, [{ field: 'engineGroup', reason: unservedGroup(dto.engineGroup) }]);
        }
        await moveTenantGroup(em, { tenantId: id, engineGroup: dto.engineGroup, now: this.clock.now() });
        row.engineGroup = dto.engineGroup;
      }
      if (dto.name !== undefined) row.name = dto.name;
      if (dto.ratePerSec !== undefined) row.ratePerSec = dto.ratePerSec;
      if (dto.burst !== undefined) row.burst = dto.burst;
      if (dto.claimShare !== undefined) row.claimShare = dto.claimShare;
      if (executorNetworks !== undefined) row.executorNetworks = executorNetworks;
      if (dto.backlogAlarmMs !== undefined) row.backlogAlarmMs = dto.backlogAlarmMs;
      // Password sessions of the tenant end with password logins: its users come back through SSO.
      if (dto.ssoRequired === true && !row.ssoRequired) await endPasswordSessionsOfTenant(em, id);
      if (dto.ssoRequired !== undefined) row.ssoRequired = dto.ssoRequired;
      await updateTenant(em, row);
      await auditChange(em, { tenantId: id, objectType: 'tenant', objectId: id, before, after: tenantView(row, false) });
      return tenantView(row, false);
    });
  }
}

/**
 * The executor networks as stored (trimmed, lower-cased, no repeats), null to allow any URL, or
 * undefined when the request leaves them alone; 400 naming each bad entry. Engines read the new
 * list within their tenant cache's few seconds, and refuse heartbeats and dispatches by it.
 */
function checkedNetworks(value: string[] | null | undefined): string[] | null | undefined {
  if (value === undefined) return undefined;
  const errors = validateExecutorNetworks(value);
  if (errors.length > 0) throw badRequest(errors);
  return normalizeExecutorNetworks(value);
}

function unservedGroup(name: string): string {
  return (
    `no live engine serves engine group "${name}" (none UP with a heartbeat in the last ${ENGINE_SILENT_MS / 1000} s): the tenant's tasks would stop firing there. ` +
    `Start an engine with "${name}" in BATON_ENGINE_GROUPS first, or send allowUnserved: true to move it anyway`
  );
}

function noEngineGroup(name: string): string {
  return `no engine group "${name}": an engine serving it (BATON_ENGINE_GROUPS) creates it when it starts, or create it with POST /api/operator/engine-groups`;
}
