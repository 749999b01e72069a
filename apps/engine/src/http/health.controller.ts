import { Controller, Get, HttpStatus, Inject, Res } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, Clock } from '@baton/domain';
import { ENGINE_CONFIG, EngineConfig } from '../config/engine-config';
import { ClockWatch, type ClockMeasure } from '../common/clock-watch';
import { EngineMetrics } from '../metrics/engine-metrics';
import { DUE_QUEUE, DueQueuePort } from '../claimer/due-queue-port';
import { EngineLifecycleService, EngineState } from '../node/engine-lifecycle.service';
import { EngineNodeService } from '../node/engine-node.service';
import type { HttpResponse } from './http-response';

export interface EngineHealth {
  status: 'ok' | 'degraded';
  nodeId: string;
  state: EngineState;
  groups: string[];
  url: string | null;
  /** Claimed runs waiting in memory for their due time. */
  heldRuns: number;
  slots: number;
  slotsInUse: number;
  db: 'up' | 'down';
  lastHeartbeatAt: number | null;
  /** The engine's time: the database's, as its clock is corrected by `clock.offsetMs`. */
  time: number;
  /** Its clock against the database's at the last measure (null before the first): the offset applied, its error bound, and IN_BOUND | SKEWED | STOPPED (no claims). */
  clock: ClockMeasure | null;
}

/** `GET /health`: 200 when the node runs and its database answers, 503 otherwise (load balancers, process tests). */
@Controller('health')
export class HealthController {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: EngineMetrics,
    @Inject(DUE_QUEUE) private readonly dueQueue: DueQueuePort,
    private readonly lifecycle: EngineLifecycleService,
    private readonly node: EngineNodeService,
    private readonly clockWatch: ClockWatch,
  ) {}

  @Get()
  async health(@Res({ passthrough: true }) res: HttpResponse): Promise<EngineHealth> {
    const db = await this.databaseUp();
    const slotsInUse = (await this.metrics.slotsInUse.get()).values[0]?.value ?? 0;
    const ok = db === 'up' && this.lifecycle.state === 'RUNNING';
    if (!ok) res.status(HttpStatus.SERVICE_UNAVAILABLE);
    return {
      status: ok ? 'ok' : 'degraded',
      nodeId: this.config.nodeId,
      state: this.lifecycle.state,
      groups: this.config.groups,
      url: this.lifecycle.url,
      heldRuns: this.dueQueue.held,
      slots: this.config.slots,
      slotsInUse,
      db,
      lastHeartbeatAt: this.node.heartbeatAt,
      time: this.clock.now(),
      clock: this.clockWatch.measure,
    };
  }

  private async databaseUp(): Promise<'up' | 'down'> {
    try {
      if (!this.dataSource.isInitialized) return 'down';
      await this.dataSource.query('SELECT 1');
      return 'up';
    } catch {
      return 'down';
    }
  }
}
