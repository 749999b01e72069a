import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock, type JsonValue } from '@baton/domain';
import { findInboundWebhookByPublicIdAcrossTenants, forgetInboundSignature, rememberInboundSignature, type InboundWebhookEntity } from '@baton/persistence';
import { jsonDeeperThan, jsonDepthReason } from '@baton/protocol';
import { runAudited, type AuditActor } from '../audit';
import { LoginThrottle } from '../auth/login-throttle';
import { badRequest, conflict, unauthorized, type ApiError } from '../common/api-error';
import { malformedJsonReason } from '../common/exception.filter';
import { KeptReads } from '../common/kept-reads';
import { TenantAdmission, type ClosingResponse } from '../common/tenant-admission';
import { webhookDeliveryKey } from '../events/event';
import { EventsService } from '../events/events.service';
import { IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_KEY_RULE } from '../submissions/submission';
import type { DeliveryAcceptedView } from './dto/inbound-webhook.dto';
import { HOOK_FAILURE_LIMITS, HOOK_KEEP_MS, PUBLIC_ID_PATTERN, SIGNATURE_REFUSED, STRIPE_TOLERANCE_SECONDS } from './inbound-webhook';
import { readSignature, staleProblem, verifiedDigest, type DeliverySignature, type SignatureHeaders } from './verify-signature';

/**
 * Deliveries to `POST /api/hooks/<publicId>`: the signature checked on the raw body bytes, then
 * the JSON body sent as an event of the hook's tenant through EventsService — the one path of
 * POST /api/events (matching, the submissions lane, idempotency, audit).
 *
 * What a stranger learns: a missing, malformed or stale signature is named before the hook is
 * looked up (the same answer whether it exists); an unknown hook and a wrong signature get the one
 * answer SIGNATURE_REFUSED. What a stranger makes Baton write: nothing for an unknown hook; for a
 * known one, a few throttle rows and log lines (HOOK_FAILURE_LIMITS), never an audit record.
 *
 * Once its hook is found, a delivery is one of its tenant's console requests: it waits for its
 * place in the tenant's admission (TenantAdmission, as an API call does; 429 TENANT_BUSY when the
 * line is full), so a flood of deliveries to one hook — its sender's retries, or anyone who has the
 * URL — waits behind itself and costs the other tenants what one tenant's requests may. An unknown
 * hook is refused before: it takes no place, and no state is kept for its id.
 */
