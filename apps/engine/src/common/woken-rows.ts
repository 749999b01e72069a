import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '@baton/domain';
import { namedRunOf, type NamedRun, type NamedRunColumns } from '@baton/persistence';

/** How long a wake-up's rows are taken instead of a read: the claim by id comes within milliseconds; later, the run is read again (its task may have changed). */
export const WOKEN_ROW_TTL_MS = 2_000;
/** The most rows kept (the oldest go first): ten times the most one wake-up carries, far more than a claim by id leaves unclaimed. */
export const MAX_WOKEN_ROWS = 10_000;
/**
 * The most bytes of rows kept, their text values counted (params above all; the oldest go first):
 * a tenant submitting runs with large params at a high rate cannot make an engine hold more, and
 * another tenant's rows pushed out are read by id as without rows.
 */
export const MAX_WOKEN_BYTES = 32 * 1024 * 1024;

/**
 * The runs the console's wake-ups carried (POST /baton/wake with `runs`, or the in-process
 * console's), and those a key's release has just given places to (KeyAdmissions.release), kept by
 * id until the claim by id they prompt takes them (RunClaims.readNamed) instead
 * of reading them back: one round trip less between a submission's commit and its dispatch, ~4 ms
 * of its start at 500 submissions a second (docs/BENCHMARKS.md, on demand). A row is what the
 * console committed; the DISPATCHED mark that claims it is guarded on its state as for a row read,
 * so a run cancelled or claimed by a peer meanwhile is dropped as it would be then.
 *
 * `key` is this node's wake key (registered in engine_nodes.wake_key, random at each start): only a
 * wake-up proving it (WAKE_ROWS_HEADER) may bring rows, never one a tenant signed on its own.
 */
@Injectable()
export class WokenRows {
  readonly key = randomBytes(32).toString('hex');
  private readonly rows = new Map<number, { run: NamedRun; at: number; bytes: number }>();
  private bytes = 0;

  constructor(@Inject(CLOCK) private readonly clock: Clock) {}

  /** How many rows are kept. */
  get size(): number {
    return this.rows.size;
  }

  /** The rows of a wake-up of `tenantId` (parsed here: a row that does not parse throws, and the wake-up is refused). */
  put(tenantId: string, columns: readonly NamedRunColumns[]): void {
    const at = this.clock.now();
    const runs = columns.map(namedRunOf);
    if (runs.some((r) => r.run.tenantId !== tenantId)) throw new Error(`a run row of another tenant than ${tenantId}`);
    runs.forEach((run, i) => {
      this.drop(run.run.id);
      const bytes = bytesOf(columns[i]);
      this.rows.set(run.run.id, { run, at, bytes });
      this.bytes += bytes;
    });
    // Kept in the order they came: the oldest, expired or beyond the bounds, are at the front.
    for (const [id, kept] of this.rows) {
      if (this.rows.size <= MAX_WOKEN_ROWS && this.bytes <= MAX_WOKEN_BYTES && at - kept.at < WOKEN_ROW_TTL_MS) break;
      this.drop(id);
    }
  }

  /** The tasks of the runs `ids` of `tenantId`, from their rows kept (not taken); null when some has none. */
  taskIdsOf(tenantId: string, ids: readonly number[]): number[] | null {
    const tasks: number[] = [];
    for (const id of ids) {
      const kept = this.rows.get(id);
      if (!kept || kept.run.run.tenantId !== tenantId) return null;
      tasks.push(kept.run.run.taskId);
    }
    return tasks;
  }

  /** The rows kept of `ids` (each taken once), of `tenantId`, less than WOKEN_ROW_TTL_MS old; and the ids without one. */
  take(tenantId: string, ids: readonly number[]): { given: NamedRun[]; missing: number[] } {
    const given: NamedRun[] = [];
    const missing: number[] = [];
    const now = this.clock.now();
    for (const id of ids) {
      const kept = this.rows.get(id);
      if (kept) this.drop(id);
      if (kept && kept.run.run.tenantId === tenantId && now - kept.at < WOKEN_ROW_TTL_MS) given.push(kept.run);
      else missing.push(id);
    }
    return { given, missing };
  }

  private drop(id: number): void {
    const kept = this.rows.get(id);
    if (!kept) return;
    this.rows.delete(id);
    this.bytes -= kept.bytes;
  }
}

/** A row's weight: its text values' lengths (params, flow params, names), 8 for every other value. */
function bytesOf(columns: NamedRunColumns): number {
  let bytes = 0;
  for (const value of Object.values(columns)) bytes += typeof value === 'string' ? value.length : 8;
  return bytes;
}
