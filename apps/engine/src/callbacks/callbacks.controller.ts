import { Controller, HttpException, HttpCode, Inject, Post, Req, UnauthorizedException } from '@nestjs/common';
import { CLOCK, type Clock } from '@baton/domain';
import { PATHS } from '@baton/protocol';
import { EngineMetrics } from '../metrics/engine-metrics';
import { parseJsonBody } from '../security/bad-request';
import type { RawBodyRequest } from '../security/raw-body.middleware';
import { SignedRequests } from '../security/signed-requests';
import { readCallback } from './callback-body';
import { CallbacksService } from './callbacks.service';

/**
 * `POST /baton/callbacks` on every engine: 200 taken, 401 bad/stale/replayed signature or
 * another tenant's, 400 malformed, 409 stale (the attempt is over or unknown — the SDK treats
 * 409 as delivered and stops retrying). A refused request changes nothing.
 */
@Controller()
export class CallbacksController {
  constructor(
    private readonly signed: SignedRequests,
    private readonly callbacks: CallbacksService,
    private readonly metrics: EngineMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post(PATHS.callback)
  @HttpCode(200)
  async callback(@Req() req: RawBodyRequest): Promise<unknown> {
    const timer = this.metrics.callbackLatency.startTimer();
    try {
      const { tenant, body } = await this.signed.verify(req, PATHS.callback);
      const callback = readCallback(parseJsonBody(body), this.clock.now());
      if (callback.tenantId !== tenant.id) {
        throw new UnauthorizedException({ statusCode: 401, error: 'UNAUTHORIZED', reason: 'TENANT_MISMATCH', message: 'tenantId differs from the signing tenant' });
      }
      const reply = await this.callbacks.handle(callback);
      if (reply.status === 409) {
        const { runId, attempt, reason, state } = reply.body;
        const message =
          reason === 'UNKNOWN_RUN'
            ? `run ${runId} is not a run of this tenant`
            : `attempt ${attempt} of run ${runId} is not executing${state ? ` (run is ${state})` : ''}: nothing changed`;
        throw new HttpException({ statusCode: 409, error: 'CONFLICT', message, ...reply.body }, 409);
      }
      return reply.body;
    } finally {
      timer();
    }
  }
}
