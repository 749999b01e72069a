import { Injectable, Logger } from '@nestjs/common';
import { PeriodicLoop } from '../common/periodic-loop';
import type { NodeWorker } from '../common/node-workers';
import { ExecutorRegistry } from '../executors/executor-registry';
import { HeartbeatService } from '../executors/heartbeat.service';
import { XxlJobClient } from '../executors/xxl-job-client';
import { TenantDirectory } from '../tenants/tenant-directory';
import { XXL_JOB_EXECUTOR_CAPACITY } from './xxl-job-admin.service';

/**
 * XXL-JOB executors register every 30 s, and Baton declares an executor DOWN after
 * BATON_EXECUTOR_DEAD_AFTER_MS (10 s) of silence: so engines `beat` the UP XXL-JOB executors of
 * their tenants at the heartbeat interval Baton executors are given, and an executor that answers
 * stays UP (its heartbeat refreshed, as if it had sent one). One that does not is left to the
 * watchdog (EXECUTOR_DOWN, its runs reconciled) and comes back with its next registration.
 */
@Injectable()
export class XxlJobBeats implements NodeWorker {
  private readonly logger = new Logger('XxlJobBeats');
  private readonly loop: PeriodicLoop;

  constructor(
    private readonly registry: ExecutorRegistry,
    private readonly tenants: TenantDirectory,
    private readonly client: XxlJobClient,
    private readonly heartbeats: HeartbeatService,
  ) {
    this.loop = new PeriodicLoop('xxl-job-beats', heartbeats.intervalMs, () => this.turn(), this.logger);
  }

  start(): void {
    this.loop.start(this.heartbeats.intervalMs);
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async turn(): Promise<void> {
    await this.registry.ensureFresh();
    await Promise.all(
      this.registry.xxlJobExecutors().map(async (executor) => {
        const tenant = await this.tenants.get(executor.tenantId);
        if (!tenant?.xxlJobAccessToken || !(await this.client.beat(executor.url, tenant))) return;
        await this.heartbeats.record(
          { tenantId: executor.tenantId, app: executor.app, url: executor.url, capacity: XXL_JOB_EXECUTOR_CAPACITY, inFlight: 0, handlers: [], protocolVersion: 1 },
          tenant.executorSecretVersion,
          'xxl-job',
        );
      }),
    );
  }
}
