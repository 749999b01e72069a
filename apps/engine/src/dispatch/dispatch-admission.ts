import { Inject, Injectable } from '@nestjs/common';
import { TokenBuckets, type TokenBucketOptions } from '@baton/scheduling';
import type { ClaimedRun } from '../common/claimed-run';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { TenantDirectory } from '../tenants/tenant-directory';

/** Tenant bucket of a tenant read as absent (the tenants table's defaults): its runs are deferred at dispatch. */
const DEFAULT_TENANT_LIMITS: TokenBucketOptions = { capacity: 2000, refillPerSec: 1000 };
/**
 * The buckets refill in steps of up to this: their clock is read to the step below, and a run
 * without a token waits until the step its token is there in. So a paced tenant's or task's runs
 * get their tokens a step's worth at a time and go out together: refilled by the millisecond, a task paced
 * at BATON_TASK_RATE (500 a second an engine, its default then) sent its runs one or two at a time as each slot
 * freed — a DISPATCHED mark, a signed request to an executor and an outcome callback for every
 * 2.8 runs in the event-ingest drain (one task, 2 engines). Measured in turn, three runs each
 * (bench event-ingest, 2026-12-06): CPU a run over intake and drain 2.09, 2.13, 2.32 ms → 1.65,
 * 1.89, 2.03 ms; runs a second end to end 905, 884, 813 → 973, 908, 869. The rate is the same;
 * a paced run goes out at most a step later than its token allowed, never earlier. A bucket whose
 * burst holds less than a step's refill gets a shorter step (stepOf): a step must never fill it
 * past its burst, or the tokens over it would be lost and the rate cut.
 */
export const TOKEN_STEP_MS = 25;

/**
 * How long a run waits when its tenant's row has not been read yet on this engine (it was asked
 * for when the run was accepted: Dispatcher.prepare), before it asks again: one read's time.
 */
export const TENANT_READ_WAIT_MS = 5;

/**
 * Admission by rate: a run is dispatched only with a token of its tenant's bucket (the tenant's
 * `rate_per_sec` / `burst`, as read from its row and re-applied when they change) AND of its
 * task's when tasks are capped (`BATON_TASK_RATE` / `BATON_TASK_BURST`; default: no cap), both
 * or neither — one tenant's burst does not starve the others. Per engine. (A tenant's tasks share
 * its turns by the ready line, not by a cap: ReadyLine.)
 */
@Injectable()
export class DispatchAdmission {
  private readonly buckets: TokenBuckets;
  /** Tenant limits applied to the buckets, as `rate/burst`. */
  private readonly appliedLimits = new Map<string, string>();

  constructor(
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    private readonly tenants: TenantDirectory,
  ) {
    this.buckets = new TokenBuckets({ limitsFor: (key) => this.limitsFor(key) });
  }

  /**
   * Takes a token from the run's tenant bucket and, when tasks are capped, its task's (both or neither).
   * Returns 0 when taken, else the ms until they could be — `ahead` runs of the same buckets
   * being already in line, each needing its own token. None is taken before the tenant's quota is
   * known (quotaKnown): TENANT_READ_WAIT_MS then.
   */
  takeTokens(run: ClaimedRun, at: number, ahead = 0): number {
    if (!this.quotaKnown(run.tenantId)) return TENANT_READ_WAIT_MS;
    this.syncTenantLimits(run.tenantId, at);
    const keys = keysOf(run);
    const step = this.stepOf(keys);
    const now = Math.floor(at / step) * step;
    if (ahead === 0 && this.buckets.tryTakeAll(now, keys)) return 0;
    let wait = this.buckets.msUntilAvailable(now, keys);
    if (ahead > 0) {
      const slowest = Math.min(...keys.map((k) => this.buckets.bucket(k)?.refillPerSec ?? Infinity));
      wait += slowest > 0 && Number.isFinite(slowest) ? Math.ceil((ahead * 1000) / slowest) : 0;
    }
    // Until the step its tokens are there in, counted from `at`.
    return Number.isFinite(wait) ? Math.max(1, Math.ceil((now + wait) / step) * step - at) : 60_000;
  }

  /** The refill step of these buckets (TOKEN_STEP_MS, shorter when a burst holds less than its refill). */
  private stepOf(keys: readonly string[]): number {
    let step = TOKEN_STEP_MS;
    for (const key of keys) {
      const bucket = this.buckets.bucket(key);
      if (bucket && bucket.refillPerSec > 0) step = Math.min(step, Math.floor((bucket.capacity * 1000) / bucket.refillPerSec));
    }
    return Math.max(1, step);
  }

  /**
   * Whether this engine has read the tenant's row, and so knows its quota; if not, the read is asked
   * for (it was when the tenant's runs were accepted: Dispatcher.prepare) and its runs wait for it. Taken
   * from the defaults' bucket instead, a tenant of 5 runs a second started its first runs together
   * whenever the read came after their instant (an engine's start, the tenant's first runs on it).
   */
  quotaKnown(tenantId: string): boolean {
    if (this.tenants.hasRead(tenantId)) return true;
    this.tenants.prefetch([tenantId]);
    return false;
  }

  /** Whether the tenant's bucket has no token now: its runs here wait for its quota (false before it was first used). */
  outOfTokens(tenantId: string, at: number): boolean {
    const key = `tenant:${tenantId}`;
    const bucket = this.buckets.bucket(key);
    if (bucket === undefined) return false;
    const step = this.stepOf([key]);
    return !bucket.canTake(Math.floor(at / step) * step);
  }

  /** The run's tokens back to its buckets (it was not sent; it takes them anew when it comes round). */
  refund(run: ClaimedRun, at: number): void {
    const keys = keysOf(run);
    const step = this.stepOf(keys);
    this.buckets.refundAll(Math.floor(at / step) * step, keys);
  }

  private limitsFor(key: string): TokenBucketOptions | undefined {
    if (key.startsWith('task:')) {
      return this.config.taskRatePerSec > 0 ? { capacity: Math.max(1, this.config.taskBurst), refillPerSec: this.config.taskRatePerSec } : undefined;
    }
    const tenant = this.tenants.peek(key.slice('tenant:'.length));
    if (!tenant) return DEFAULT_TENANT_LIMITS;
    return tenantLimits(tenant.ratePerSec, tenant.burst);
  }

  /** A tenant's quota as read from its row, applied once it is known and whenever it changes. */
  private syncTenantLimits(tenantId: string, now: number): void {
    const tenant = this.tenants.peek(tenantId);
    if (!tenant) return;
    const applied = `${tenant.ratePerSec}/${tenant.burst}`;
    if (this.appliedLimits.get(tenantId) === applied) return;
    this.appliedLimits.set(tenantId, applied);
    this.buckets.configure(now, `tenant:${tenantId}`, tenantLimits(tenant.ratePerSec, tenant.burst));
  }
}

/** A rate of 0 (or less) means "not limited" — a tenant is stopped by pausing its tasks, not by starving it. */
function tenantLimits(ratePerSec: number, burst: number): TokenBucketOptions | undefined {
  return ratePerSec > 0 ? { capacity: Math.max(1, burst), refillPerSec: ratePerSec } : undefined;
}

function keysOf(run: ClaimedRun): [string, string] {
  return [`tenant:${run.tenantId}`, `task:${run.taskId}`];
}
