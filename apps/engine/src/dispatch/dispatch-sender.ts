import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, parseParentResults, type Clock } from '@baton/domain';
import { xxlBlockStrategyOf, xxlTriggerOf, type DispatchRequest } from '@baton/protocol';
import { forwardedTraceparent, isSampled, traceparentOf, tracingOn } from '@baton/tracing';
import type { ClaimedRun } from '../common/claimed-run';
import { DispatchBatcher } from '../executors/dispatch-batcher';
import type { DispatchAnswer, SigningTenant } from '../executors/executor-client';
import { STARTS_AT_INSTANT_FROM, type RoutedExecutor } from '../executors/executor-registry';
import { XxlJobClient } from '../executors/xxl-job-client';
import { EngineMetrics } from '../metrics/engine-metrics';
import { DispatchSetbacks } from '../runs/dispatch-setbacks';
import { endDispatchSpan, startDispatchSpan } from '../tracing/run-spans';
import { CallbackUrls } from './callback-urls';
import { CreditGate } from './credit-gate';
import { LaneSender } from './lane-sender';

/** One candidate's refusal: busy, rejected, unreachable, or no answer at all. */
export interface Refusal {
  executor: RoutedExecutor;
  answer: Exclude<DispatchAnswer, { kind: 'ACCEPTED' }>;
}

/**
 * How sending a DISPATCHED run went:
 * - ACCEPTED by `executorId` (202): `leftAt` is when the accepted request left, `at` when its answer came;
 * - REFUSED by every candidate asked (in order); one that gave no answer ends the walk, since
 *   it may have started the run;
 * - LOST: it ended meanwhile (an executor that timed out on us did start it and called back).
 */
export type Verdict =
  | { kind: 'ACCEPTED'; executorId: number; leftAt: number; at: number }
  | { kind: 'REFUSED'; refusals: Refusal[] }
  | { kind: 'LOST' };

/**
 * Sends a DISPATCHED run to its candidates in turn (signed POST through the DispatchBatcher)
 * and says how it went, deciding nothing about the run's fate. 202 → ACCEPTED; 429, 5xx,
 * timeout, network error, 4xx → the next candidate, the run re-pointed at it first
 * (DispatchSetbacks.reroute). No answer: the same executor is asked once more (it de-duplicates
 * by run and attempt), and an ambiguous run never goes to another executor. Every request's
 * room is accounted for on the CreditGate, the first candidate's reserved by the router.
 */
