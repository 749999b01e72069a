import { Injectable } from '@nestjs/common';
import type { ClaimedRun } from '../common/claimed-run';
import { ExecutorRegistry, type RoutedExecutor } from '../executors/executor-registry';
import type { TenantInfo } from '../tenants/tenant-directory';
import { CreditGate } from './credit-gate';

/** With no executor in the routing table, re-read it at most this often before giving up on a run. */
const EMPTY_REGISTRY_REREAD_MS = 250;

/**
 * Where a run can go now:
 * - SEND: to these executors, in this order; the first one's room is reserved (CreditGate) and
 *   whoever sends answers for it;
 * - FAN_OUT: a BROADCAST/SHARDED run, split over these executors instead of sent;
 * - HELD_BACK: executors exist but none has room; the gate holds the run until one has;
 * - NO_EXECUTOR: none of its app is UP (at a URL the tenant's networks allow);
 * - PINNED_GONE: a broadcast shard whose executor is not UP.
 */
export type Route =
  | { kind: 'SEND' | 'FAN_OUT'; candidates: RoutedExecutor[] }
  | { kind: 'HELD_BACK' }
  | { kind: 'NO_EXECUTOR'; reason: string }
  | { kind: 'PINNED_GONE'; executorId: number };

/**
 * Decides where a run goes, writing nothing: the tenant's UP executors of the task's app in the
 * configured strategy's order (ExecutorRegistry; the executor of a taken-over run first), a
 * broadcast shard's pinned executor only, and — for a run that is sent — only those with room
 * (CreditGate: held back in memory while none has any, rather than refused with 429).
 */
@Injectable()
export class DispatchRouter {
  constructor(
    private readonly registry: ExecutorRegistry,
    private readonly gate: CreditGate,
  ) {}

  async route(run: ClaimedRun, tenant: TenantInfo): Promise<Route> {
    await this.registry.ensureFresh();
    let candidates = this.candidates(run, tenant);
    if (candidates.length === 0) {
      await this.registry.ensureFresh(EMPTY_REGISTRY_REREAD_MS);
      candidates = this.candidates(run, tenant);
    }
    const pinned = run.shard?.pinnedExecutorId ?? null;
    if (pinned !== null) {
      candidates = candidates.filter((c) => c.executorId === pinned);
      if (candidates.length === 0) return { kind: 'PINNED_GONE', executorId: pinned };
    }
    if (candidates.length === 0) {
      this.gate.releaseApp(run);
      const refused = this.registry.onlyRefusedUrls(run.tenantId, run.executorApp, tenant.executorNetworks);
      return { kind: 'NO_EXECUTOR', reason: `no executor of app "${run.executorApp}" is UP${refused ? " at a URL the tenant's executor networks allow" : ''}` };
    }
    if (run.fanOut.mode !== 'SINGLE' && run.shard === null) return { kind: 'FAN_OUT', candidates };
    const open = this.gate.admit(run, candidates);
    return open.length === 0 ? { kind: 'HELD_BACK' } : { kind: 'SEND', candidates: open };
  }

  /** A SEND route's reserved room given back: its run was not sent after all (skipped, lost, an error). */
  unreserve(route: { candidates: readonly RoutedExecutor[] }): void {
    this.gate.answered(route.candidates[0].executorId, { kind: 'OTHER' });
  }

  private candidates(run: ClaimedRun, tenant: TenantInfo): RoutedExecutor[] {
    return this.registry.candidates(run.tenantId, run.executorApp, String(run.taskId), run.executorId, tenant.executorNetworks);
  }
}
