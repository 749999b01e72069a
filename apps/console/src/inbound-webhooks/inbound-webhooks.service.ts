import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, eventNameProblem, type Clock, type FieldError } from '@baton/domain';
import {
  deleteInboundWebhook,
  findInboundWebhook,
  inTransaction,
  insertInboundWebhook,
  isUniqueViolation,
  listInboundWebhooks,
  setInboundWebhookSecret,
  type InboundWebhookEntity,
} from '@baton/persistence';
import { auditChange } from '../audit';
import { badRequest, conflict, notFound } from '../common/api-error';
import { randomToken } from '../common/secrets';
import type { CreatedInboundWebhookView, CreateInboundWebhookDto, InboundWebhookView } from './dto/inbound-webhook.dto';
import { HookDeliveriesService } from './hook-deliveries.service';
import { HOOKS_PATH, SECRET_PATTERN } from './inbound-webhook';

/**
 * A tenant's inbound webhooks, as its admin makes them: create (the secret shown once), list,
 * rotate the secret, delete. Every change audited; the secret is never in an answer but the one
 * that sets it, nor in the audit log. A new secret or a deletion, once committed, is told to
 * HookDeliveriesService, which keeps hooks it read for a moment: the old secret stops verifying on
 * this console at once.
 */
@Injectable()
export class InboundWebhooksService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly deliveries: HookDeliveriesService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async list(tenantId: string): Promise<InboundWebhookView[]> {
    return (await listInboundWebhooks(this.dataSource.manager, tenantId)).map(hookView);
  }

  async create(tenantId: string, body: CreateInboundWebhookDto): Promise<CreatedInboundWebhookView> {
    const errors: FieldError[] = [];
    const event = eventNameProblem(body.event);
    if (event) errors.push({ field: 'event', reason: event });
    const secret = secretOf(body.secret, errors);
    if (errors.length > 0) throw badRequest(errors);
    try {
      const row = await inTransaction(this.dataSource, async (em) => {
        const made = await insertInboundWebhook(em, { publicId: `ih_${randomToken()}`, tenantId, name: body.name, eventName: body.event, scheme: body.scheme, secret, createdAt: this.clock.now() });
        await auditChange(em, { tenantId, objectType: 'inbound-webhook', objectId: made.id, after: hookView(made) });
        return made;
      });
      return { ...hookView(row), secret };
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(`An inbound webhook named ${body.name} exists`, [{ field: 'name', reason: 'is taken by another inbound webhook of the tenant' }]);
      throw err;
    }
  }

  /** A new secret (given, or made): deliveries signed with the old one are refused from now on. */
  async rotateSecret(tenantId: string, id: number, given: string | undefined): Promise<CreatedInboundWebhookView> {
    const errors: FieldError[] = [];
    const secret = secretOf(given, errors);
    if (errors.length > 0) throw badRequest(errors);
    const row = await inTransaction(this.dataSource, async (em) => {
      if (!(await setInboundWebhookSecret(em, tenantId, id, secret))) throw notFound('Inbound webhook', id);
      const hook = (await findInboundWebhook(em, tenantId, id))!;
      await auditChange(em, { tenantId, objectType: 'inbound-webhook', objectId: id, after: { secretRotated: true } });
      return hook;
    });
    this.deliveries.hookChanged(row.publicId);
    return { ...hookView(row), secret };
  }

  async delete(tenantId: string, id: number): Promise<void> {
    const deleted = await inTransaction(this.dataSource, async (em) => {
      const hook = await findInboundWebhook(em, tenantId, id);
      if (!hook || !(await deleteInboundWebhook(em, tenantId, id))) throw notFound('Inbound webhook', id);
      await auditChange(em, { tenantId, objectType: 'inbound-webhook', objectId: id, before: hookView(hook) });
      return hook;
    });
    this.deliveries.hookChanged(deleted.publicId);
  }
}

/** The secret given (checked, naming field `secret`) or a new one: 32 random bytes, base64url. */
function secretOf(given: string | undefined, errors: FieldError[]): string {
  if (given === undefined) return randomToken();
  if (!SECRET_PATTERN.test(given)) errors.push({ field: 'secret', reason: 'must be 16 to 128 printable ASCII characters (no spaces)' });
  return given;
}

export function hookView(row: InboundWebhookEntity): InboundWebhookView {
  return { id: row.id, name: row.name, event: row.eventName, scheme: row.scheme, path: `${HOOKS_PATH}${row.publicId}`, createdAt: row.createdAt };
}
