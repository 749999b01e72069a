import { Inject, Injectable, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  checkOutboundUrl,
  displayNameProblem,
  outboundCheck,
  SEVERITIES,
  WEBHOOK_MAX_ANSWER_BYTES,
  WEBHOOK_NAME_MAX_LENGTH,
  WEBHOOK_TIMEOUT_MS,
  type ExecutorNetworks,
  type FieldError,
  type Severity,
  type WebhookEventType,
  WEBHOOK_EVENT_TYPES,
} from '@baton/domain';
import { buildAlarmMessage, webhookHeaders } from '@baton/messaging';
import { deleteWebhookChannel, findTenant, findWebhookChannel, insertWebhookChannel, inTransaction, isUniqueViolation, listWebhookChannels, WebhookChannelEntity, webhookDeliveryStand } from '@baton/persistence';
import { OUTBOUND_RESOLVER, postOutbound, refusalOf, type ResolveAll } from '@baton/protocol';
import { OneAtATime } from '@baton/scheduling';
import { badRequest, conflict, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { randomToken } from '../common/secrets';
import { auditChange } from '../audit';
import type { CreatedWebhookView, CreateWebhookDto, WebhookTestView, WebhookView } from './dto/webhook.dto';

/** A channel as the audit log keeps it (its secret is redacted there). */
function channelOf(row: WebhookChannelEntity) {
  return { id: row.id, name: row.name, url: row.url, secret: row.secret, alarmTypes: row.alarmTypes, minSeverity: row.minSeverity };
}

/**
 * A tenant's webhook channels: the engines deliver alarms to them (apps/engine WebhookSender).
 * A URL is judged by the outbound policy (libs/domain outbound-policy.ts) with the tenant's
 * networks when it is saved — its IP literal, or what its name resolves to now — and again by
 * every POST, test or delivery, on the addresses it connects to.
 */
@Injectable()
export class WebhooksService {
  /**
   * A tenant's name resolutions and test POSTs, one at a time: a lookup occupies one of libuv's 4
   * threads until the resolver gives up (seconds, whatever our timeout), so a tenant sending
   * many saves or tests of slow names at once would hold them all, and every other tenant's file
   * reads and lookups with them.
   */
  private readonly outbound = new OneAtATime();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() @Inject(OUTBOUND_RESOLVER) private readonly resolve?: ResolveAll,
  ) {}

  async list(tenantId: string): Promise<WebhookView[]> {
    const rows = await listWebhookChannels(this.dataSource.manager, tenantId);
    return Promise.all(rows.map((r) => this.view(r)));
  }

  async create(tenantId: string, body: CreateWebhookDto): Promise<CreatedWebhookView> {
    const errors: FieldError[] = [];
    const { name, url } = body;
    const nameRefused = displayNameProblem(name, WEBHOOK_NAME_MAX_LENGTH);
    if (nameRefused !== null) errors.push({ field: 'name', reason: nameRefused });
    const urlProblem = await this.urlProblem(tenantId, url);
    if (urlProblem) errors.push({ field: 'url', reason: urlProblem });
    const types = body.alarmTypes ?? null;
    if (types !== null && (!Array.isArray(types) || types.length === 0 || types.some((t) => !(WEBHOOK_EVENT_TYPES as readonly unknown[]).includes(t)))) {
      errors.push({ field: 'alarmTypes', reason: `must be null or a non-empty list of ${WEBHOOK_EVENT_TYPES.join(', ')}` });
    }
    const minSeverity = body.minSeverity ?? 'WARNING';
    if (!(SEVERITIES as readonly unknown[]).includes(minSeverity)) errors.push({ field: 'minSeverity', reason: `must be one of ${SEVERITIES.join(', ')}` });
    if (errors.length) throw badRequest(errors);
    const row = Object.assign(new WebhookChannelEntity(), {
      tenantId,
      name: (name as string).trim(),
      url: url as string,
      secret: `whsec_${randomToken()}`,
      alarmTypes: types === null ? null : [...new Set(types as WebhookEventType[])],
      minSeverity: minSeverity as Severity,
      createdAt: this.clock.now(),
    });
    try {
      await inTransaction(this.dataSource, async (em) => {
        await insertWebhookChannel(em, row);
        await auditChange(em, { tenantId, objectType: 'webhook', objectId: row.id, after: channelOf(row) });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(`A webhook named "${row.name}" exists`, [{ field: 'name', reason: 'is taken' }]);
      throw err;
    }
    return { ...(await this.view(row)), secret: row.secret };
  }

  async delete(tenantId: string, id: number): Promise<void> {
    await inTransaction(this.dataSource, async (em) => {
      const row = await findWebhookChannel(em, tenantId, id);
      if (!row) throw notFound('Webhook', id);
      await deleteWebhookChannel(em, tenantId, id);
      await auditChange(em, { tenantId, objectType: 'webhook', objectId: id, before: channelOf(row) });
    });
  }

  /** Sends a test message (a BUSINESS alarm, INFO) now, signed as deliveries are, and says what the endpoint answered. */
  async test(tenantId: string, id: number): Promise<WebhookTestView> {
    const channel = await findWebhookChannel(this.dataSource.manager, tenantId, id);
    if (!channel) throw notFound('Webhook', id);
    const now = this.clock.now();
    const body = JSON.stringify(
      buildAlarmMessage({
        id: `test-${randomUUID()}`,
        tenantId,
        type: 'BUSINESS',
        severity: 'INFO',
        taskId: null,
        runId: null,
        executorId: null,
        message: `Test delivery from Baton to webhook "${channel.name}"`,
        data: { test: true },
        count: 1,
        raisedAt: now,
        source: 'engine',
      }),
    );
    const check = outboundCheck(await this.networksOf(tenantId), 'webhook');
    const started = performance.now();
    const answer = await this.outbound.run(tenantId, () =>
      postOutbound({
        url: channel.url,
        body,
        headers: webhookHeaders({ secret: channel.secret, delivery: 'test', timestamp: now, body }),
        check,
        timeoutMs: WEBHOOK_TIMEOUT_MS,
        maxResponseBytes: WEBHOOK_MAX_ANSWER_BYTES,
        resolve: this.resolve,
      }),
    );
    const ms = Math.round(performance.now() - started);
    // What failed is said in the policy's or neutral words: never what the host sent, nor an address or port.
    if (!('status' in answer)) return { ok: false, status: null, ms, error: answer.message };
    const redirect = answer.status >= 300 && answer.status < 400 ? 'the endpoint answered with a redirect, which Baton does not follow' : null;
    return { ok: answer.status >= 200 && answer.status < 300, status: answer.status, ms, error: redirect };
  }

  /** The tenant's networks: what its webhooks may reach besides public addresses. */
  private async networksOf(tenantId: string): Promise<ExecutorNetworks> {
    const tenant = await findTenant(this.dataSource.manager, tenantId);
    return tenant?.executorNetworks ?? null;
  }

  /** Why `url` is refused as a webhook of `tenantId` (the outbound policy, name lookups one at a time per tenant), or null. */
  async urlProblem(tenantId: string, url: unknown): Promise<string | null> {
    const networks = await this.networksOf(tenantId);
    return this.outbound.run(tenantId, () => this.checkUrl(url, networks));
  }

  /** Why a webhook URL is refused, or null. */
  private async checkUrl(url: unknown, networks: ExecutorNetworks): Promise<string | null> {
    if (typeof url !== 'string' || url.length === 0 || url.length > 500) return 'must be an http(s) URL of at most 500 characters';
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return 'not a URL';
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be http or https';
    const verdict = checkOutboundUrl(url, networks, 'webhook');
    if (!verdict.ok) return verdict.reason;
    return refusalOf(url, outboundCheck(networks, 'webhook'), { resolve: this.resolve });
  }

  private async view(row: WebhookChannelEntity): Promise<WebhookView> {
    const { pending, failed, lastError } = await webhookDeliveryStand(this.dataSource.manager, row.id);
    return { id: row.id, name: row.name, url: row.url, alarmTypes: row.alarmTypes, minSeverity: row.minSeverity, createdAt: row.createdAt, pending, failed, lastError };
  }
}
