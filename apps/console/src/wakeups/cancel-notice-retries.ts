import { backoffDelay, type Clock, type RetryPolicy } from '@baton/domain';
import { parseRetryAfter, type OutboundAnswer } from '@baton/protocol';

/**
 * A cancel notice an engine did not take is sent to it again for at most 30 s after its first
 * sending, then given up. Longer than a run is sent ahead (BATON_SEND_AHEAD_MS, 10 s by default),
 * so a notice that gets through in that time still drops the run on its executor before its
 * instant; after the instant, one that gets through still aborts the run that started.
 */
export const NOTICE_GIVE_UP_MS = 30_000;

/**
 * A 429's `Retry-After` is honoured within 50 ms – 5 s. Engines ask for whole seconds (1 s when
 * a tenant is busy); at least 50 ms so that `0` does not make a loop against an engine that
 * refuses, at most 5 s so that one odd header does not spend the wait a run sent ahead has.
 */
export const MIN_RETRY_AFTER_MS = 50;
export const MAX_RETRY_AFTER_MS = 5_000;

/**
 * No answer, a 5xx, or a 429 without `Retry-After`: sent again after 100 ms, doubling to 2 s (a
 * restarting engine or a database blip lasts seconds), with jitter so that the notices of a large
 * cancel do not all come back together.
 */
const BACKOFF: RetryPolicy = { maxAttempts: Number.MAX_SAFE_INTEGER, backoffBaseMs: 100, backoffMaxMs: 2_000, jitter: 0.2 };

/**
 * Notices of one tenant waiting to be sent again, at most: beyond, the oldest is given up. 100
 * is a cancel of 50,000 sent runs refused by two engines, ~1.2 MB of bodies (1,000 ids a notice).
 */
export const MAX_WAITING_NOTICES_PER_TENANT = 100;

/** A cancel notice on its way to one engine. */
export interface EngineNotice {
  tenantId: string;
  engineGroup: string;
  engineId: string;
  body: string;
  runCount: number;
  /** When it was first sent (the console's Clock): it is given up NOTICE_GIVE_UP_MS later. */
  since: number;
  /** Sendings so far. */
  attempt: number;
}

/** After an engine's answer to a notice: it is done, refused for good (400, 401, 403, 404…), or to be sent again in `inMs`. */
export type NoticeNext = { kind: 'delivered' } | { kind: 'refused' } | { kind: 'again'; inMs: number };

export function nextAfter(answer: OutboundAnswer, attempt: number, now: number, draw = Math.random()): NoticeNext {
  if ('failure' in answer || answer.status >= 500) return { kind: 'again', inMs: backoffDelay(BACKOFF, attempt, draw) };
  if (answer.status === 429) {
    const asked = parseRetryAfter(answer.retryAfter, now);
    return { kind: 'again', inMs: asked === undefined ? backoffDelay(BACKOFF, attempt, draw) : Math.min(MAX_RETRY_AFTER_MS, Math.max(MIN_RETRY_AFTER_MS, asked)) };
  }
  return { kind: answer.status === 204 ? 'delivered' : 'refused' };
}

/**
 * Notices waiting on their own timers to be sent again: one tenant's waits hold up nothing of
 * another's, nor any wake-up. At most MAX_WAITING_NOTICES_PER_TENANT a tenant; none after close().
 * The waits are the console clock's timers (the system's unref'd ones: a notice still waiting does
 * not keep a stopping process alive; a test's ManualClock fires them as it moves).
 */
export class WaitingNotices {
  /** Per tenant, in the order they began to wait (a Map keeps it): the first is the oldest; each with what cancels its timer. */
  private readonly byTenant = new Map<string, Map<EngineNotice, () => void>>();
  private closed = false;

  constructor(private readonly clock: Clock) {}

  /** Calls `send(notice)` in `inMs`. Returns the tenant's oldest waiting notice if there were too many: it waits no more. */
  wait(notice: EngineNotice, inMs: number, send: (notice: EngineNotice) => void): EngineNotice | undefined {
    if (this.closed) return undefined;
    let waiting = this.byTenant.get(notice.tenantId);
    if (!waiting) this.byTenant.set(notice.tenantId, (waiting = new Map()));
    const cancel = this.clock.after(inMs, () => {
      this.forget(notice);
      send(notice);
    });
    waiting.set(notice, cancel);
    if (waiting.size <= MAX_WAITING_NOTICES_PER_TENANT) return undefined;
    const [oldest, itsCancel] = waiting.entries().next().value as [EngineNotice, () => void];
    itsCancel();
    this.forget(oldest);
    return oldest;
  }

  close(): void {
    this.closed = true;
    for (const waiting of this.byTenant.values()) for (const cancel of waiting.values()) cancel();
    this.byTenant.clear();
  }

  private forget(notice: EngineNotice): void {
    const waiting = this.byTenant.get(notice.tenantId);
    waiting?.delete(notice);
    if (waiting?.size === 0) this.byTenant.delete(notice.tenantId);
  }
}
