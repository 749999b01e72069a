import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Gauge } from 'prom-client';
import { DataSource } from 'typeorm';
import { CLOCK, LOAD_COUNT_CAP, subtractCount, type Clock } from '@baton/domain';
import { countGroupRuns, countHeldRuns, countRecentEvents, findLoadTenants, readAlarmOutboxBacklog, readLoadBoard, type LoadBoard, type TenantRunCounts } from '@baton/persistence';
import { PeriodicLoop } from '../common/periodic-loop';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { EngineMetrics } from '../metrics/engine-metrics';
import { MetricsTenantLabels, OTHER_TENANTS } from '../metrics/metrics-tenant-labels';
import type { NodeWorker } from '../common/node-workers';
import { BacklogAlarm } from '../watchdog/backlog-alarm';

/**
 * The group-wide counts behind `_other` stop here (the per-tenant ones at LOAD_COUNT_CAP): the
 * read behind them costs at most 3 × this many index entries per sample.
 */
export const GROUP_COUNT_CAP = 100_000;

/** The events-per-second gauge's window: the events received this long before a sample, over its seconds. */
export const EVENT_RATE_WINDOW_MS = 10_000;

/** What one sample read (tests, logs). */
export interface LoadSample {
  tenants: number;
  board: LoadBoard;
  /** BACKLOG_LATE alarms this engine raised. */
  backlogAlarms: number;
}

/**
 * Every BATON_LOAD_SAMPLE_MS, the load of the tenants of this engine's groups, read from the
 * database (so every engine of the cluster sees the same): the per-tenant gauges of
 * EngineMetrics — set here, so a scrape reads memory and scrapes cannot become a query storm —
 * and the BACKLOG_LATE check (BacklogAlarm) on the oldest due runs just read; and the alarm
 * outbox's backlog (the same for every engine).
 *
 * The cost of a sample: one loose index scan (a dive per tenant with due runs), one count per
 * labelled tenant (capped), one capped count of the groups for `_other`, a capped walk of the
 * outbox index (empty while the broker takes the alarms), of the HELD range, and of the newest
 * events (countRecentEvents).
 */
@Injectable()
export class TenantLoadSampler implements NodeWorker, OnModuleDestroy {
  private readonly logger = new Logger('TenantLoadSampler');
  private readonly loop: PeriodicLoop;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: EngineMetrics,
    private readonly backlog: BacklogAlarm,
    private readonly labels: MetricsTenantLabels,
  ) {
    this.loop = new PeriodicLoop('tenant-load', config.loadSampleMs, async () => void (await this.tick()), this.logger);
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  async tick(): Promise<LoadSample> {
    const now = this.clock.now();
    const manager = this.dataSource.manager;
    const tenants = await findLoadTenants(manager, { groups: this.config.groups });
    const board = await readLoadBoard(manager, { tenants, now, limit: this.config.loadMetricTenants, cap: LOAD_COUNT_CAP });
    const groupTotals = await countGroupRuns(manager, { groups: this.config.groups, now, cap: GROUP_COUNT_CAP });
    const outbox = await readAlarmOutboxBacklog(manager);
    const keyHeld = await countHeldRuns(manager, GROUP_COUNT_CAP);
    const events = await countRecentEvents(manager, { since: now - EVENT_RATE_WINDOW_MS, cap: GROUP_COUNT_CAP });
    this.publish(board, groupTotals, now);
    const groupTenants = new Set(tenants.map((t) => t.id));
    this.publishPerTenant(this.metrics.tenantKeyHeldRuns, keyHeld, board, groupTenants);
    this.publishPerTenant(this.metrics.tenantEventRate, new Map([...events].map(([tenantId, n]) => [tenantId, n / (EVENT_RATE_WINDOW_MS / 1000)])), board, groupTenants);
    this.metrics.alarmOutboxPending.set(outbox.pending);
    this.metrics.alarmOutboxOldestAge.set(outbox.oldestRaisedAt === null ? 0 : Math.max(0, now - outbox.oldestRaisedAt) / 1000);
    const backlogAlarms = await this.backlog.check(tenants, board.oldestDue, now);
    return { tenants: tenants.length, board, backlogAlarms };
  }

  /** A per-tenant figure (held-by-key runs, events per second) of the labelled tenants, and of the group's other tenants summed as `_other` (another group's are not this engine's to report). */
  private publishPerTenant(gauge: Gauge<'tenant'>, byTenant: ReadonlyMap<string, number>, board: LoadBoard, groupTenants: ReadonlySet<string>): void {
    gauge.reset();
    const labelled = new Set(board.top.map((load) => load.tenantId));
    for (const tenantId of labelled) gauge.set({ tenant: this.labels.label(tenantId) }, byTenant.get(tenantId) ?? 0);
    let other = 0;
    for (const [tenantId, n] of byTenant) if (!labelled.has(tenantId) && groupTenants.has(tenantId)) other += n;
    gauge.set({ tenant: OTHER_TENANTS }, other);
  }

  /** Replaces the gauges' series in one synchronous step: a scrape sees one sample, never half of two. */
  private publish(board: LoadBoard, groupTotals: TenantRunCounts, now: number): void {
    const m = this.metrics;
    const gauges = [m.tenantDueRuns, m.tenantHeldRuns, m.tenantInFlightRuns, m.tenantSentAheadRuns, m.tenantOldestDueAge, m.tenantExecutorCapacity];
    for (const gauge of gauges) gauge.reset(); // a tenant that left the top N (or the groups) loses its series
    const labelled = new Set<string>();
    const sum = { due: 0, held: 0, inFlight: 0, sentAhead: 0 };
    for (const load of board.top) {
      labelled.add(load.tenantId);
      const tenant = this.labels.label(load.tenantId);
      m.tenantDueRuns.set({ tenant }, load.due.count);
      m.tenantHeldRuns.set({ tenant }, load.held.count);
      m.tenantInFlightRuns.set({ tenant }, load.inFlight.count);
      m.tenantSentAheadRuns.set({ tenant }, load.sentAhead.count);
      m.tenantOldestDueAge.set({ tenant }, (load.oldestDueAgeMs ?? 0) / 1000);
      m.tenantExecutorCapacity.set({ tenant }, load.executors.capacity);
      sum.due += load.due.count;
      sum.held += load.held.count;
      sum.inFlight += load.inFlight.count;
      sum.sentAhead += load.sentAhead.count;
    }
    let oldestOther: number | null = null;
    for (const [tenantId, at] of board.oldestDue) if (!labelled.has(tenantId) && (oldestOther === null || at < oldestOther)) oldestOther = at;
    let otherCapacity = 0;
    for (const [tenantId, executors] of board.capacity) if (!labelled.has(tenantId)) otherCapacity += executors.capacity;
    const other = { tenant: OTHER_TENANTS };
    m.tenantDueRuns.set(other, subtractCount(groupTotals.due, sum.due).count);
    m.tenantHeldRuns.set(other, subtractCount(groupTotals.held, sum.held).count);
    m.tenantInFlightRuns.set(other, subtractCount(groupTotals.inFlight, sum.inFlight).count);
    m.tenantSentAheadRuns.set(other, subtractCount(groupTotals.sentAhead, sum.sentAhead).count);
    m.tenantOldestDueAge.set(other, oldestOther === null ? 0 : Math.max(0, now - oldestOther) / 1000);
    m.tenantExecutorCapacity.set(other, otherCapacity);
  }
}