@Injectable()
export class HookDeliveriesService {
  private readonly logger = new Logger('InboundWebhooks');
  private readonly failures: LoginThrottle;
  /** Hooks found, by public id, kept HOOK_KEEP_MS after their read (hookOf); an unknown id is never kept. */
  private readonly keptHooks = new KeptReads<InboundWebhookEntity>(HOOK_KEEP_MS, MAX_KEPT_HOOKS);
  /** Hooks changed through this process (hookChanged): a read begun before one is not kept. */
  private changes = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventsService,
    private readonly admission: TenantAdmission,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.failures = new LoginThrottle(dataSource, HOOK_FAILURE_LIMITS);
  }

  /** A delivery to `POST /api/hooks/<publicId>`; `response` holds its place in the tenant's admission until it closes. */
  async deliver(publicId: string, headers: SignatureHeaders, rawBody: Buffer | undefined, address: string | null, response: ClosingResponse): Promise<DeliveryAcceptedView & { status: 200 | 201 }> {
    const now = this.clock.now();
    const signature = readSignature(headers);
    if ('problem' in signature) throw unauthorized(signature.problem);
    const stale = staleProblem(signature, now, STRIPE_TOLERANCE_SECONDS);
    if (stale) throw unauthorized(stale);
    // Named before the hook is looked up, as the signature's problems are: the answer is the same whether it exists.
    if (signature.scheme === 'GITHUB' && signature.deliveryId === null) throw badRequest([{ field: 'X-GitHub-Delivery', reason: GITHUB_DELIVERY_REQUIRED }]);
    const body = rawBody ?? Buffer.alloc(0);
    const hook = PUBLIC_ID_PATTERN.test(publicId) ? await this.hookOf(publicId) : null;
    if (!hook) throw unauthorized(SIGNATURE_REFUSED);
    await this.admission.admit(hook.tenantId, response);
    const digest = verifiedDigest(signature, hook.scheme, hook.secret, body);
    if (digest === null) {
      await this.recordFailure(hook, address, now);
      throw unauthorized(SIGNATURE_REFUSED);
    }
    const payload = jsonObjectOf(body, headers['content-type']);
    const idempotencyKey = idempotencyKeyOf(hook, signature, payload);
    const remembered = await rememberInboundSignature(this.dataSource.manager, { tenantId: hook.tenantId, signature: digest, deliveryKey: idempotencyKey, now });
    // Taken before: again only as the same delivery (a redelivery, which its idempotency key answers with the first event).
    if (!remembered.first && (remembered.deliveryKey === null || remembered.deliveryKey !== idempotencyKey)) throw replayRefused(signature);
    const actor: AuditActor = { kind: 'inboundWebhook', name: `inbound-webhook:${hook.name}`, userId: null, apiKeyId: null, address };
    try {
      const event = await runAudited(actor, 'inbound-webhook.deliver', this.clock, () =>
        this.events.emitOne(hook.tenantId, { name: hook.eventName, payload, idempotencyKey }, typeof headers.traceparent === 'string' ? headers.traceparent : undefined, true),
      );
      return { status: event.created ? 201 : 200, eventId: event.id, created: event.created, runIds: event.runIds };
    } catch (err) {
      // Nothing stored (refused, the tenant busy): its sender may send the same delivery again.
      if (remembered.first) await forgetInboundSignature(this.dataSource.manager, { tenantId: hook.tenantId, signature: digest }).catch(() => undefined);
      throw err;
    }
  }

  /**
   * The hook of `publicId`, or null: a hook found is kept HOOK_KEEP_MS, so a stream of deliveries
   * to it reads its row once a second rather than once a delivery (before its tenant's admission,
   * which needs the row to know the tenant). A secret replaced or a hook deleted through this
   * process is read again at once (hookChanged); through another console process, within
   * HOOK_KEEP_MS. An id not found is never kept: a stranger's random ids cost a read each, never
   * memory.
   */
  private async hookOf(publicId: string): Promise<InboundWebhookEntity | null> {
    const now = this.clock.now();
    const kept = this.keptHooks.get(publicId, now);
    if (kept) return kept;
    const changes = this.changes;
    const hook = await findInboundWebhookByPublicIdAcrossTenants(this.dataSource.manager, publicId);
    if (hook && changes === this.changes) this.keptHooks.set(publicId, hook, now);
    return hook;
  }

  /** Called once a change of the hook (a new secret, its deletion) has been committed: its next delivery reads it again. */
  hookChanged(publicId: string): void {
    this.changes++;
    this.keptHooks.forget(publicId);
  }

  /** Counts a failed signature of the hook; logs it unless the hook's failures are in a wait (then nothing is written). */
  private async recordFailure(hook: InboundWebhookEntity, address: string | null, now: number): Promise<void> {
    const key = `inbound-webhook/${hook.publicId}`;
    if ((await this.failures.retryAfterMs(hook.publicId, key, now)) > 0) return;
    const waits = await this.failures.recordFailure(hook.publicId, key, now);
    const quiet = waits.length > 0 ? `; further failures are not logged for ${Math.max(...waits.map((w) => w.delayMs)) / 1000} s` : '';
    this.logger.warn(`inbound webhook ${hook.name} (tenant ${hook.tenantId}): a delivery from ${address ?? 'an unknown address'} has a signature that does not verify${quiet}`, { tenantId: hook.tenantId, inboundWebhookId: hook.id });
  }
}

/** Why a GitHub-style delivery needs its id: without it, a redelivery (taken again) and a replay (refused) look the same. */
const GITHUB_DELIVERY_REQUIRED = "required with X-Hub-Signature-256: the delivery's id (GitHub sends one with each delivery, the same on a redelivery); a signed body without it cannot be told from a replay";

