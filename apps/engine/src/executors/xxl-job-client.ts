import { Inject, Injectable, OnApplicationShutdown, Optional } from '@nestjs/common';
import {
  OUTBOUND_RESOLVER,
  OutboundAgents,
  postOutbound,
  XXL_JOB_ACCESS_TOKEN_HEADER,
  XXL_JOB_EXECUTOR_PATHS,
  XXL_JOB_SUCCESS,
  type ResolveAll,
  type XxlLogParam,
  type XxlLogResult,
  type XxlReturn,
  type XxlTriggerParam,
} from '@baton/protocol';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { ClusterAddressGuard } from './cluster-address-guard';
import { executorFailure, NO_EXECUTOR_OF_TENANT, type DispatchAnswer, type SigningTenant } from './executor-client';

/** Longest answer read from an XXL-JOB executor: a log page is the largest (xxl-job-core reads a whole log file). */
const MAX_XXL_ANSWER_BYTES = 1024 * 1024;

type Reply = { ok: true; answer: XxlReturn } | { ok: false; message: string; notSent: boolean };

/**
 * Engine → XXL-JOB executor (xxl-job-core's embedded server): POST `{address}run`, `kill`,
 * `log`, `beat`, `idleBeat`, JSON, with the tenant's XXL-JOB access token in the
 * XXL-JOB-ACCESS-TOKEN header — under the same outbound policy as Baton executors (the tenant's
 * executor networks, keep-alive pools per tenant, the dispatch timeout, answers bounded).
 * XXL-JOB answers HTTP 200 with a ReturnT whatever happened; its `code` says how it went.
 */
@Injectable()
export class XxlJobClient implements OnApplicationShutdown {
  private readonly agents: OutboundAgents;
  private readonly timeoutMs: number;

  constructor(
    @Inject(ENGINE_CONFIG) config: EngineConfig,
    private readonly guard: ClusterAddressGuard,
    @Optional() @Inject(OUTBOUND_RESOLVER) private readonly resolve?: ResolveAll,
  ) {
    this.agents = new OutboundAgents({ maxSockets: Math.max(config.slots, 16) });
    this.timeoutMs = config.dispatchTimeoutMs;
  }

  /**
   * `run`: code 200 → ACCEPTED (the trigger is on the job's thread); "repeate trigger job" (its
   * thread has this logId already: a run sent again after no answer) → ACCEPTED, it runs once;
   * another code → REJECTED with XXL-JOB's msg (unknown handler, DISCARD_LATER while busy).
   * Not an XXL-JOB answer, or no answer that could have been taken → UNAVAILABLE (executorFailure).
   * No answer after the request may have left → ACCEPTED too: xxl-job-core drops a repeated
   * logId only while it waits in the job's queue, not once it runs, so sending it again could run
   * it twice; a trigger that never arrived ends at the run's timeout, and its retry is a new
   * attempt (a new logId). Never throws.
   */
  async run(address: string, tenant: SigningTenant, trigger: XxlTriggerParam): Promise<DispatchAnswer> {
    const reply = await this.post(address, XXL_JOB_EXECUTOR_PATHS.run, tenant, trigger);
    if (!reply.ok) return reply.notSent ? { kind: 'UNAVAILABLE', status: null, message: reply.message } : { kind: 'ACCEPTED', status: 0 };
    const { code, msg } = reply.answer;
    if (code === XXL_JOB_SUCCESS || /^repeate trigger job/.test(msg ?? '')) return { kind: 'ACCEPTED', status: 200 };
    return { kind: 'REJECTED', status: 200, reason: `XXL_JOB_${code}`, message: msg ?? `code ${code}` };
  }

  /** `kill` of the job's thread (its running trigger and those queued behind it); true when the executor answered code 200. */
  async kill(address: string, tenant: SigningTenant, jobId: number): Promise<boolean> {
    const reply = await this.post(address, XXL_JOB_EXECUTOR_PATHS.kill, tenant, { jobId });
    return reply.ok && reply.answer.code === XXL_JOB_SUCCESS;
  }

  /** `beat`: true when the executor is up and takes the tenant's token. */
  async beat(address: string, tenant: SigningTenant): Promise<boolean> {
    const reply = await this.post(address, XXL_JOB_EXECUTOR_PATHS.beat, tenant, '');
    return reply.ok && reply.answer.code === XXL_JOB_SUCCESS;
  }

  /** `idleBeat`: true when the job's thread is neither running nor holding queued triggers there. */
  async idle(address: string, tenant: SigningTenant, jobId: number): Promise<boolean> {
    const reply = await this.post(address, XXL_JOB_EXECUTOR_PATHS.idleBeat, tenant, { jobId });
    return reply.ok && reply.answer.code === XXL_JOB_SUCCESS;
  }

  /** `log` of a trigger from its first line; null when the executor has none to give. */
  async log(address: string, tenant: SigningTenant, logId: number, logDateTime: number): Promise<XxlLogResult | null> {
    const param: XxlLogParam = { logId, logDateTim: logDateTime, logDateTime, fromLineNum: 1 };
    const reply = await this.post(address, XXL_JOB_EXECUTOR_PATHS.log, tenant, param);
    if (!reply.ok || reply.answer.code !== XXL_JOB_SUCCESS) return null;
    const result = reply.answer.content ?? reply.answer.data;
    return result && typeof result === 'object' ? (result as XxlLogResult) : null;
  }

  onApplicationShutdown(): void {
    this.agents.destroy();
  }

  private async post(address: string, path: string, tenant: SigningTenant, payload: unknown): Promise<Reply> {
    const verdict = this.guard.verdict(address, tenant.executorNetworks);
    if (!verdict.ok) return { ok: false, message: `EXECUTOR_URL_REFUSED: ${verdict.reason}`, notSent: true };
    const headers: Record<string, string> = { 'content-type': 'application/json;charset=UTF-8' };
    if (tenant.xxlJobAccessToken) headers[XXL_JOB_ACCESS_TOKEN_HEADER] = tenant.xxlJobAccessToken;
    const answer = await postOutbound({
      url: address.replace(/\/*$/, '/') + path,
      body: typeof payload === 'string' ? payload : JSON.stringify(payload),
      headers,
      check: this.guard.check(address, tenant.executorNetworks),
      timeoutMs: this.timeoutMs,
      maxResponseBytes: MAX_XXL_ANSWER_BYTES,
      agents: this.agents,
      pool: `xxl\u0000${tenant.id}`,
      resolve: this.resolve,
    });
    if (!('status' in answer)) {
      if (answer.failure === 'REFUSED') return { ok: false, message: `${answer.code}: ${answer.message}`, notSent: true };
      const failure = executorFailure(answer, { timeoutMs: this.timeoutMs, maxBytes: MAX_XXL_ANSWER_BYTES });
      return { ok: false, message: failure.error, notSent: failure.notSent };
    }
    // Not an XXL-JOB executor's answer (it answers 200 with a ReturnT whatever happened): nothing of it is told, as for a Baton executor (NO_EXECUTOR_OF_TENANT).
    const parsed = answer.status === 200 ? parse(answer.body) : null;
    if (!parsed || typeof parsed !== 'object' || !Number.isInteger((parsed as XxlReturn).code)) return { ok: false, message: NO_EXECUTOR_OF_TENANT, notSent: true };
    return { ok: true, answer: parsed as XxlReturn };
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
