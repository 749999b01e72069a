import { HttpCode, Ip, Param, Post, Req, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiPayloadTooLargeResponse, ApiTooManyRequestsResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { MAX_EVENT_PAYLOAD_BYTES } from '@baton/domain';
import { NotAudited } from '../audit';
import { ConsoleController } from '../common/access';
import type { HttpRequest } from '../common/http';
import { TENANT_REQUESTS_IN_FLIGHT, TENANT_REQUESTS_WAITING, type ClosingResponse } from '../common/tenant-admission';
import { DeliveryAcceptedView } from './dto/inbound-webhook.dto';
import { HookDeliveriesService } from './hook-deliveries.service';
import { STRIPE_TOLERANCE_SECONDS } from './inbound-webhook';

/** The public receiving route of inbound webhooks: no session or API key, the signature is the credential. */
@ConsoleController('hooks', { tag: 'inbound-webhooks', access: 'public' })
export class HooksController {
  constructor(private readonly deliveries: HookDeliveriesService) {}

  @Post(':publicId')
  @HttpCode(201)
  @NotAudited('A delivery is audited as its event (action inbound-webhook.deliver, actor kind inboundWebhook) when its signature verifies; a refused one writes no audit record')
  @ApiOperation({
    summary: "A third party's delivery to an inbound webhook: a signed JSON object that becomes an event of the hook's tenant",
    description:
      `Signed on the raw body with the hook's secret, by its scheme: GITHUB \`X-Hub-Signature-256: sha256=<hex HMAC-SHA256(body)>\` with \`X-GitHub-Delivery\` (required: the idempotency key), ` +
      `STRIPE \`Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256("<t>.<body>")>\`, t within ${STRIPE_TOLERANCE_SECONDS} s of the server's clock (idempotency key: the body's \`id\`, a string or an integer; any other \`id\` is a 400 naming it). ` +
      `The body (a JSON object of at most ${MAX_EVENT_PAYLOAD_BYTES} bytes) is the event's payload. 201: a new event; 200: a repeat of a delivery (it started nothing). ` +
      "A signature is taken once per tenant for as long as the tenant keeps its events (its runs' retention): sent again, it is answered as its first delivery only under that delivery's own id (a redelivery), and refused with 409 under another id or none (a replay).",
  })
  @ApiHeader({
    name: 'X-Hub-Signature-256',
    required: false,
    description: "GITHUB scheme: `sha256=<64 hex digits>`, the HMAC-SHA256 of the raw body with the hook's secret. A delivery carries it or Stripe-Signature (neither: 401); when it carries both, this one is read",
  })
  @ApiHeader({
    name: 'X-GitHub-Delivery',
    required: false,
    description: "GITHUB scheme (required with X-Hub-Signature-256: absent or empty is a 400 naming it): the delivery's id (the same on a redelivery), the event's idempotency key once prefixed with `h<hook id>:`. A key that prefixed is not 1 to 62 of A-Z a-z 0-9 - _ . : ~ is a 400 naming `X-GitHub-Delivery`",
  })
  @ApiHeader({
    name: 'Stripe-Signature',
    required: false,
    description: `STRIPE scheme: \`t=<unix seconds>,v1=<64 hex digits>\`, the HMAC-SHA256 of \`<t>.<raw body>\` with the hook's secret; t within ${STRIPE_TOLERANCE_SECONDS} s of the server's clock (401 otherwise); several v1= allowed (one per live secret while one is rolled)`,
  })
  @ApiCreatedResponse({ type: DeliveryAcceptedView, description: 'A new event (`created: true`), and the runs it started' })
  @ApiOkResponse({ type: DeliveryAcceptedView, description: 'A repeat of a delivery under its idempotency key (`created: false`): the first event, nothing started' })
  @ApiUnauthorizedResponse({ description: 'No signature, a malformed or stale one, or one that does not verify (an unknown hook gets the same answer)' })
  @ApiBadRequestResponse({
    description:
      'The body is not a JSON object (field `body`: malformed JSON says where; a body that is not JSON sent form-encoded or with no Content-Type says to send application/json), or the delivery id is missing (GitHub style) or not a usable key (field `X-GitHub-Delivery` or `id`). ' +
      'The body is read as JSON whatever its Content-Type: a signed JSON object sent as application/x-www-form-urlencoded, text/plain or with none is accepted',
  })
  @ApiConflictResponse({ description: 'A replay: a delivery of the tenant was taken with this signature before, under another delivery id or none (errors name `X-Hub-Signature-256` or `Stripe-Signature`); nothing is stored' })
  @ApiPayloadTooLargeResponse({ description: `The body is over ${MAX_EVENT_PAYLOAD_BYTES} bytes` })
  @ApiTooManyRequestsResponse({
    description:
      `TENANT_BUSY: a delivery is one of its hook's tenant's console requests, of which ${TENANT_REQUESTS_IN_FLIGHT} are worked on at once and ${TENANT_REQUESTS_WAITING} more may wait; ` +
      'this one found the line full (a known hook only: an unknown one is 401 first). `Retry-After` gives the seconds to wait; Stripe sends a failed delivery again by itself, GitHub when it is redelivered',
  })
  async deliver(
    @Param('publicId') publicId: string,
    @Req() request: HttpRequest & { body?: unknown },
    @Ip() address: string | undefined,
    @Res({ passthrough: true }) response: ClosingResponse & { status(code: number): unknown },
  ): Promise<DeliveryAcceptedView> {
    const rawBody = Buffer.isBuffer(request.body) ? request.body : undefined;
    const { status, ...accepted } = await this.deliveries.deliver(publicId, request.headers, rawBody, address ?? null, response);
    response.status(status);
    return accepted;
  }
}
