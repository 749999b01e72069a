import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock, type ExecutorWire } from '@baton/domain';
import { inTransaction, markExecutorStopped, recordExecutorHeartbeat } from '@baton/persistence';
import type { ExecutorHeartbeat, ExecutorHeartbeatAck } from '@baton/protocol';
import { Alarms } from '../alarms/alarms';
import { ExecutorRestarts } from '../common/executor-restarts';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { executorHeartbeatIntervalMs } from './heartbeat-interval';

/**
 * The executor registry's write side: a heartbeat registers (or refreshes) the executor, UP,
 * and tells it when to call again — a third of the time after which it is declared DOWN, so
 * two heartbeats may be lost before that happens. A heartbeat that says the executor is draining
 * with nothing in flight is its graceful stop: it goes DOWN quietly (markExecutorStopped). The ack
 * carries the executor row's `handBacks`, read after this heartbeat's write (recordExecutorHeartbeat):
 * an executor of protocol 3 drops the runs it holds for later instants when it changes. Its
 * process start and what it holds go to the watchdog (ExecutorRestarts): a restart at the same URL
 * within the DOWN grace left the old process's attempts executing until their timeout.
 */
@Injectable()
export class HeartbeatService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly alarms: Alarms,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly restarts: ExecutorRestarts,
  ) {}

  get intervalMs(): number {
    return executorHeartbeatIntervalMs(this.config.executorDeadAfterMs);
  }

  /**
   * `secretVersion`: the tenant secret version that verified the heartbeat, kept on the row so every engine signs to this executor with its secret.
   * `wire`: how it is spoken to (default `baton`; `xxl-job` for a registration or beat of an XXL-JOB executor).
   */
  async record(heartbeat: ExecutorHeartbeat, secretVersion: number, wire: ExecutorWire = 'baton'): Promise<ExecutorHeartbeatAck> {
    const now = this.clock.now();
    if (heartbeat.draining === true && heartbeat.inFlight === 0) {
      // A graceful stop (its last word): DOWN now, without the EXECUTOR_DOWN its silence would raise.
      const key = { tenantId: heartbeat.tenantId, app: heartbeat.app, url: heartbeat.url, now };
      const stopped = await inTransaction(this.dataSource, (em) => markExecutorStopped(em, key));
      if (stopped !== null) return { executorId: stopped, intervalMs: this.intervalMs };
    }
    const { executorId, handBacks } = await inTransaction(
      this.dataSource,
      async (em) => {
        const result = await recordExecutorHeartbeat(em, {
          tenantId: heartbeat.tenantId,
          app: heartbeat.app,
          url: heartbeat.url,
          capacity: heartbeat.capacity,
          queueLimit: heartbeat.queueLimit ?? 0,
          inFlight: heartbeat.inFlight,
          protocolVersion: heartbeat.protocolVersion ?? 1,
          handlers: heartbeat.handlers ?? [],
          handlerSchemas: heartbeat.handlerSchemas,
          secretVersion,
          wire,
          now,
        });
        if (result.cameBack) {
          await this.alarms.raise(em, {
            tenantId: heartbeat.tenantId,
            type: 'EXECUTOR_UP',
            executorId: result.executorId,
            message: `Executor ${heartbeat.app} at ${heartbeat.url} is UP again`,
            data: { app: heartbeat.app, url: heartbeat.url },
            now,
          });
        }
        return result;
      },
      // READ COMMITTED: after a lost INSERT race the re-read must see the other engine's row.
      { isolation: 'READ COMMITTED' },
    );
    this.heardProcess(heartbeat, executorId);
    return { executorId, intervalMs: this.intervalMs, handBacks };
  }

  /**
   * The executor's process as its heartbeat describes it, for the watchdog to end what an earlier
   * process took with it (Watchdog.lostWithProcess): only a heartbeat that lists what it holds
   * (`active`, omitted past MAX_HEARTBEAT_ACTIVE), with no final callback still in its spool (one
   * may be the outcome of an attempt the old process ran) and not draining.
   */
  private heardProcess(heartbeat: ExecutorHeartbeat, executorId: number): void {
    if (typeof heartbeat.startedAt !== 'number' || !Array.isArray(heartbeat.active) || (heartbeat.spooled ?? 0) > 0 || heartbeat.draining === true) return;
    this.restarts.heard({ executorId, tenantId: heartbeat.tenantId, startedAt: heartbeat.startedAt, active: heartbeat.active });
  }
}
