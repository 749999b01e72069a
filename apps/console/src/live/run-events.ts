import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { findChangedRuns, findTenant, taskNames } from '@baton/persistence';
import { CLOCK, Clock } from '../common/clock';
import { mapAtMost } from '../common/map-at-most';
import { runView } from '../runs/runs.service';
import type { RunView } from '../runs/dto/run.dto';

/** Ended runs are looked for this far before the poll's window: finished_at may come from an executor's clock. */
const ENDED_MARGIN_MS = 60_000;
/** How long a tenant's engine group is cached. */
const GROUP_CACHE_MS = 10_000;
/** Tenants read at once: a tenant whose read is slow holds one of these, not the others' reads. */
const READS_AT_ONCE = 4;
/**
 * A tenant's read that took d ms waits READ_DUTY × d before its next (reads come once an interval
 * at most anyway): the live page of a tenant with a large backlog, whose going runs are scanned,
 * takes a tenth of a connection's time at most instead of most of one (docs/MANUAL.md, "Live pages").
 */
const READ_DUTY = 10;

/** The socket.io event a run's change is pushed as; its payload is a RunView (as in GET /api/runs). */
export const RUN_EVENT = 'run';

/**
 * Where run events go: the tenants that have someone listening, and a way to emit to one
 * tenant's sockets only. The console's realtime gateway (RealtimeGateway) and its tenant rooms provide it.
 */
export interface RunEventSink {
  tenantsListening(): Iterable<string>;
  emit(tenantId: string, event: string, payload: unknown): void;
}

export interface RunEventsOptions {
  /** How often the runs table is read for changes. Default 250 ms. */
  intervalMs?: number;
  /**
   * How far back each read looks before the newest change already seen: covers clock skew
   * between engine hosts (they write updated_at) and transactions that commit late. Default 3 s.
   */
  overlapMs?: number;
}

/**
 * Live run state for the web console: every ~250 ms it reads, for each tenant with an open
 * socket, the runs whose `updated_at` moved since the last read, and emits each changed run
 * (`run`, a RunView) to that tenant's room only.
 *
 * Why polling: run transitions are written by engines, possibly in other processes and hosts;
 * the database is the one place every one of them is visible, in embedded and cluster mode
 * alike, with no new message topic. The reads are two indexed ranges per tenant with a listener
 * — its runs going, its runs ended in the last minute — so neither an idle console nor a
 * history of millions of runs costs anything, and the delay from a commit to the browser is the
 * interval plus a query (≈ 300 ms).
 *
 * A run is emitted again only when its (state, updatedAt, progress) changes, so the overlap
 * window does not repeat events. Tenants are read READS_AT_ONCE at a time, each paced by what its
 * last read cost (READ_DUTY), so no tenant's runs slow another tenant's live page.
 */
@Injectable()
export class RunEventsService implements OnApplicationShutdown {
  private readonly logger = new Logger('RunEvents');
  private sink: RunEventSink | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private intervalMs = 250;
  private overlapMs = 3000;
  /** Per tenant: the newest updatedAt seen, and what was last sent per run (pruned by age). */
  private readonly cursors = new Map<string, { since: number; sent: Map<number, { key: string; updatedAt: number }> }>();
  /** Per tenant: when its next read is due (READ_DUTY). */
  private readonly nextReadAt = new Map<string, number>();
  /** A tenant's engine group (its runs' group), re-read every GROUP_CACHE_MS: a move to another group is rare. */
  private readonly groups = new Map<string, { group: string | null; at: number }>();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Starts pushing run changes to `sink`. Idempotent per sink; a new sink replaces the old. */
  start(sink: RunEventSink, options: RunEventsOptions = {}): void {
    this.sink = sink;
    this.intervalMs = options.intervalMs ?? this.intervalMs;
    this.overlapMs = options.overlapMs ?? this.overlapMs;
    if (this.timer === null) this.schedule();
  }

  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.sink = null;
  }

  onApplicationShutdown(): void {
    this.stop();
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      void this.tick().finally(() => {
        if (this.sink !== null) this.schedule();
      });
    }, this.intervalMs);
    this.timer.unref?.();
  }

  /** One read for every listening tenant. Exposed for tests. */
  async tick(): Promise<void> {
    const sink = this.sink;
    if (sink === null || this.running || !this.dataSource.isInitialized) return;
    this.running = true;
    try {
      const listening = new Set(sink.tenantsListening());
      for (const tenantId of [...this.cursors.keys()]) {
        if (listening.has(tenantId)) continue;
        this.cursors.delete(tenantId);
        this.nextReadAt.delete(tenantId);
      }
      const now = this.clock.now();
      const due = [...listening].filter((tenantId) => (this.nextReadAt.get(tenantId) ?? now) <= now);
      await mapAtMost(due, READS_AT_ONCE, async (tenantId) => {
        const started = this.clock.now();
        try {
          await this.pollTenant(sink, tenantId);
        } catch (error) {
          this.logger.warn(`run events: ${(error as Error).message}`, { tenantId });
        }
        this.nextReadAt.set(tenantId, started + READ_DUTY * (this.clock.now() - started));
      });
    } finally {
      this.running = false;
    }
  }

  private async pollTenant(sink: RunEventSink, tenantId: string): Promise<void> {
    const now = this.clock.now();
    let cursor = this.cursors.get(tenantId);
    if (cursor === undefined) {
      // A tenant's first listener: changes from now on (its page loaded the current state by REST).
      cursor = { since: now - this.overlapMs, sent: new Map() };
      this.cursors.set(tenantId, cursor);
    }
    const since = cursor.since - this.overlapMs;
    const group = await this.engineGroupOf(tenantId);
    if (group === null) return;
    // finished_at may come from an executor's clock: a minute's margin keeps a skewed one in.
    const { going, ended } = await findChangedRuns(this.dataSource.manager, { tenantId, engineGroup: group, since, endedSince: since - ENDED_MARGIN_MS, limit: 1000 });
    const byId = new Map([...going, ...ended].map((r) => [r.id, r]));
    const rows = [...byId.values()].sort((a, b) => a.updatedAt - b.updatedAt || a.id - b.id);
    const changed = rows.filter((r) => {
      const key = `${r.state}|${r.updatedAt}|${r.progress ?? ''}|${r.attempt}`;
      if (cursor.sent.get(r.id)?.key === key) return false;
      cursor.sent.set(r.id, { key, updatedAt: r.updatedAt });
      return true;
    });
    for (const r of rows) cursor.since = Math.max(cursor.since, r.updatedAt);
    // Forget what is older than the overlap window: it cannot be read again.
    const floor = cursor.since - 2 * this.overlapMs;
    for (const [id, s] of cursor.sent) if (s.updatedAt < floor) cursor.sent.delete(id);
    if (changed.length === 0) return;
    const names = await taskNames(this.dataSource.manager, tenantId, [...new Set(changed.map((r) => r.taskId))]);
    for (const r of changed) {
      const view: RunView = runView(r, names.get(r.taskId) ?? null);
      sink.emit(tenantId, RUN_EVENT, view);
    }
  }

  private async engineGroupOf(tenantId: string): Promise<string | null> {
    const cached = this.groups.get(tenantId);
    if (cached && cached.at > this.clock.now() - GROUP_CACHE_MS) return cached.group;
    const row = await findTenant(this.dataSource.manager, tenantId);
    const group = row?.engineGroup ?? null;
    this.groups.set(tenantId, { group, at: this.clock.now() });
    return group;
  }
}
