import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { CLOCK, type Clock } from '@baton/domain';
import { afterCommit, claimTenantOutbox, findOutboxTenants, findTenantOutbox, inTransaction, markAlarmsPublished, queueWebhookDeliveries } from '@baton/persistence';
import { alarmMessageOf, type AlarmBus } from '@baton/messaging';
import { PeriodicLoop } from '../common/periodic-loop';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { EngineMetrics } from '../metrics/engine-metrics';
import type { NodeWorker } from '../common/node-workers';
import { ENGINE_ALARM_BUS } from './engine-alarm-bus';
import { AlarmCounts } from './alarm-counts';
import { OutboxSignal } from './outbox-signal';

/** What one relay pass did (tests, logs). */
export interface RelayReport {
  /** Alarms published and marked. */
  published: number;
  /** Tenants skipped because another engine holds their claim. */
  skippedTenants: number;
  /** A publish failed (no broker, no receipt): the rest waits for the next pass. */
  failed: boolean;
  /** A tenant had more than one batch: run again at once. */
  more: boolean;
}

/** Tenants looked at per pass (the oldest pending alarms first). */
const OUTBOX_SCAN = 1000;

/** Backoff after a failed publish, before the bus says it is back: 0.5 s doubling to 5 s. */
const FAILURE_BACKOFF_MS = [500, 1000, 2000, 5000];

/**
 * The alarm outbox relay of one engine node (a NodeWorker: runs while the node is UP).
 *
 * Alarm rows are written with published_at NULL in the transaction of the state change they
 * report. Each pass, per tenant with pending alarms (oldest first), in one READ COMMITTED
 * transaction:
 *
 *   1. claim the tenant (claimTenantOutbox: `SELECT … FROM tenants WHERE id = ? FOR UPDATE SKIP
 *      LOCKED`) — if another engine holds it, skip: that engine is publishing them, in order;
 *   2. read its unpublished alarms oldest first (findTenantOutbox, up to alarmRelayBatch);
 *   3. publish them in that order (each resolves on the broker's receipt) — pipelined, the frames
 *      go out in order on one connection;
 *   4. mark published the ones the broker confirmed, up to the first failure, with the count each
 *      carried (markAlarmsPublished; one whose count went up meanwhile goes back to the outbox
 *      once its second is over: AlarmCounts);
 *   5. commit; on a failure stop the pass: the rest stays in the outbox, in order, for later.
 *
 * So: none lost (a row stays pending until the broker confirmed it), in order per tenant (one
 * relay per tenant at a time, oldest first, nothing after a failure goes out before it), and
 * once — except when an engine dies or its commit fails between the broker's receipt and the
 * commit: then the same alarms are published again, with the same stable ids, and consumers drop
 * the repeats (the console gateway does).
 *
 * Woken within milliseconds by alarms this node commits (OutboxSignal) and by the bus coming
 * back; otherwise polls every alarmRelayIntervalMs (alarms of other nodes that died before
 * publishing, ENGINE_DOWN alarms of a takeover).
 */
@Injectable()
export class OutboxRelay implements NodeWorker {
  private readonly logger = new Logger('AlarmRelay');
  private readonly loop: PeriodicLoop;
  private failures = 0;
  private unsubscribe: Array<() => void> = [];

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ENGINE_ALARM_BUS) private readonly bus: AlarmBus,
    private readonly signal: OutboxSignal,
    private readonly metrics: EngineMetrics,
    private readonly counts: AlarmCounts,
  ) {
    this.loop = new PeriodicLoop('alarm relay', Math.max(10, config.alarmRelayIntervalMs), () => this.turn(), this.logger);
  }

  get isRunning(): boolean {
    return this.loop.isRunning;
  }

  start(): void {
    this.unsubscribe = [
      this.signal.onAlarmsCommitted(() => this.loop.kick()),
      // Back after an outage: go at once rather than at the end of the backoff.
      this.bus.onConnectionChange((connected) => connected && this.loop.kick()),
    ];
    this.loop.start(0);
  }

  async stop(): Promise<void> {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    await this.loop.stop();
  }

  private async turn(): Promise<number | void> {
    const report = await this.relayOnce();
    if (report.failed) {
      const delay = FAILURE_BACKOFF_MS[Math.min(this.failures, FAILURE_BACKOFF_MS.length - 1)];
      // Not on the first miss: at start-up the relay's first pass usually beats the broker connection.
      if (++this.failures === 3) this.logger.warn(`alarms wait in the outbox: the alarm bus (${this.bus.description}) is unavailable; retrying`);
      return delay;
    }
    if (this.failures >= 3) this.logger.log(`alarm bus back: the outbox is flowing again`);
    this.failures = 0;
    return report.more ? 0 : undefined;
  }

  /** One pass over the outbox. */
  async relayOnce(): Promise<RelayReport> {
    const report: RelayReport = { published: 0, skippedTenants: 0, failed: false, more: false };
    if (!this.bus.connected) {
      // Nothing can be confirmed now; the rows wait. (Checked before reading: no query per tick while the broker is away.)
      report.failed = true;
      return report;
    }
    const tenants = await findOutboxTenants(this.dataSource.manager, OUTBOX_SCAN);
    for (const tenantId of tenants) {
      const pass = await inTransaction(this.dataSource, (em) => this.relayTenant(em, tenantId), { isolation: 'READ COMMITTED' });
      report.published += pass.published;
      if (pass.skipped) report.skippedTenants++;
      if (pass.full) report.more = true;
      if (pass.failed) {
        report.failed = true;
        this.metrics.alarmPublishFailures.inc();
        break;
      }
    }
    if (report.published) this.metrics.alarmsPublished.inc(report.published);
    return report;
  }

  private async relayTenant(
    em: EntityManager,
    tenantId: string,
  ): Promise<{ published: number; skipped: boolean; failed: boolean; full: boolean }> {
    if (!(await claimTenantOutbox(em, tenantId))) return { published: 0, skipped: true, failed: false, full: false };
    const rows = await findTenantOutbox(em, tenantId, this.config.alarmRelayBatch);
    if (rows.length === 0) return { published: 0, skipped: false, failed: false, full: false };
    // Issued one after the other, synchronously: the frames leave in id order on the one connection.
    const results = await Promise.allSettled(rows.map((row) => this.bus.publish(alarmMessageOf(row))));
    let confirmed = 0;
    while (confirmed < results.length && results[confirmed].status === 'fulfilled') confirmed++;
    if (confirmed) {
      const published = rows.slice(0, confirmed);
      const behind = await markAlarmsPublished(em, published, this.clock.now());
      // Counted into while on their way: their new counts follow once their second is over.
      if (behind.length > 0) afterCommit(em, () => this.counts.withhold(behind));
      // Queued for the tenant's webhook channels in the same transaction: once each, when published.
      await queueWebhookDeliveries(em, { tenantId, alarms: published, now: this.clock.now() });
    }
    const failed = confirmed < rows.length;
    if (failed) {
      const reason = (results[confirmed] as PromiseRejectedResult).reason as Error;
      this.logger.debug?.(`${confirmed}/${rows.length} alarm(s) published, then: ${reason?.message}`, { tenantId });
    }
    return { published: confirmed, skipped: false, failed, full: !failed && rows.length === this.config.alarmRelayBatch };
  }
}
