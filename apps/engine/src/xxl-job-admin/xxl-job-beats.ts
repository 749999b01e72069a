import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '@baton/domain';
import { refreshExecutorHeartbeat } from '@baton/persistence';
import { PeriodicLoop } from '../common/periodic-loop';
import type { NodeWorker } from '../common/node-workers';
import { ExecutorRegistry } from '../executors/executor-registry';
import { HeartbeatService } from '../executors/heartbeat.service';
import { XxlJobClient } from '../executors/xxl-job-client';
import { TenantDirectory } from '../tenants/tenant-directory';

/**
 * XXL-JOB executors register every 30 s, and Baton declares an executor DOWN after
 * BATON_EXECUTOR_DEAD_AFTER_MS (10 s) of silence: so engines `beat` the UP XXL-JOB executors of
 * their tenants at the heartbeat interval Baton executors are given, and an executor that answers
 * stays UP (its heartbeat refreshed, as if it had sent one). One that does not is left to the
 * watchdog (EXECUTOR_DOWN, its runs reconciled) and comes back with its next registration; one
 * that removed itself meanwhile stays DOWN (refreshExecutorHeartbeat touches UP rows only).
 */
@Injectable()
export class XxlJobBeats implements NodeWorker {
  private readonly logger = new Logger('XxlJobBeats');
  private readonly loop: PeriodicLoop;
  private readonly periodMs: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly registry: ExecutorRegistry,
    private readonly tenants: TenantDirectory,
    private readonly client: XxlJobClient,
    @Inject(CLOCK) private readonly clock: Clock,
    heartbeats: HeartbeatService,
  ) {
    this.periodMs = heartbeats.intervalMs;
    this.loop = new PeriodicLoop('xxl-job-beats', this.periodMs, () => this.turn(), this.logger);
  }

  start(): void {
    this.loop.start(this.periodMs);
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
        await refreshExecutorHeartbeat(this.dataSource.manager, { executorId: executor.id, now: this.clock.now() });
      }),
    );
  }
}
