import { Inject, Injectable, Logger } from '@nestjs/common';
import { CLOCK, type Clock } from '@baton/domain';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { EngineMetrics } from '../metrics/engine-metrics';
import { RefusalLogThrottle } from './refusal-log-throttle';
import { TenantAdmission, type AdmissionRefusal } from './tenant-admission';
import { TenantBusyError } from './tenant-busy-error';
import { TenantRateLimitedError } from './tenant-rate-limited-error';

/** A tenant's refusals are logged at most this often (with their count since the last line). */
const REFUSAL_LOG_EVERY_MS = 10_000;

/**
 * The engine's side of TenantAdmission: runs the work of a verified signed request once its
 * tenant may (at once, or after waiting its turn), or throws 429 TENANT_BUSY /
 * TENANT_RATE_LIMITED — counted in `baton_engine_signed_requests_refused_total` and logged with
 * the tenant, at most every 10 s per tenant. One per node (SecurityModule), shared by every
 * signed route, so a tenant's callbacks, heartbeats and wake-ups draw on one budget.
 */
@Injectable()
export class SignedRequestAdmission {
  private readonly logger = new Logger('TenantAdmission');
  private readonly admission: TenantAdmission;
  private readonly refusalLog = new RefusalLogThrottle(REFUSAL_LOG_EVERY_MS);

  constructor(
    @Inject(ENGINE_CONFIG) config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: EngineMetrics,
  ) {
    this.admission = new TenantAdmission({
      inFlight: config.tenantRequestsInFlight,
      waiting: config.tenantRequestsWaiting,
      ratePerSec: config.tenantRequestRate,
      burst: config.tenantRequestBurst,
    });
  }

  /** `work` of a request of `tenantId` (verified) to `route` (its protocol path), within the tenant's bounds. */
  async run<T>(tenantId: string, route: string, work: () => Promise<T>): Promise<T> {
    let turn: (() => void) | undefined;
    const turnCame = new Promise<void>((resolve) => (turn = resolve));
    const verdict = this.admission.admit(tenantId, this.clock.now(), turn!);
    if (verdict.kind === 'refused') throw this.refuse(tenantId, route, verdict.reason, verdict.retryAfterMs);
    if (verdict.kind === 'queued') await turnCame;
    try {
      return await work();
    } finally {
      this.admission.release(tenantId);
    }
  }

  private refuse(tenantId: string, route: string, reason: AdmissionRefusal, retryAfterMs: number): Error {
    this.metrics.signedRequestsRefused.inc({ route, reason });
    const now = this.clock.now();
    const refused = this.refusalLog.refused(tenantId, now);
    if (refused > 0) {
      const { working, waiting } = this.admission.load(tenantId);
      this.logger.warn(`tenant ${tenantId}'s signed requests refused (${reason}): ${refused} since the last such line, ${working} worked on and ${waiting} waiting`, { tenantId, reason, route, refused });
    }
    // Whole seconds (the header's unit), at least 1: a shorter wait would be rounded to "now".
    const seconds = Math.max(1, Math.ceil(Math.min(retryAfterMs, 3_600_000) / 1000));
    return reason === 'TENANT_BUSY' ? new TenantBusyError(seconds) : new TenantRateLimitedError(seconds);
  }
}
