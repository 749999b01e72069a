import { Inject, Injectable, Logger, OnModuleDestroy, Optional } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, outboundCheck, WEBHOOK_GIVE_UP_MS, WEBHOOK_MAX_ANSWER_BYTES, WEBHOOK_TIMEOUT_MS, webhookRetryDelay, type Clock, type ExecutorNetworks } from '@baton/domain';
import { alarmMessageOf, webhookHeaders } from '@baton/messaging';
import { claimWebhookDeliveries, findAlarmsForWebhooks, findAuditRecordsForWebhooks, findTenants, inTransaction, recordWebhookTry, type AuditRow, type DueDelivery } from '@baton/persistence';
import { OUTBOUND_RESOLVER, postOutbound, type ResolveAll } from '@baton/protocol';
import { PeriodicLoop } from '../common/periodic-loop';
import type { NodeWorker } from '../common/node-workers';

/**
 * An audit record as an AUDIT event's body: who (name, kind, address), what (action, object),
 * when, before and after (redacted when recorded). `id` is stable, for a receiver that drops repeats.
 */
export function auditEventMessage(record: AuditRow): Record<string, unknown> {
  return {
    id: `audit-${record.id}`,
    type: 'AUDIT',
    tenantId: record.tenantId,
    at: record.at,
    actor: { kind: record.actorKind, name: record.actorName, address: record.sourceAddress },
    action: record.action,
    objectType: record.objectType,
    objectId: record.objectId,
    before: record.before,
    after: record.after,
  };
}

/** How often the sender looks for due deliveries. */
export const WEBHOOK_POLL_MS = 1000;
/** Deliveries taken per look. */
const BATCH = 50;

/** What one turn did (tests). */
export interface WebhookReport {
  delivered: number;
  failed: number;
  givenUp: number;
}

/**
 * Sends the alarms queued for webhook channels (issue 14 item 5): each as a POST of the very
 * JSON message the ActiveMQ topic carries — and the audit records queued for channels that take
 * AUDIT events (issue 23; auditEventMessage) — signed (X-Baton-Signature over `<timestamp>.<body>`
 * with the channel's secret; X-Baton-Delivery names the delivery, for a receiver that wants to
 * drop repeats). A 2xx ends it; anything else is tried again after 1 s, 2 s, 4 s … (at most 5
 * minutes apart) for up to 24 hours, then given up with its last error. Deliveries are claimed
 * with a lease (FOR UPDATE SKIP LOCKED), so engines share them and none is sent by two at once.
 * An endpoint that took a delivery but answered too late gets it again: at least once, by id.
 *
 * Every POST is under the outbound policy with the tenant's networks as they are now (the URL
 * was checked when saved; what its name resolves to, or the operator's list, may have changed
 * since): a refused delivery fails naming the rule, and no error names an address or port.
 */
@Injectable()
export class WebhookSender implements NodeWorker, OnModuleDestroy {
  private readonly logger = new Logger('WebhookSender');
  private readonly loop: PeriodicLoop;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() @Inject(OUTBOUND_RESOLVER) private readonly resolve?: ResolveAll,
  ) {
    // A full batch: the next one at once (a backlog after an endpoint came back).
    this.loop = new PeriodicLoop('webhooks', WEBHOOK_POLL_MS, async () => {
      const r = await this.tick();
      return r.delivered + r.failed + r.givenUp >= BATCH ? 0 : undefined;
    }, this.logger);
  }

  start(): void {
    this.loop.start(WEBHOOK_POLL_MS);
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  async tick(): Promise<WebhookReport> {
    const report: WebhookReport = { delivered: 0, failed: 0, givenUp: 0 };
    // Leased for the POST's time and a little more.
    const due = await inTransaction(this.dataSource, (em) => claimWebhookDeliveries(em, { now: this.clock.now(), leaseMs: WEBHOOK_TIMEOUT_MS * 2, limit: BATCH }), { isolation: 'READ COMMITTED' });
    if (due.length === 0) return report;
    const alarms = await findAlarmsForWebhooks(this.dataSource.manager, due.flatMap((d) => (d.alarmId === null ? [] : [d.alarmId])));
    const audits = await findAuditRecordsForWebhooks(this.dataSource.manager, due.flatMap((d) => (d.auditId === null ? [] : [d.auditId])));
    const networks = new Map((await findTenants(this.dataSource.manager, due.map((d) => d.tenantId))).map((t) => [t.id, t.executorNetworks]));
    for (const delivery of due) {
      const alarm = delivery.alarmId === null ? undefined : alarms.get(delivery.alarmId);
      const audit = delivery.auditId === null ? undefined : audits.get(delivery.auditId);
      const message = alarm ? alarmMessageOf(alarm) : audit ? auditEventMessage(audit) : null;
      // An alarm or record purged before it could go: nothing left to send.
      const outcome = message ? await this.send(delivery, message, networks.get(delivery.tenantId) ?? null) : null;
      const now = this.clock.now();
      if (outcome === null) {
        await recordWebhookTry(this.dataSource.manager, { id: delivery.id, now, delivered: true });
        report.delivered++;
        continue;
      }
      const giveUp = now - delivery.createdAt >= WEBHOOK_GIVE_UP_MS;
      await recordWebhookTry(this.dataSource.manager, { id: delivery.id, now, delivered: false, error: outcome, retryAt: giveUp ? null : now + webhookRetryDelay(delivery.attempts + 1) });
      if (giveUp) {
        report.givenUp++;
        this.logger.warn(`webhook delivery ${delivery.id} given up after ${delivery.attempts + 1} tries: ${outcome}`, { tenantId: delivery.tenantId });
      } else report.failed++;
    }
    return report;
  }

  /** One POST; null when the endpoint took it (2xx), else why not. */
  private async send(delivery: DueDelivery, message: object, networks: ExecutorNetworks): Promise<string | null> {
    const body = JSON.stringify(message);
    const answer = await postOutbound({
      url: delivery.url,
      body,
      headers: webhookHeaders({ secret: delivery.secret, delivery: String(delivery.id), timestamp: this.clock.now(), body }),
      check: outboundCheck(networks, 'webhook'),
      timeoutMs: WEBHOOK_TIMEOUT_MS,
      maxResponseBytes: WEBHOOK_MAX_ANSWER_BYTES,
      resolve: this.resolve,
    });
    if (!('status' in answer)) return answer.message;
    if (answer.status >= 200 && answer.status < 300) return null;
    return answer.status >= 300 && answer.status < 400 ? `HTTP ${answer.status}: a redirect, which Baton does not follow` : `HTTP ${answer.status}`;
  }
}