/**
 * A delivery whose signature a delivery of the tenant took before under another delivery id (or
 * none): a replay of a captured delivery. The signature names no time (GitHub style), or its time
 * is still within the window (Stripe style), so remembering it is what refuses it.
 */
function replayRefused(signature: DeliverySignature): ApiError {
  const [header, id] = signature.scheme === 'GITHUB' ? ['X-Hub-Signature-256', 'X-GitHub-Delivery'] : ['Stripe-Signature', 'the body\'s id'];
  return conflict('This delivery was taken before: a delivery is taken once, and only its own redelivery is answered again', [
    { field: header, reason: `was taken before by a delivery with another ${id} (or none): a replay is refused for as long as the tenant keeps its events` },
  ]);
}

/** Hooks kept at once (a row is a few hundred bytes); past it, what is kept is cleared (KeptReads). */
const MAX_KEPT_HOOKS = 10_000;

/**
 * The body as a JSON object, or a 400 naming `body`. Malformed JSON is told so, where the parser
 * says; the hint about GitHub's content type only when the delivery was form-encoded or named no
 * content type (GitHub's other option sends `payload=<url-encoded JSON>`): a sender of
 * application/json would be misled by it.
 */
function jsonObjectOf(body: Buffer, contentType: string | string[] | undefined): { [key: string]: JsonValue } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (err) {
    const mediaType = String(contentType ?? '').split(';')[0].trim().toLowerCase();
    if (mediaType === '' || mediaType === 'application/x-www-form-urlencoded') {
      throw badRequest([{ field: 'body', reason: `must be a JSON object, sent as application/json (got ${mediaType || 'no content type'}; GitHub: set the webhook's content type to application/json)` }]);
    }
    throw badRequest([{ field: 'body', reason: malformedJsonReason((err as Error).message) }]);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw badRequest([{ field: 'body', reason: 'must be a JSON object' }]);
  if (jsonDeeperThan(parsed)) throw badRequest([{ field: 'body', reason: jsonDepthReason() }]);
  return parsed as { [key: string]: JsonValue };
}

/**
 * The event's idempotency key: `h<hook id>:` and the sender's id of the delivery — GitHub's
 * X-GitHub-Delivery (the same on a redelivery), Stripe's event `id` (the same on each retry) — so
 * a retry answers the first event and starts nothing; null when the delivery names none (no `id`,
 * `id: null`, an empty one). A key sent to POST /api/events cannot take this form (WEBHOOK_KEY_FORM).
 */
function idempotencyKeyOf(hook: InboundWebhookEntity, signature: DeliverySignature, payload: { [key: string]: JsonValue }): string | null {
  const [field, id] = signature.scheme === 'GITHUB' ? ['X-GitHub-Delivery', signature.deliveryId] : ['id', stripeIdOf(payload.id)];
  if (id === null) return null;
  const key = webhookDeliveryKey(hook.id, id);
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) throw badRequest([{ field, reason: `${IDEMPOTENCY_KEY_RULE} once prefixed with h${hook.id}:` }]);
  return key;
}

/**
 * A Stripe-style body's `id` as text. Stripe's are strings (`evt_…`); a sender of its own may
 * number its events, and expects a resent one to be recognised: an integer is its decimal digits
 * (`42` and `"42"` are one delivery). Anything else is refused naming `id` rather than ignored,
 * which would start a resent delivery's runs again: an object, a list, a boolean, and a number
 * that is not a safe integer (JSON.parse rounds it, so two events' ids could become one key).
 */
function stripeIdOf(id: JsonValue | undefined): string | null {
  // An empty id names no delivery, as an empty X-GitHub-Delivery does: keyed `h1:`, it answered every later such delivery with the first.
  if (id === undefined || id === null || id === '') return null;
  if (typeof id === 'string') return id;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return String(id);
  throw badRequest([{ field: 'id', reason: `must be a string or an integer within ±${Number.MAX_SAFE_INTEGER} (the delivery's id, its idempotency key); send a larger number as a string` }]);
}
