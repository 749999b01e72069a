import { Logger, type OnModuleDestroy } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { RunCancels, RunWakeup, RunWakeups } from '@baton/messaging';
import { findTenants, findUpEngineNodes, TableSnapshot, type EngineNodeRow } from '@baton/persistence';
import { MAX_CANCEL_NOTICE_RUNS, MAX_WAKE_RUNS, OutboundAgents, PATHS, postOutbound, sign, type CancelNotice, type WakeRequest } from '@baton/protocol';
import type { Clock } from '../common/clock';

/**
 * The live engines and the tenants' secrets are read again after this long: a new engine is woken
 * within a second of its start. The re-read happens beside the wake-up, which goes out with what
 * was read before: a run now does not wait for two reads every second (they were its p90).
 */
const REREAD_MS = 1_000;
/** An engine whose heartbeat is older than this is not woken (it is dying, or gone without saying). */
const SILENT_MS = 10_000;
/** A wake-up is a hint: an engine that does not answer in this long is left to its poll. */
const TIMEOUT_MS = 2_000;

/**
 * Wake-ups over HTTP: POST /baton/wake (and a cancel's POST /baton/cancelled), signed with the tenant's executor secret, to every live
 * engine of the tenant's group (read from engine_nodes), in parallel, answers not awaited by the
 * caller. Every engine of the group is told, not one: whichever claims first fires the run (SKIP
 * LOCKED), and a busy or dying engine does not hold it back. Engine URLs are the engines' own
 * registrations, so no outbound policy applies to them (the check lets every address through).
 */
export class EngineWakeups implements RunWakeups, OnModuleDestroy {
  private readonly logger = new Logger('EngineWakeups');
  private readonly agents = new OutboundAgents({ maxSockets: 4 });
  private readonly engines: TableSnapshot<EngineNodeRow[]>;
  private readonly secrets = new Map<string, TableSnapshot<string | null>>();
  /** Wake-ups of this turn of the event loop, one per tenant (the earliest): a bulk re-run of 500 runs wakes the engines once. */
  private pending = new Map<string, RunWakeup>();
  /** The last signing time used per tenant: see signedAt. */
  private readonly lastSignedAt = new Map<string, number>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {
    this.engines = this.snapshot(() => findUpEngineNodes(dataSource.manager), [], 'the live engines');
  }

  wake(wakeup: RunWakeup): void {
    const pending = this.pending.get(wakeup.tenantId);
    // A microtask, not setImmediate: the wake-ups one commit's hooks make together still go as one,
    // and the run-now's does not wait for the rest of the event loop's turn (0.5 ms at the median).
    if (this.pending.size === 0) queueMicrotask(() => this.flush());
    this.pending.set(wakeup.tenantId, pending ? joined(pending, wakeup) : wakeup);
  }

  /** POST /baton/cancelled to the group's live engines, at once (a cancel is rare; what it stops is on its way). */
  cancelled(cancels: RunCancels): void {
    for (let i = 0; i < cancels.runIds.length; i += MAX_CANCEL_NOTICE_RUNS) {
      const body = JSON.stringify({ runIds: cancels.runIds.slice(i, i + MAX_CANCEL_NOTICE_RUNS) } satisfies CancelNotice);
      this.send(cancels, PATHS.cancelled, body).catch((err: Error) => this.logger.warn(`cancel notice to tenant ${cancels.tenantId}'s engines failed: ${err.message}`, { tenantId: cancels.tenantId }));
    }
  }

  private flush(): void {
    const wakeups = [...this.pending.values()];
    this.pending = new Map();
    for (const wakeup of wakeups) {
      const body = JSON.stringify({ dueAt: wakeup.dueAt, runIds: wakeup.runIds?.length ? [...wakeup.runIds] : undefined } satisfies WakeRequest);
      this.send(wakeup, PATHS.wake, body).catch((err: Error) => this.logger.warn(`wake-up of tenant ${wakeup.tenantId}'s engines failed: ${err.message}`, { tenantId: wakeup.tenantId }));
    }
  }

  onModuleDestroy(): void {
    this.agents.destroy();
  }

  /** One signed POST of `body` to `path` on every live engine of the tenant's group. */
  private async send(to: { tenantId: string; engineGroup: string }, path: string, body: string): Promise<void> {
    const [engines, secret] = await Promise.all([this.liveEngines(), this.secretOf(to.tenantId)]);
    if (secret === null) return;
    const now = this.clock.now();
    const signedAt = this.signedAt(to.tenantId, now);
    const targets = engines.filter((e) => e.groups.includes(to.engineGroup) && now - e.heartbeatAt < SILENT_MS);
    await Promise.all(
      targets.map(async (engine) => {
        const answer = await postOutbound({
          url: `${engine.url.replace(/\/+$/, '')}${path}`,
          body,
          headers: { 'content-type': 'application/json', ...sign(secret, to.tenantId, 'POST', path, body, signedAt) },
          check: () => null,
          timeoutMs: TIMEOUT_MS,
          maxResponseBytes: 4096,
          agents: this.agents,
        });
        if ('failure' in answer) this.logger.debug?.(`engine ${engine.id} not reached on ${path} (${answer.code})`, { tenantId: to.tenantId });
        else if (answer.status !== 204) this.logger.warn(`engine ${engine.id} refused ${path}: HTTP ${answer.status} ${answer.body.slice(0, 200)}`, { tenantId: to.tenantId });
      }),
    );
  }

  /**
   * A signing time later than the tenant's last one: two triggers committed in the same
   * millisecond would otherwise send the same body under the same timestamp — the same signature,
   * which an engine refuses as a replay, and the second run would wait for a poll. Ahead of the
   * clock by a few ms at most, well inside the engines' skew window.
   */
  private signedAt(tenantId: string, now: number): number {
    const at = Math.max(now, (this.lastSignedAt.get(tenantId) ?? 0) + 1);
    this.lastSignedAt.set(tenantId, at);
    return at;
  }

  private liveEngines(): Promise<EngineNodeRow[]> {
    return this.engines.current(REREAD_MS);
  }

  private secretOf(tenantId: string): Promise<string | null> {
    let secret = this.secrets.get(tenantId);
    if (!secret) {
      secret = this.snapshot(() => findTenants(this.dataSource.manager, [tenantId]).then((rows) => rows[0]?.executorSecret ?? null), null, `tenant ${tenantId}'s secret`);
      this.secrets.set(tenantId, secret);
    }
    return secret.current(REREAD_MS);
  }

  private snapshot<T>(read: () => Promise<T>, initial: T, what: string): TableSnapshot<T> {
    return new TableSnapshot(read, { initial, now: () => this.clock.now(), onError: (err) => this.logger.warn(`reading ${what} failed, waking with the last one read: ${err.message}`) });
  }
}

/**
 * Two wake-ups of a tenant as one: the earlier due time, and the runs of both while they fit in
 * one request (MAX_WAKE_RUNS) — past that, none: the engines then read the tenant's due runs.
 */
function joined(a: RunWakeup, b: RunWakeup): RunWakeup {
  const runIds = a.runIds && b.runIds && a.runIds.length + b.runIds.length <= MAX_WAKE_RUNS ? [...a.runIds, ...b.runIds] : undefined;
  return { tenantId: a.tenantId, engineGroup: a.engineGroup, dueAt: Math.min(a.dueAt, b.dueAt), runIds };
}
