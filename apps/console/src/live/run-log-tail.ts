import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { Socket } from 'socket.io';
import { DataSource } from 'typeorm';
import { readRunLogPage, runExists } from '@baton/persistence';
import type { RunLogView } from '../runs/dto/run.dto';

/** socket.io events of the live log tail. */
export const RUN_LOGS_WATCH = 'run:logs:watch';
export const RUN_LOGS_UNWATCH = 'run:logs:unwatch';
/** Pushed to a watching socket: `{ runId, lines: RunLogView[] }`, lines in id order. */
export const RUN_LOGS_EVENT = 'run:logs';

/** Runs one socket may watch at once. */
export const MAX_WATCHED_RUNS = 20;
/** Lines read per run per poll; a run that wrote more catches up over the next polls. */
const LINES_PER_POLL = 500;

export type WatchReply = { ok: true } | { ok: false; statusCode: number; message: string };

/**
 * The live tail of run logs (issue 13 item 5): a run-detail page asks to watch its run
 * (`run:logs:watch { runId, afterId }`, afterId = the newest line it has); every `intervalMs`
 * the lines written since are read (ix_run_logs_run: one range per watched run) and pushed to
 * the watching sockets only. The lines reach run_logs while the handler runs because the SDK
 * sends them with its throttled interim callbacks (once a second by default).
 *
 * Polling the database rather than a topic, like the run events: the lines are written by
 * engines in other processes, and the database is where all of them are visible.
 */
@Injectable()
export class RunLogTail implements OnApplicationShutdown {
  private readonly logger = new Logger('RunLogTail');
  /** Per socket: its tenant, and watched run → newest line id sent to it. */
  private readonly watches = new Map<Socket, { tenantId: string; runs: Map<number, number> }>();
  private timer: NodeJS.Timeout | null = null;
  private polling = false;

  constructor(private readonly dataSource: DataSource) {}

  start(intervalMs = 500): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.poll(), intervalMs);
    this.timer.unref?.();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Starts watching `runId` for `socket` when the run is its tenant's. */
  async watch(socket: Socket, tenantId: string, payload: unknown): Promise<WatchReply> {
    const body = (typeof payload === 'object' && payload !== null ? payload : {}) as { runId?: unknown; afterId?: unknown };
    const runId = body.runId;
    const afterId = body.afterId ?? 0;
    if (typeof runId !== 'number' || !Number.isSafeInteger(runId) || runId < 1) return { ok: false, statusCode: 400, message: 'runId: must be a run id' };
    if (typeof afterId !== 'number' || !Number.isSafeInteger(afterId) || afterId < 0) return { ok: false, statusCode: 400, message: 'afterId: must be a log line id or 0' };
    const owned = await runExists(this.dataSource.manager, tenantId, runId);
    if (!owned) return { ok: false, statusCode: 404, message: `Run ${runId} not found` };
    let watch = this.watches.get(socket);
    if (!watch) {
      this.watches.set(socket, (watch = { tenantId, runs: new Map() }));
      socket.once('disconnect', () => this.watches.delete(socket));
    }
    const runs = watch.runs;
    if (!runs.has(runId) && runs.size >= MAX_WATCHED_RUNS) return { ok: false, statusCode: 429, message: `at most ${MAX_WATCHED_RUNS} runs watched at once` };
    runs.set(runId, afterId);
    return { ok: true };
  }

  unwatch(socket: Socket, payload: unknown): void {
    const runId = (payload as { runId?: unknown } | null)?.runId;
    if (typeof runId === 'number') this.watches.get(socket)?.runs.delete(runId);
  }

  /** One read for every watched run. Exposed for tests. */
  async poll(): Promise<void> {
    if (this.polling || this.watches.size === 0 || !this.dataSource.isInitialized) return;
    this.polling = true;
    try {
      const from = new Map<number, { tenantId: string; after: number }>();
      for (const { tenantId, runs } of this.watches.values()) {
        for (const [runId, after] of runs) from.set(runId, { tenantId, after: Math.min(after, from.get(runId)?.after ?? after) });
      }
      for (const [runId, { tenantId, after }] of from) {
        const rows = await readRunLogPage(this.dataSource.manager, { tenantId, runId, afterId: after, limit: LINES_PER_POLL });
        if (rows.length === 0) continue;
        const lines: RunLogView[] = rows.map((l) => ({ id: l.id, attempt: l.attempt, at: l.at, level: l.level, message: l.message }));
        for (const [socket, { runs }] of this.watches) {
          const sent = runs.get(runId);
          if (sent === undefined) continue;
          const fresh = lines.filter((l) => l.id > sent);
          if (fresh.length === 0) continue;
          runs.set(runId, fresh[fresh.length - 1].id);
          socket.emit(RUN_LOGS_EVENT, { runId, lines: fresh });
        }
      }
    } catch (err) {
      this.logger.warn(`live log tail: ${(err as Error).message}`);
    } finally {
      this.polling = false;
    }
  }
}
