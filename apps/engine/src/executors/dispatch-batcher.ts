import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '@baton/domain';
import { MAX_RUNS_PER_DISPATCH_BATCH, type DispatchRequest } from '@baton/protocol';
import { Coalescer } from '@baton/scheduling';
import { ExecutorClient, type DispatchAnswer, type SigningTenant } from './executor-client';
import { leaving } from './leaving-request';

/** An executor that answered the batch route with 404 (no route) or 413 (too large for it) is sent runs one by one for this long, then asked again (it may have been upgraded). */
export const NO_BATCH_ROUTE_RECHECK_MS = 60_000;

/** Batches in flight to one executor at once; more runs gather into the next batch meanwhile. */
const BATCHES_IN_FLIGHT = 2;

interface Item {
  tenant: SigningTenant;
  request: DispatchRequest;
  /** A run sent ahead: the instant its executor is to start it (this engine's clock). */
  startAt?: number;
}

/**
 * Dispatches that reach the same executor together leave as one signed POST /baton/runs/batch
 * (issue 11 item 2): in a burst the 64 slots of an engine start their sends within the same
 * milliseconds, and one HMAC and one HTTP exchange for all the runs of one executor cost a
 * fraction of one each. Shaped like the DISPATCHED marks (Coalescer: group commit, no timer):
 * a lone dispatch goes out at once, alone, on the single route; while BATCHES_IN_FLIGHT batches
 * to an executor are out, its next runs gather and go together as soon as one returns. Each
 * run still gets its own answer, exactly what the single route would have said.
 */
@Injectable()
export class DispatchBatcher {
  private readonly lines = new Map<string, Coalescer<Item, DispatchAnswer>>();
  /** Executor URL → until when it is known to lack the batch route. */
  private readonly noBatchRoute = new Map<string, number>();

  constructor(
    private readonly client: ExecutorClient,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** One run to `executorUrl`, batched with the others going there now; `startAt`: sent ahead, to start then (see `leaving`). Never throws. */
  dispatch(executorUrl: string, tenant: SigningTenant, request: DispatchRequest, startAt?: number): Promise<DispatchAnswer> {
    const key = `${tenant.id}\u0000${executorUrl}`;
    let line = this.lines.get(key);
    if (!line) {
      line = new Coalescer<Item, DispatchAnswer>((items) => this.send(executorUrl, items), { concurrency: BATCHES_IN_FLIGHT, maxBatch: MAX_RUNS_PER_DISPATCH_BATCH });
      this.lines.set(key, line);
    }
    return line.push({ tenant, request, startAt });
  }

  private async send(executorUrl: string, items: Item[]): Promise<DispatchAnswer[]> {
    // The newest tenant view signs (a secret rotated meanwhile).
    const tenant = items[items.length - 1].tenant;
    const now = this.clock.now();
    if (items.length > 1 && (this.noBatchRoute.get(executorUrl) ?? 0) <= now) {
      const answers = await this.client.dispatchBatch(executorUrl, tenant, items.map((i) => leaving(i.request, now, i.startAt)));
      if (answers) return answers;
      this.noBatchRoute.set(executorUrl, now + NO_BATCH_ROUTE_RECHECK_MS);
    }
    return Promise.all(items.map((i) => this.client.dispatch(executorUrl, i.tenant, leaving(i.request, this.clock.now(), i.startAt))));
  }
}
