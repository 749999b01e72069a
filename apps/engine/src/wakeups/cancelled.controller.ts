import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { MAX_CANCEL_NOTICE_RUNS, PATHS } from '@baton/protocol';
import { badRequest, isInt, parseJsonBody } from '../security/bad-request';
import type { RawBodyRequest } from '../security/raw-body.middleware';
import { SignedRequests } from '../security/signed-requests';
import { CancelledRuns } from './cancelled-runs';

/**
 * `POST /baton/cancelled` (CancelNotice): the console has cancelled runs of the signing tenant
 * that were sent to executors; this engine asks the executors to abort them (CancelledRuns). 204
 * once the runs are read; 401 unsigned; 400 without 1 to 1,000 positive integer `runIds`. Signed
 * with the tenant's secret like every engine route: a tenant can only have its own cancelled
 * runs aborted, which the console has done already. 429 past the tenant's admission bounds on
 * this engine (SignedRequests.handle): the console sends the notice again after `Retry-After`,
 * for 30 s at most; the runs stay CANCELLED whatever comes, their executors' callbacks are
 * refused as stale.
 */
@Controller()
export class CancelledController {
  constructor(
    private readonly signed: SignedRequests,
    private readonly cancelled: CancelledRuns,
  ) {}

  @Post(PATHS.cancelled)
  @HttpCode(204)
  async cancelledRuns(@Req() req: RawBodyRequest): Promise<void> {
    await this.signed.handle(req, PATHS.cancelled, async ({ tenant, body }) => {
      const { runIds } = parseJsonBody(body);
      if (!Array.isArray(runIds) || runIds.length === 0 || runIds.length > MAX_CANCEL_NOTICE_RUNS || !runIds.every((id) => isInt(id, 1))) {
        throw badRequest('runIds', `must be an array of 1 to ${MAX_CANCEL_NOTICE_RUNS} run ids (positive integers)`);
      }
      await this.cancelled.abort(tenant.id, runIds as number[]);
    });
  }
}
