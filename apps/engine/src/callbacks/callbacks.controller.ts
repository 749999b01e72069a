import { Controller, HttpException, Inject, Logger, Post, Req, Res } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { CLOCK, type Clock } from '@baton/domain';
import { databaseUnavailableMessage } from '@baton/persistence';
import { errorBody, toErrorBody, MAX_CALLBACKS_PER_BATCH, PATHS, type CallbackBatchReply, type CallbackBatchResult, type CallbackConflict } from '@baton/protocol';
import { traceFields } from '@baton/tracing';
import { replyJson } from '../http/json-reply';
import { EngineMetrics } from '../metrics/engine-metrics';
import { badRequest, parseJsonBody } from '../security/bad-request';
import type { RawBodyRequest } from '../security/raw-body.middleware';
import { SignedRequests, unauthorized } from '../security/signed-requests';
import { readCallback } from './callback-body';
import { CallbacksService } from './callbacks.service';

/** A callback's answer: what POST /baton/callbacks replies, and what a batch lists for it. */
type Judgement = { status: number; body: unknown };

/**
 * `POST /baton/callbacks` on every engine: 200 taken, 401 bad/stale/replayed signature or
 * another tenant's, 400 malformed, 409 stale (the attempt is over or unknown — the SDK treats
 * 409 as delivered and stops retrying). A refused request changes nothing.
 *
 * `POST /baton/callbacks/batch`: up to MAX_CALLBACKS_PER_BATCH callbacks under one signature,
 * each judged as above on its own (one bad callback refuses only itself) and all handled at
 * once, so the service reads and commits them together; a callback that could not be processed
 * (database trouble) is answered 503 and retried by the executor.
 *
 * Answers are written straight to the response (replyJson), refusals thrown to the exception
 * filter (one ErrorBody shape). Both routes go through the tenant's admission (SignedRequests.handle):
 * 429 TENANT_BUSY / TENANT_RATE_LIMITED past its bounds, which the executor retries later.
 */
@Controller()
export class CallbacksController {
  private readonly logger = new Logger('Callbacks');

  constructor(
    private readonly signed: SignedRequests,
    private readonly callbacks: CallbacksService,
    private readonly metrics: EngineMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post(PATHS.callback)
  async callback(@Req() req: RawBodyRequest, @Res() res: ServerResponse): Promise<void> {
    await this.signed.handle(req, PATHS.callback, async ({ tenant, body }) => {
      const answer = await this.judge(tenant.id, parseJsonBody(body));
      if (answer.status !== 200) throw new HttpException(answer.body as Record<string, unknown>, answer.status);
      replyJson(res, 200, answer.body);
    });
  }

  @Post(PATHS.callbackBatch)
  async batch(@Req() req: RawBodyRequest, @Res() res: ServerResponse): Promise<void> {
    await this.signed.handle(req, PATHS.callbackBatch, ({ tenant, body }) => this.judgeBatch(tenant.id, body, res));
  }

  private async judgeBatch(tenantId: string, body: string, res: ServerResponse): Promise<void> {
    const { callbacks } = parseJsonBody(body);
    if (!Array.isArray(callbacks) || callbacks.length === 0) throw badRequest('callbacks', 'a non-empty array of callbacks');
    if (callbacks.length > MAX_CALLBACKS_PER_BATCH) throw badRequest('callbacks', `at most ${MAX_CALLBACKS_PER_BATCH} callbacks in one batch`);
    const results = await Promise.all(
      callbacks.map(async (raw: unknown, i): Promise<CallbackBatchResult> => {
        const answer = await this.judge(tenantId, raw, `callbacks[${i}]`).catch((err: Error): Judgement => {
          const said = (raw ?? {}) as { runId?: unknown; traceparent?: unknown };
          this.logger.error(`callback ${i} of a batch failed: ${err.message}`, { tenantId, runId: Number(said.runId) || undefined, ...traceFields(said.traceparent) }, err.stack);
          return { status: 503, body: errorBody(503, { message: `not processed: ${databaseUnavailableMessage(err) ?? 'retry it'}` }) };
        });
        const key = (raw ?? {}) as { runId?: unknown; attempt?: unknown };
        return { runId: Number(key.runId) || 0, attempt: Number(key.attempt) || 0, status: answer.status, body: answer.body as CallbackBatchResult['body'] };
      }),
    );
    replyJson(res, 200, { results } satisfies CallbackBatchReply);
  }

  /** One callback of a verified request: its status and body. Throws only on unexpected errors. */
  private async judge(tenantId: string, raw: unknown, field = 'body'): Promise<Judgement> {
    const timer = this.metrics.callbackLatency.startTimer();
    try {
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw badRequest(field, 'must be a JSON object');
      const callback = readCallback(raw as Record<string, unknown>, this.clock.now());
      if (callback.tenantId !== tenantId) {
        throw unauthorized('TENANT_MISMATCH', 'tenantId differs from the signing tenant');
      }
      if (callback.finishedAt !== undefined) this.metrics.callbackLag.observe(Math.max(0, this.clock.now() - callback.finishedAt) / 1000);
      const reply = await this.callbacks.handle(callback);
      if (reply.status === 409) {
        const { runId, attempt, reason, state } = reply.body;
        const message =
          reason === 'UNKNOWN_RUN'
            ? `run ${runId} is not a run of this tenant`
            : `attempt ${attempt} of run ${runId} is not executing${state ? ` (run is ${state})` : ''}: nothing changed`;
        return { status: 409, body: errorBody(409, { message }, reply.body) satisfies CallbackConflict };
      }
      return { status: 200, body: reply.body };
    } catch (err) {
      if (err instanceof HttpException) return { status: err.getStatus(), body: toErrorBody(err.getStatus(), err.getResponse()) };
      throw err;
    } finally {
      timer();
    }
  }
}
