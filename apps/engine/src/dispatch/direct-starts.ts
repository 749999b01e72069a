import { Inject, Injectable, Optional } from '@nestjs/common';
import { claimLeaseUntil, CLOCK, type Clock } from '@baton/domain';
import type { DirectStarts, InProcessWakeups, StartPlan, StartRequest } from '@baton/messaging';
import { namedRunOf } from '@baton/persistence';
import type { WakeRunRow } from '@baton/protocol';
import { tracingOn } from '@baton/tracing';
import type { ClaimedRun } from '../common/claimed-run';
import { NodeLiveness } from '../common/node-liveness';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { toClaimedRun } from '../runs/to-claimed-run';
import { recordClaims } from '../tracing/run-spans';
import { IN_PROCESS_WAKEUPS } from '../wakeups/in-process-wakeups';
import { Dispatcher } from './dispatcher';
import { DueQueue } from './due-queue';

/**
 * The engine's side of runs written already sent (DirectStarts, @baton/messaging): the console of
 * its own process (embedded mode, `baton node`) asks, as it is about to write a batch's runs of a
 * task that goes out as it is, whether this engine can send them at once and to which executors;
 * it writes them DISPATCHED to those executors under this node's lease, and hands them over once
 * committed. They then go the way of any run the node holds (due queue, slot, route), and their
 * start writes nothing when they go where the console wrote (RunStart: ClaimedRun.markedAt).
 *
 * Why: a submitted run was written PENDING and then marked DISPATCHED by the engine — a second
 * write of the row and of every index entry that holds its state, a statement, and a round trip
 * that waited on the console's COMMIT, on every run's way. Written sent, a `submit` run at 1,000 a
 * second costs MariaDB a fifth less (docs/BENCHMARKS.md, on demand: Written already sent).
 *
 * Only when the run would go out at once anyway, so that a row DISPATCHED is one being sent: the
 * node is live (registered, its heartbeat proven) and not stopping; it serves the group; none of
 * the tenant's runs waits here for a slot or for room (the new ones take their turn behind no one,
 * and other tenants' turns are those of any run the node holds); the tenant's quota has tokens;
 * and the app's executors have room for all of them (this engine's share of it). A run that waits
 * longer anyway (a slot, a race for room) has its row rerouted at its send (RunStart).
 */
@Injectable()
export class DirectStartsService implements DirectStarts {
  constructor(
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly liveness: NodeLiveness,
    private readonly dueQueue: DueQueue,
    private readonly dispatcher: Dispatcher,
    @Optional() @Inject(IN_PROCESS_WAKEUPS) wakeups?: InProcessWakeups | null,
  ) {
    wakeups?.serveStarts(this);
  }

  plan(request: StartRequest): StartPlan | null {
    const { tenantId, count } = request;
    if (count <= 0 || !this.liveness.live || !this.dueQueue.accepting || !this.config.groups.includes(request.engineGroup)) return null;
    const now = this.clock.now();
    if (this.dueQueue.waitingOf(tenantId) > 0 || !this.dispatcher.quotaKnown(tenantId) || this.dispatcher.outOfTokens(tenantId, now)) return null;
    const executorIds = this.dispatcher.placesFor(tenantId, request.executorApp, request.taskId, count);
    return executorIds && { nodeId: this.config.nodeId, leaseUntil: claimLeaseUntil(now, this.config.leaseMs), executorIds };
  }

  take(tenantId: string, rows: readonly WakeRunRow[], mark: { at: number; leaseUntil: number }): void {
    const runs: ClaimedRun[] = [];
    for (const columns of rows) {
      const { run, task } = namedRunOf(columns);
      // The console wrote them, with their tasks as its share lock read them: a row of another tenant or without its task is not one it sends.
      if (run.tenantId !== tenantId || task === null) continue;
      runs.push(Object.assign(toClaimedRun(run, task), { leaseUntil: mark.leaseUntil, markedAt: mark.at }));
    }
    if (tracingOn() && runs.length > 0) recordClaims(runs, mark.at, this.config.nodeId);
    this.dueQueue.accept(runs);
  }
}
