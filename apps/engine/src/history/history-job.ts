import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { bucketStart, CLOCK, MINUTE_MS, purgePeriodMs, type Clock } from '@baton/domain';
import { advanceHistoryCursor, findHistoryWork, leaseHistoryCursor, releaseHistoryCursors } from '@baton/persistence';
import { DUE_QUEUE, type DueQueuePort } from '../claimer/due-queue-port';
import { PeriodicLoop } from '../common/periodic-loop';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import type { NodeWorker } from '../common/node-workers';
import { LostHistoryLeaseError } from './lost-history-lease-error';
import { purgeTenant, type PurgeReport } from './purge-pass';
import { ROLL_LAG_MS, rollupTenant, type RollupReport } from './rollup-pass';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What one turn did, per tenant it visited (tests, logs); `purge` when the tenant's purge was due. */
export type HistoryReport = Map<string, { rollup: RollupReport; purge?: PurgeReport }>;

/** Pause after a purge pass that left more to purge: the backlog goes steadily, not flat out. */
export const PURGE_BACKLOG_PAUSE_MS = 1000;
/**
 * Pause before each purge batch or rollup chunk while this engine holds runs to dispatch: the
 * history yields to the runs (docs/BENCHMARKS.md "History").
 */
export const BUSY_PAUSE_MS = 200;
/**
 * Share of the time a purge may keep the database busy: after each delete transaction it rests
 * three times as long as the transaction took. Flat out, a purge of a 10M-run history deleted
 * ~14,000 runs/s with one core of MariaDB, and a 1,000-run burst meanwhile went 1.4× later at
 * p99; at a quarter it still deletes a few thousand runs a second, several times what an engine
 * sustains.
 */
export const PURGE_DUTY = 0.25;

/** A rollup backlog goes on at once (the statistics are behind); a purge backlog after a pause; else the regular period. */
function nextTurnAfter(report: HistoryReport): number | undefined {
  const turns = [...report.values()];
  if (turns.some((t) => t.rollup.more)) return 0;
  if (turns.some((t) => t.purge?.more)) return PURGE_BACKLOG_PAUSE_MS;
  return undefined;
}

/**
 * The engines' history job (issue 13): every BATON_HISTORY_INTERVAL_MS, for each tenant of this
 * node's groups with something to do — runs ended since its rollups' settled point, or its purge
 * due (history_cursors.purge_due_at, every purgePeriodMs of its shortest retention) — and whose
 * lease it gets (history_cursors: one engine per tenant at a time, others take over when it stops
 * renewing), rolls ended runs into the statistics rollups and then, when due, purges what
 * retention lets go — in that order, so a run is counted before it can be purged. A tenant with
 * nothing to do costs one probe in the turn's one work-list statement (findHistoryWork).
 */
@Injectable()
export class HistoryJob implements NodeWorker, OnModuleDestroy {
  private readonly logger = new Logger('HistoryJob');
  private readonly loop: PeriodicLoop;
  /** The tenants whose lease this node took, and until when: released at once when it stops. */
  private readonly held = new Map<string, number>();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(DUE_QUEUE) private readonly dueQueue: Pick<DueQueuePort, 'held'>,
  ) {
    this.loop = new PeriodicLoop('history', config.historyIntervalMs, async () => nextTurnAfter(await this.tick()), this.logger);
  }

  start(): void {
    this.loop.start(this.config.historyIntervalMs);
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    const held = [...this.held.keys()];
    this.held.clear();
    await releaseHistoryCursors(this.dataSource.manager, this.config.nodeId, held).catch((err: Error) => this.logger.warn(`history leases not released: ${err.message}`));
  }

  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  /** Waits a little while the node has runs to dispatch. */
  private async yieldToRuns(): Promise<void> {
    if (this.dueQueue.held > 0) await sleep(BUSY_PAUSE_MS);
  }

  /** One purge transaction, after yielding to the runs, then a rest that keeps the purge to PURGE_DUTY of the time. */
  private async purgeStep<T>(work: () => Promise<T>): Promise<T> {
    await this.yieldToRuns();
    const started = performance.now();
    const result = await work();
    await sleep(((performance.now() - started) * (1 - PURGE_DUTY)) / PURGE_DUTY);
    return result;
  }

  /** One turn over the tenants of the node's groups that have something to do. */
  async tick(): Promise<HistoryReport> {
    const report: HistoryReport = new Map();
    const leaseMs = Math.max(60_000, 3 * this.config.historyIntervalMs);
    const turnAt = this.clock.now();
    const work = await findHistoryWork(this.dataSource.manager, { groups: this.config.groups, worker: this.config.nodeId, now: turnAt, endsBefore: bucketStart(turnAt - ROLL_LAG_MS, MINUTE_MS) });
    for (const [tenantId, until] of this.held) if (until < turnAt) this.held.delete(tenantId);
    for (const { tenantId, purgeDue } of work) {
      const now = this.clock.now();
      const cursor = await leaseHistoryCursor(this.dataSource.manager, { tenantId, worker: this.config.nodeId, now, until: now + leaseMs });
      if (!cursor) {
        this.held.delete(tenantId);
        continue;
      }
      this.held.set(tenantId, now + leaseMs);
      try {
        const rollup = await rollupTenant(this.dataSource, this.config.nodeId, cursor, now, () => this.yieldToRuns());
        report.set(tenantId, { rollup });
        if (!purgeDue) continue;
        // The purge stops below the settled point as the rollup left it.
        const purge = await purgeTenant(this.dataSource, this.config.nodeId, { ...cursor, settledUntil: rollup.settledUntil }, now, {
          ceiling: this.config.retention,
          statsRetentionMs: this.config.statsRetentionMs,
          auditRetentionMs: this.config.auditRetentionMs,
          batch: this.config.purgeBatch,
          step: (work) => this.purgeStep(work),
        });
        report.set(tenantId, { rollup, purge });
        // A backlog is purged again at the next turn; else after a share of the shortest retention.
        const dueAt = purge.more ? now : this.clock.now() + purgePeriodMs(purge.shortestRetentionMs, this.config.historyIntervalMs);
        if (!(await advanceHistoryCursor(this.dataSource.manager, tenantId, this.config.nodeId, { purge_due_at: dueAt }))) throw new LostHistoryLeaseError(tenantId);
        if (purge.runs + purge.logs + purge.alarms + purge.events + purge.submissionKeys + purge.inboundSignatures + purge.runKeys + purge.executors + purge.audit > 0) this.logger.debug('history purged', { tenantId, ...purge });
      } catch (err) {
        if (!(err instanceof LostHistoryLeaseError)) throw err;
        this.held.delete(tenantId);
      }
    }
    return report;
  }
}
