import type { EntityManager } from 'typeorm';
import type { ErrorBody } from '@baton/protocol';
import type { RunEntity } from '@baton/persistence';

/**
 * Terminology of the submissions room:
 * - submission: one run asked for through the API — a task, and optionally the run's params, its
 *   flow's params and an idempotency key;
 * - request: one API call's submissions (`POST /api/tasks/:id/trigger`: one; `POST /api/runs/batch`:
 *   up to MAX_BATCH_SUBMISSIONS; `POST /api/events`: the runs its events start, none or many), with
 *   its one audit record and the rows it writes alongside its runs (an event's: AlongsideWriter);
 * - outcome: what became of a submission — its run, made now (201) or found under its idempotency
 *   key (200), or why there is none (400 naming the field, 404 for a task the tenant has not);
 *   for a task that debounces or throttles per key (key-windows.ts): its key's COALESCING run,
 *   opened (201) or joined (200), or 409 naming `throttle` when its key's period is full and the
 *   throttle keeps the FIRST payloads;
 * - group commit: the requests of a tenant that arrive together are written in one transaction
 *   (GroupCommit), each still answered with its own outcomes.
 */
export interface Submission {
  taskId: number;
  /** The run's params; undefined: the task's. */
  params?: unknown;
  /** Params of the flow this run starts; undefined: none. */
  flowParams?: unknown;
  /** One run per key and task, however often the submission is retried (IDEMPOTENCY_KEY_PATTERN). */
  idempotencyKey?: string;
  /** W3C traceparent of the request's span, kept on the run (its trace); undefined: untraced. */
  traceParent?: string;
  /**
   * Set for a run an event starts (apps/console/src/events): cause EVENT, and with the event's
   * idempotency key one run per key and task (fire key `e:<key>`), so a repeated event, even one
   * written concurrently by another console, makes no second run. Undefined: cause MANUAL.
   */
  event?: { idempotencyKey: string | null };
}

export type SubmissionOutcome =
  | { status: 201 | 200; run: RunEntity; taskName: string }
  | { status: 400 | 404 | 409; error: ErrorBody };

/**
 * Rows of another aggregate that requests write in their runs' transaction (an event and the runs
 * it started: neither is ever stored without the other), some before the runs and some after. One
 * writer takes the items of every request of a batch that names it, so that its rows go in one
 * statement for the batch, with their keys locked in one order: written a request at a time, two
 * transactions holding the same keys in different requests deadlocked on them.
 */
export interface AlongsideWriter<T> {
  /**
   * Before the runs, given each request's item in the batch's order: writes what must be in place
   * first, and answers, for each request, the outcomes of those of its submissions (by index in
   * the request) that are not to be written (an event found stored under its key starts nothing).
   */
  beforeRuns(em: EntityManager, tenantId: string, items: readonly T[], now: number): Promise<Array<ReadonlyMap<number, SubmissionOutcome>>>;
  /** After the runs, given each request's item and its outcomes in order. */
  afterRuns(em: EntityManager, tenantId: string, items: readonly T[], outcomes: ReadonlyArray<readonly SubmissionOutcome[]>, now: number): Promise<void>;
}

/** Most submissions one batch request carries. */
export const MAX_BATCH_SUBMISSIONS = 1_000;

/**
 * An idempotency key: 1 to 62 characters of A–Z a–z 0–9 and `- _ . : ~` (a UUID, a ULID, a hash,
 * `order-42:refund`). Kept as the run's fire key `k:<key>`, unique per task, for as long as the
 * run is kept (retention).
 */
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9._:~-]{1,62}$/;
export const IDEMPOTENCY_KEY_RULE = 'must be 1 to 62 characters of A-Z a-z 0-9 - _ . : ~';

/** The header a trigger's idempotency key comes in (`POST /api/tasks/:id/trigger`); a refused one is named by it, as a client sent it. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
