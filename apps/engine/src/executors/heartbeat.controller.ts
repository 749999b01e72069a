import { Controller, HttpCode, HttpException, Logger, Post, Req } from '@nestjs/common';
import { errorBody, PATHS, type ExecutorHeartbeatAck } from '@baton/protocol';
import { parseJsonBody } from '../security/bad-request';
import type { RawBodyRequest } from '../security/raw-body.middleware';
import { SignedRequests, unauthorized } from '../security/signed-requests';
import { ClusterAddressGuard } from './cluster-address-guard';
import { readHeartbeat } from './heartbeat-body';
import { HeartbeatService } from './heartbeat.service';

/** A refused executor heartbeats every few seconds: its warning is logged at most this often. */
const REFUSAL_LOG_EVERY_MS = 60_000;

/**
 * `POST /baton/executors/heartbeat` (signed): an executor registers and stays UP — at a URL its
 * tenant's executor networks allow and that is none of the cluster's own listening addresses
 * (ClusterAddressGuard) — 403 naming `url` otherwise, and nothing is stored: an engine must never
 * be pointed at a metadata service, outside the networks the operator set, or at Baton itself. 429 past
 * the tenant's admission bounds on this engine (SignedRequests.handle): the executor tries its
 * next engine URL, then the next period.
 */
@Controller()
export class HeartbeatController {
  private readonly logger = new Logger('HeartbeatController');
  private readonly refusalsLoggedAt = new Map<string, number>();

  constructor(
    private readonly signed: SignedRequests,
    private readonly heartbeats: HeartbeatService,
    private readonly guard: ClusterAddressGuard,
  ) {}

  @Post(PATHS.heartbeat)
  @HttpCode(200)
  async heartbeat(@Req() req: RawBodyRequest): Promise<ExecutorHeartbeatAck> {
    return this.signed.handle(req, PATHS.heartbeat, async ({ tenant, body, secretVersion }) => {
      const heartbeat = readHeartbeat(parseJsonBody(body));
      if (heartbeat.tenantId !== tenant.id) {
        throw unauthorized('TENANT_MISMATCH', 'tenantId differs from the signing tenant');
      }
      const verdict = this.guard.verdict(heartbeat.url, tenant.executorNetworks);
      if (!verdict.ok) {
        this.logRefusal(tenant.id, heartbeat.url, verdict.reason);
        throw new HttpException(errorBody(403, { errors: [{ field: 'url', reason: verdict.reason }] }), 403);
      }
      return this.heartbeats.record(heartbeat, secretVersion);
    });
  }

  private logRefusal(tenantId: string, url: string, reason: string): void {
    const key = `${tenantId} ${url}`;
    const now = Date.now();
    if (now - (this.refusalsLoggedAt.get(key) ?? -Infinity) < REFUSAL_LOG_EVERY_MS) return;
    if (this.refusalsLoggedAt.size > 10_000) this.refusalsLoggedAt.clear();
    this.refusalsLoggedAt.set(key, now);
    this.logger.warn(`executor registration refused: ${reason}`, { tenantId, url });
  }
}
