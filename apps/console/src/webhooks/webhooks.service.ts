import { Inject, Injectable } from '@nestjs/common';
import axios from 'axios';
import { randomUUID } from 'node:crypto';
import { DataSource, IsNull, Not } from 'typeorm';
import { ALARM_TYPES, checkExecutorUrl, SEVERITIES, type AlarmType, type FieldError, type Severity } from '@baton/domain';
import { buildAlarmMessage, webhookHeaders } from '@baton/messaging';
import { isUniqueViolation, WebhookChannelEntity, WebhookDeliveryEntity } from '@baton/persistence';
import { badRequest, conflict, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { randomToken } from '../common/secrets';
import type { CreatedWebhookView, CreateWebhookDto, WebhookTestView, WebhookView } from './dto/webhook.dto';

const TEST_TIMEOUT_MS = 5000;

/** A tenant's webhook channels: the engines deliver alarms to them (apps/engine WebhookSender). */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async list(tenantId: string): Promise<WebhookView[]> {
    const rows = await this.dataSource.getRepository(WebhookChannelEntity).find({ where: { tenantId }, order: { name: 'ASC' } });
    return Promise.all(rows.map((r) => this.view(r)));
  }

  async create(tenantId: string, body: CreateWebhookDto): Promise<CreatedWebhookView> {
    const errors: FieldError[] = [];
    const { name, url } = body;
    if (typeof name !== 'string' || name.trim().length === 0 || name.length > 100) errors.push({ field: 'name', reason: 'must be 1 to 100 characters' });
    const urlProblem = checkUrl(url);
    if (urlProblem) errors.push({ field: 'url', reason: urlProblem });
    const types = body.alarmTypes ?? null;
    if (types !== null && (!Array.isArray(types) || types.length === 0 || types.some((t) => !(ALARM_TYPES as readonly unknown[]).includes(t)))) {
      errors.push({ field: 'alarmTypes', reason: `must be null or a non-empty list of ${ALARM_TYPES.join(', ')}` });
    }
    const minSeverity = body.minSeverity ?? 'WARNING';
    if (!(SEVERITIES as readonly unknown[]).includes(minSeverity)) errors.push({ field: 'minSeverity', reason: `must be one of ${SEVERITIES.join(', ')}` });
    if (errors.length) throw badRequest(errors);
    const row = this.dataSource.getRepository(WebhookChannelEntity).create({
      tenantId,
      name: (name as string).trim(),
      url: url as string,
      secret: `whsec_${randomToken()}`,
      alarmTypes: types === null ? null : [...new Set(types as AlarmType[])],
      minSeverity: minSeverity as Severity,
      createdAt: this.clock.now(),
    });
    try {
      await this.dataSource.getRepository(WebhookChannelEntity).insert(row);
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(`A webhook named "${row.name}" exists`, [{ field: 'name', reason: 'is taken' }]);
      throw err;
    }
    return { ...(await this.view(row)), secret: row.secret };
  }

  async delete(tenantId: string, id: number): Promise<void> {
    const { affected } = await this.dataSource.getRepository(WebhookChannelEntity).delete({ id, tenantId });
    if (!affected) throw notFound('Webhook', id);
    await this.dataSource.getRepository(WebhookDeliveryEntity).delete({ channelId: id, deliveredAt: IsNull() });
  }

  /** Sends a test message (a BUSINESS alarm, INFO) now, signed as deliveries are, and says what the endpoint answered. */
  async test(tenantId: string, id: number): Promise<WebhookTestView> {
    const channel = await this.dataSource.getRepository(WebhookChannelEntity).findOneBy({ id, tenantId });
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
    const started = performance.now();
    try {
      const res = await axios.post(channel.url, body, {
        timeout: TEST_TIMEOUT_MS,
        maxRedirects: 0,
        validateStatus: () => true,
        headers: webhookHeaders({ secret: channel.secret, delivery: 'test', timestamp: now, body }),
      });
      return { ok: res.status >= 200 && res.status < 300, status: res.status, ms: Math.round(performance.now() - started), error: null };
    } catch (err) {
      return { ok: false, status: null, ms: Math.round(performance.now() - started), error: (err as Error).message };
    }
  }

  private async view(row: WebhookChannelEntity): Promise<WebhookView> {
    const deliveries = this.dataSource.getRepository(WebhookDeliveryEntity);
    const [pending, failed, last] = await Promise.all([
      deliveries.count({ where: { channelId: row.id, deliveredAt: IsNull(), failedAt: IsNull() } }),
      deliveries.count({ where: { channelId: row.id, failedAt: Not(IsNull()) } }),
      deliveries.findOne({ where: { channelId: row.id, deliveredAt: IsNull(), lastError: Not(IsNull()) }, order: { id: 'DESC' }, select: { id: true, lastError: true } }),
    ]);
    return { id: row.id, name: row.name, url: row.url, alarmTypes: row.alarmTypes, minSeverity: row.minSeverity, createdAt: row.createdAt, pending, failed, lastError: last?.lastError ?? null };
  }
}

/** Why a webhook URL is refused, or null. */
function checkUrl(url: unknown): string | null {
  if (typeof url !== 'string' || url.length === 0 || url.length > 500) return 'must be an http(s) URL of at most 500 characters';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be http or https';
  // The engines' rule for any URL they call (the executors' too): never link-local, metadata or non-unicast addresses.
  return checkExecutorUrl(url, null).ok ? null : `${parsed.hostname} is a link-local, metadata or non-unicast address, which Baton never calls`;
}