@Injectable()
export class DispatchSender {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly batcher: DispatchBatcher,
    private readonly gate: CreditGate,
    private readonly setbacks: DispatchSetbacks,
    private readonly callbackUrls: CallbackUrls,
    private readonly metrics: EngineMetrics,
    private readonly lane: LaneSender,
    private readonly xxl: XxlJobClient,
  ) {}

  /**
   * `sendAt`: a run of the on-time lane, whose first request leaves at that instant, never before
   * (LaneSender). `startAt`: a run sent ahead, which its executor is to start at that instant
   * (`startInMs`); a candidate that does not take runs ahead (protocol 1) is asked at the instant.
   */
  async send(run: ClaimedRun, tenant: SigningTenant, candidates: readonly RoutedExecutor[], sendAt?: number, startAt?: number): Promise<Verdict> {
    if (!tracingOn()) return this.sendTo(run, tenant, candidates, sendAt, startAt, undefined);
    // A run left out of sampling: no span; its executor gets only a caller's context (sampled=0), as W3C asks.
    if (!isSampled(run.traceParent)) return this.sendTo(run, tenant, candidates, sendAt, startAt, forwardedTraceparent(run.traceParent));
    const span = startDispatchSpan(run);
    let verdict: Verdict | undefined;
    try {
      // Not made the active span: an engine never calls context.with, which would turn on Node's async hooks (AsyncLocalStorage) for every promise of the process.
      return (verdict = await this.sendTo(run, tenant, candidates, sendAt, startAt, traceparentOf(span) ?? undefined));
    } finally {
      endDispatchSpan(span, verdict);
    }
  }

  /** `send`, each request carrying `traceparent` (the dispatch span's when sampled, a caller's unsampled one, or none). */
  private async sendTo(run: ClaimedRun, tenant: SigningTenant, candidates: readonly RoutedExecutor[], sendAt: number | undefined, startAt: number | undefined, traceparent: string | undefined): Promise<Verdict> {
    const refusals: Refusal[] = [];
    for (const [i, executor] of candidates.entries()) {
      if (i > 0 && !(await this.setbacks.reroute(run, executor.executorId))) return { kind: 'LOST' };
      // Sent ahead to one that starts it at its instant; else a fallback candidate that does not is asked at the instant.
      const ahead = startAt !== undefined && executor.protocolVersion >= STARTS_AT_INSTANT_FROM;
      const leaveAt = ahead ? undefined : i === 0 ? sendAt : startAt;
      const { answer, leftAt } =
        executor.wire === 'xxl-job'
          ? await this.askXxlJob(executor, tenant, run, i === 0, leaveAt ?? startAt, i < candidates.length - 1)
          : await this.ask(executor, tenant, run, i === 0, leaveAt, ahead ? startAt : undefined, traceparent);
      if (answer.kind === 'ACCEPTED') return { kind: 'ACCEPTED', executorId: executor.executorId, leftAt, at: this.clock.now() };
      refusals.push({ executor, answer });
      this.metrics.dispatchFailures.inc({ reason: answer.kind === 'BUSY' ? 'BUSY' : answer.kind === 'REJECTED' ? 'REJECTED' : 'UNREACHABLE' });
      if (answer.kind === 'UNKNOWN') break;
    }
    return { kind: 'REFUSED', refusals };
  }

  /**
   * One dispatch POST to `executor`, its room accounted for (`reserved`: the router took it already).
   * `leftAt` is when the request left, not when the run was marked DISPATCHED: in a burst the two
   * are apart by the wait for a socket and the signing of the runs ahead; the ack writes it as
   * the run's dispatched_at.
   */
  private async ask(
    executor: RoutedExecutor,
    tenant: SigningTenant,
    run: ClaimedRun,
    reserved: boolean,
    sendAt: number | undefined,
    startAt: number | undefined,
    traceparent: string | undefined,
  ): Promise<{ answer: DispatchAnswer; leftAt: number }> {
    if (!reserved) this.gate.sent(executor.executorId);
    let answer: DispatchAnswer = { kind: 'UNKNOWN', message: 'not sent' };
    let leftAt = this.clock.now();
    try {
      const byLane = sendAt === undefined ? null : await this.lane.send(executor.url, tenant, this.request(run, sendAt, undefined, traceparent), sendAt);
      if (byLane) ({ answer, leftAt } = byLane);
      else {
        if (sendAt !== undefined) await this.until(sendAt);
        leftAt = this.clock.now();
        answer = await this.batcher.dispatch(executor.url, tenant, this.request(run, leftAt, startAt, traceparent), startAt);
      }
      if (answer.kind === 'UNKNOWN') {
        leftAt = this.clock.now();
        answer = await this.batcher.dispatch(executor.url, tenant, this.request(run, leftAt, startAt, traceparent), startAt);
      }
    } finally {
      this.gate.answered(
        executor.executorId,
        answer.kind === 'ACCEPTED' ? { kind: 'ACCEPTED', credit: answer.credit, creditSeq: answer.creditSeq } : answer.kind === 'BUSY' ? { kind: 'BUSY' } : { kind: 'OTHER' },
      );
    }
    return { answer, leftAt };
  }

  /**
   * One `run` to an XXL-JOB executor, its room accounted for like `ask`'s: at `sendAt` (its
   * instant; XXL-JOB has no "start later"), never before. With other candidates behind it, the
   * executor is asked `idleBeat` first and a busy job thread passes the run on (BUSY: XXL-JOB's
   * busy-over); the last candidate gets it whatever, its block strategy deciding.
   */
  private async askXxlJob(executor: RoutedExecutor, tenant: SigningTenant, run: ClaimedRun, reserved: boolean, sendAt: number | undefined, othersBehind: boolean): Promise<{ answer: DispatchAnswer; leftAt: number }> {
    if (!reserved) this.gate.sent(executor.executorId);
    let answer: DispatchAnswer = { kind: 'UNKNOWN', message: 'not sent' };
    let leftAt = this.clock.now();
    try {
      if (sendAt !== undefined) await this.until(sendAt);
      if (othersBehind && !(await this.xxl.idle(executor.url, tenant, run.taskId))) return { answer: (answer = { kind: 'BUSY', status: 200 }), leftAt };
      leftAt = this.clock.now();
      const trigger = xxlTriggerOf(this.request(run, leftAt, undefined, undefined), xxlBlockStrategyOf(run.concurrencyPolicy), leftAt);
      answer = await this.xxl.run(executor.url, tenant, trigger);
    } finally {
      this.gate.answered(executor.executorId, answer.kind === 'ACCEPTED' ? { kind: 'ACCEPTED' } : answer.kind === 'BUSY' ? { kind: 'BUSY' } : { kind: 'OTHER' });
    }
    return { answer, leftAt };
  }

  /** Resolves at `at` (the clock's time), never before (a timer may fire a millisecond early by the wall clock). */
  private async until(at: number): Promise<void> {
    for (let ms = at - this.clock.now(); ms > 0; ms = at - this.clock.now()) await new Promise((resolve) => setTimeout(resolve, ms));
  }

  /**
   * The run's request as it leaves at `sentAt`; sent ahead, its deadline counted from `startAt`
   * (the batcher and the lane add the times relative to the moment it leaves — the wait until
   * then, `startInMs`, and the time left until its deadline, `deadlineInMs`: leaving-request.ts).
   */
  private request(run: ClaimedRun, sentAt: number, startAt: number | undefined, traceparent: string | undefined): DispatchRequest {
    return {
      runId: run.runId,
      attempt: run.attempt,
      tenantId: run.tenantId,
      taskId: run.taskId,
      taskName: run.taskName,
      handler: run.handler,
      params: (run.params ?? null) as DispatchRequest['params'],
      scheduledAt: run.scheduledAt,
      deadline: Math.max(sentAt, startAt ?? sentAt) + run.timeoutMs,
      callbackUrls: this.callbackUrls.urls(run.engineGroup),
      ...(run.parentResults ? { parentResults: parseParentResults(run.parentResults) } : {}),
      ...(run.flowParams ? { flowParams: JSON.parse(run.flowParams) as DispatchRequest['flowParams'] } : {}),
      ...(run.shard ? { shardIndex: run.shard.index, shardTotal: run.shard.total } : {}),
      ...(traceparent ? { traceparent } : {}),
    };
  }
}
