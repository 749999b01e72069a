import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '@baton/domain';
import { findRunExecutor, inTransaction, markExecutorStopped } from '@baton/persistence';
import { runOfXxlLogId, xxlCallbackOf, xxlLogLines, type LogLine, type XxlHandleCallbackParam, type XxlRegistryParam } from '@baton/protocol';
import { CallbacksService } from '../callbacks/callbacks.service';
import { ClusterAddressGuard } from '../executors/cluster-address-guard';
import { HeartbeatService } from '../executors/heartbeat.service';
import { XxlJobClient } from '../executors/xxl-job-client';
import type { TenantInfo } from '../tenants/tenant-directory';

/**
 * Worker threads an XXL-JOB executor is counted with: xxl-job-core states none (one thread per
 * job, up to 200 requests served at once), so engines credit it this many runs in flight at
 * most — flow control still holds a tenant's burst in the engines, not on the executor.
 */
const XXL_JOB_EXECUTOR_CAPACITY = 64;

/** What a refused admin request says (ReturnT.msg); nothing was stored. */
export class XxlJobRefusal extends Error {}

/**
 * The admin side of XXL-JOB's executor protocol for one tenant (the token was checked):
 * - registry: the executor (appname, address) is registered — or refreshed — UP as an executor
 *   of app `appname`, spoken to with XXL-JOB's protocol, at an address the tenant's executor
 *   networks allow (HeartbeatService: the same registry write as a Baton heartbeat, EXECUTOR_UP
 *   alarm included);
 * - registryRemove: its graceful stop (DOWN, no EXECUTOR_DOWN alarm);
 * - callback: each ended trigger, its log pulled from the executor first, becomes the final
 *   callback of its run's attempt and takes the engine's one callback path (CallbacksService):
 *   outcome, retries, alarms, children. A stale one (the attempt is over) is taken as delivered.
 */
@Injectable()
export class XxlJobAdminService {
  private readonly logger = new Logger('XxlJobAdmin');

  constructor(
    private readonly dataSource: DataSource,
    private readonly heartbeats: HeartbeatService,
    private readonly callbacks: CallbacksService,
    private readonly client: XxlJobClient,
    private readonly guard: ClusterAddressGuard,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async registry(tenant: TenantInfo, body: unknown): Promise<void> {
    const { app, url } = this.registryOf(tenant, body);
    await this.heartbeats.record(
      { tenantId: tenant.id, app, url, capacity: XXL_JOB_EXECUTOR_CAPACITY, inFlight: 0, handlers: [], protocolVersion: 1 },
      tenant.executorSecretVersion,
      'xxl-job',
    );
  }

  async registryRemove(tenant: TenantInfo, body: unknown): Promise<void> {
    const { app, url } = this.registryOf(tenant, body);
    const now = this.clock.now();
    await inTransaction(this.dataSource, (em) => markExecutorStopped(em, { tenantId: tenant.id, app, url, now }));
  }

  /** Every callback of the body; throws (the executor retries them all) only when one could not be processed. */
  async callback(tenant: TenantInfo, params: readonly unknown[]): Promise<void> {
    for (const param of params) {
      const run = runOfXxlLogId((param as Partial<XxlHandleCallbackParam> | null)?.logId);
      const executor = run ? await findRunExecutor(this.dataSource.manager, { tenantId: tenant.id, runId: run.runId }) : null;
      const logs = run && executor?.wire === 'xxl-job' ? await this.logOf(tenant, executor.url, param as XxlHandleCallbackParam) : [];
      const callback = xxlCallbackOf(param, tenant.id, logs);
      if (!callback) {
        this.logger.warn(`XXL-JOB callback not of a run Baton sent, dropped: ${JSON.stringify(param).slice(0, 200)}`, { tenantId: tenant.id });
        continue;
      }
      // XXL-JOB reports no start: the attempt's is when its trigger was sent (a trigger queued behind its job's running one starts later).
      if (executor?.dispatchedAt != null) callback.startedAt = executor.dispatchedAt;
      const reply = await this.callbacks.handle(callback);
      if (reply.status === 409) this.logger.log(`XXL-JOB callback of an attempt that is over, ignored (${reply.body.reason}, run ${reply.body.state ?? 'unknown'})`, { tenantId: tenant.id, runId: callback.runId });
    }
  }

  /** The trigger's log lines, pulled from the executor it ran on; none when it cannot give them (the outcome is recorded all the same). */
  private async logOf(tenant: TenantInfo, url: string, param: XxlHandleCallbackParam): Promise<LogLine[]> {
    const logDateTime = Number(param.logDateTim ?? param.logDateTime ?? 0);
    const result = await this.client.log(url, tenant, param.logId, logDateTime);
    return xxlLogLines(result, this.clock.now());
  }

  private registryOf(tenant: TenantInfo, body: unknown): { app: string; url: string } {
    const { registryGroup, registryKey, registryValue } = (body ?? {}) as Partial<XxlRegistryParam>;
    if (registryGroup !== 'EXECUTOR') throw new XxlJobRefusal('registryGroup: must be EXECUTOR');
    if (typeof registryKey !== 'string' || registryKey.trim().length === 0 || registryKey.length > 100) throw new XxlJobRefusal('registryKey: the appname, 1 to 100 characters');
    if (typeof registryValue !== 'string' || registryValue.length > 500 || !/^https?:\/\//i.test(registryValue)) throw new XxlJobRefusal('registryValue: the executor address, an http(s) URL of at most 500 characters');
    const verdict = this.guard.verdict(registryValue, tenant.executorNetworks);
    if (!verdict.ok) throw new XxlJobRefusal(`registryValue: ${verdict.reason}`);
    return { app: registryKey.trim(), url: registryValue };
  }
}
