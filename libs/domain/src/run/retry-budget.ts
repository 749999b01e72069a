import type { Millis } from '../types';

/**
 * How many retries a tenant's failures may make a second on one engine before they are spaced out.
 *
 * Terminology: a *first attempt* is a run's attempt 1; a *retry* is any later attempt, decided
 * when an attempt fails or times out (domain retryDecision). The budget is Finagle's and gRPC's
 * retry budget, kept as a rate: retries cost nothing extra while they stay below a floor plus a
 * share of the first attempts, and a storm of them (a task that always fails, retried at once a
 * hundred times) cannot take the machine from the other tenants.
 */
export interface RetryBudgetPolicy {
  /**
   * Retries a second earned by the first attempts, as a share of the first attempts a second
   * ended over the last RETRY_BUDGET_WINDOW_MS (10 s): at 0.2, a tenant starting 100 runs a
   * second retries 20 a second (and the floor) at their backoff's time. Default 0.2
   * (BATON_RETRY_BUDGET_PERCENT 20).
   */
  share: number;
  /**
   * Retries a second every tenant has, first attempts or not: the floor of the rate. Default 10
   * (BATON_RETRY_BUDGET_PER_SEC); 0: no budget, every retry at its backoff's time.
   */
  perSecond: number;
}

/** The window over which first attempts earn retries. */
export const RETRY_BUDGET_WINDOW_MS = 10_000;
const SECOND_MS = 1_000;
const SECONDS = RETRY_BUDGET_WINDOW_MS / SECOND_MS;

/**
 * One tenant's retry budget (on one engine, in memory: an engine that restarts starts anew).
 * Retries go in a line at the budget's rate, `perSecond + share × first attempts a second`, with a
 * burst of one second's worth after a quiet spell (GCRA); a retry is due at its backoff's time or
 * at its place in the line, whichever is later. Pure: every call is given `now`. Never makes a
 * retry earlier than its backoff says.
 */
export class RetryBudget {
  /** First attempts ended, per second of the window (a ring indexed by second). */
  private readonly firsts = new Array<number>(SECONDS).fill(0);
  /** The second the ring was last brought to. */
  private second = Number.NEGATIVE_INFINITY;
  /** The line's theoretical time of the next place (GCRA). */
  private lineAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly policy: RetryBudgetPolicy) {
    if (!(policy.share >= 0) || !Number.isFinite(policy.share)) throw new RangeError(`share must be a finite number ≥ 0, got ${policy.share}`);
    if (!(policy.perSecond >= 0) || !Number.isFinite(policy.perSecond)) throw new RangeError(`perSecond must be a finite number ≥ 0, got ${policy.perSecond}`);
  }

  /** `n` first attempts ended at `now`. */
  firstAttemptsEnded(n: number, now: Millis): void {
    this.advance(now);
    this.firsts[this.slot()] += n;
  }

  /**
   * Retries a second the budget allows at `now`. The first attempts are averaged over the whole
   * window, even one that began a moment ago: a burst of failed first attempts earns its retries
   * over 10 s, not at once (averaged over the seconds seen, 1,000 failed runs of one second let 200
   * retries through at once, and another tenant's p99 tripled: docs/BENCHMARKS.md, Failing storm).
   */
  rate(now: Millis): number {
    this.advance(now);
    return this.policy.perSecond + (this.policy.share * sum(this.firsts)) / SECONDS;
  }

  /**
   * When a retry the backoff makes due at `dueAt`, decided at `now`, may be due: `dueAt`, or its
   * place in the line when that is later (`paced`). The place is taken at the decision's time,
   * so a retry with a long backoff does not push the line back for the ones due sooner.
   */
  place(dueAt: Millis, now: Millis): { dueAt: Millis; paced: boolean } {
    if (this.policy.perSecond === 0) return { dueAt, paced: false };
    const spacing = SECOND_MS / this.rate(now);
    // The slack (0.01 ms): fifteen places of 1/15 s add up to a hair over a second in floating point at epoch milliseconds.
    const place = Math.max(now, this.lineAt - SECOND_MS + spacing - 0.01);
    this.lineAt = Math.max(this.lineAt, now) + spacing;
    return place > dueAt ? { dueAt: Math.ceil(place), paced: true } : { dueAt, paced: false };
  }

  /** No first attempt in the window and the line empty at `now`: the budget is as new and may be forgotten. */
  idle(now: Millis): boolean {
    this.advance(now);
    return this.lineAt <= now && sum(this.firsts) === 0;
  }

  /** Clears the seconds that fell out of the window since the last call (a clock stepping back clears nothing). */
  private advance(now: Millis): void {
    const second = Math.floor(now / SECOND_MS);
    if (second <= this.second) return;
    if (this.second !== Number.NEGATIVE_INFINITY) {
      for (let k = 1; k <= Math.min(SECONDS, second - this.second); k++) this.firsts[(this.second + k) % SECONDS] = 0;
    }
    this.second = second;
  }

  /** The ring's slot of the current second (after a clock step back, still the latest second seen). */
  private slot(): number {
    return this.second % SECONDS;
  }
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}
