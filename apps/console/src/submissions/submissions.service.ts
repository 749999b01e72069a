import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { FieldError } from '@baton/domain';
import type { DirectStarts, RunWakeups } from '@baton/messaging';
import type { WakeRunRow } from '@baton/protocol';
import { claimedRunTask, findLiveExecutors, findSubmittableTasks, insertSubmittedRuns, inTransaction, lockSubmittedTasks, namedRunColumns, startsAsItIs, takesAuditWebhooks, whenCommitting, type LiveExecutor, type LockedTask, type RunEntity, type SubmittableTask, type SubmittedRun } from '@baton/persistence';
import { errorBody } from '@baton/protocol';
import { deferredAudit, recordAudits, type AuditChange, type AuditEntry, type DeferredAudit } from '../audit';
import { CLOCK, type Clock } from '../common/clock';
import { KeptReads } from '../common/kept-reads';
import { ApiError, badRequest } from '../common/api-error';
import { RetryLaterError } from '../common/retry-later-error';
import type { RunDetailView } from '../runs/dto/run.dto';
import { runDetailView, runView } from '../runs/runs.service';
import type { SubmitBatchView } from './dto/submission.dto';
import { parseBatch } from './parse-batch';
import { submissionSpan } from './submission-span';
import { ParamsCheck } from '../tasks/params-check';
import { RUN_WAKEUPS } from '../wakeups/run-wakeups';
import { wakeupsGone } from '../wakeups/wakeups-gone';
import { GroupCommit } from './group-commit';
import { LaneFullError } from './lane-full-error';
import { applyKeyWindows } from './key-windows';
import { claimWindowKeys } from './window-keys';
import { NOT_A_TASK, ownValueErrors } from './own-values';
import { IDEMPOTENCY_KEY_HEADER, type AlongsideWriter, type Submission, type SubmissionOutcome } from './submission';

/** One API request's submissions, as they wait in their tenant's lane. */
interface SubmissionRequest {
  submissions: readonly Submission[];
  /** Each submission's field names start so in errors (`runs[3].`; '' for a trigger). */
  fieldPrefix: (index: number) => string;
  /** What a refused idempotency key is named: a trigger's header (IDEMPOTENCY_KEY_HEADER); undefined, the body's `<prefix>idempotencyKey`. */
  keyField?: string;
  /** All written or none (a refused one refuses the request); otherwise each on its own. */
  atomic: boolean;
  /** The request's audit record, from its outcomes (null: nothing to record). */
  auditChange: (outcomes: readonly SubmissionOutcome[]) => Omit<AuditChange, 'tenantId'> | null;
  audit: DeferredAudit | null;
  /**
   * Rows of another aggregate the request writes in its runs' transaction (an event's), by their
   * writer with those of the batch's other requests: this request's item. A request with it is
   * written even when it has no run to write.
   */
  alongside?: Alongside<unknown>;
}

/** A request's rows written alongside its runs: its writer, and what the writer is to write for it. */
interface Alongside<T> {
  writer: AlongsideWriter<T>;
  item: T;
}

/**
 * The one door through which runs submitted through the API are written: a trigger, a batch of
 * submissions. Every guarantee of a trigger holds for each: the run row is committed before the
 * answer, the request has its audit record in the same transaction, the engines hear of the runs
 * once committed (a wake-up naming them), and a retried submission with its idempotency key makes
 * no second run.
 *
 * The requests of a tenant that arrive together share one transaction (GroupCommit): one read of
 * their tasks, one params check, one INSERT of their runs, one INSERT of their audit records, one
 * commit, one wake-up. At a trickle a request is written alone on the next turn of the event loop;
 * under load the batches grow and the work per run falls (docs/BENCHMARKS.md, on-demand).
 *
 * Three reads of a batch are kept for KEEP_MS (1 s), since a stream of triggers names the same
 * tasks and apps: the tasks (a kept copy is used only while the version the transaction's share
 * lock reads matches it, so a run is never written from a changed task; a refusal may judge by a
 * copy up to 1 s old), the UP executors whose schemas the params are checked against (a schema an
 * executor declared applies within 1 s), and whether a webhook channel of the tenant takes AUDIT
 * events (one saved takes the records of submissions from at most 1 s later). Each was a
 * statement a batch: a trigger alone is a batch.
 */
@Injectable()
export class SubmissionsService {
  private readonly lane = new GroupCommit<SubmissionRequest, SubmissionOutcome[]>((tenantId, requests) => this.write(tenantId, requests));
  /** Tasks by `tenant/id`. */
  private readonly keptTasks = new KeptReads<SubmittableTask>(KEEP_MS);
  /** An app's UP executors by `tenant/app`. */
  private readonly keptExecutors = new KeptReads<LiveExecutor[]>(KEEP_MS);
  /** Whether a webhook channel takes AUDIT events, by tenant. */
  private readonly keptAuditTakers = new KeptReads<boolean>(KEEP_MS);
  /** Tasks as the last batch's share lock read them (their dispatch fields, at a version), by `tenant/id`: whether the next batch's runs may be written already sent. */
  private readonly lockedTasks = new KeptReads<LockedTask>(KEEP_MS);

  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(RUN_WAKEUPS) private readonly wakeups: RunWakeups,
    private readonly params: ParamsCheck,
  ) {}

  /**
   * POST /api/tasks/:id/trigger: a run of the task now with these params (the task's when none),
   * or, with an idempotency key used before for the task, the run it made (`created` false).
   * 404 for a task the tenant has not; 400 naming `params`, `flowParams` or the key's header (`idempotency-key`).
   */
  async trigger(tenantId: string, taskId: number, body: { params?: unknown; flowParams?: unknown }, idempotencyKey?: string, traceparent?: string): Promise<{ run: RunDetailView; created: boolean }> {
    const { params, flowParams } = body;
    return submissionSpan('baton.run.trigger', traceparent, { 'baton.tenant_id': tenantId, 'baton.task_id': taskId }, async (traceParent) => {
      const [outcome] = await this.submit(tenantId, [{ taskId, params, flowParams, idempotencyKey, traceParent }], {
        atomic: true,
        keyField: IDEMPOTENCY_KEY_HEADER,
        auditChange: ([made]) => ('run' in made ? { objectType: 'task', objectId: taskId, after: { runId: made.run.id, params: params ?? null, flowParams: flowParams ?? null } } : null),
      });
      if ('error' in outcome) throw new ApiError(outcome.status, outcome.error.message, { code: outcome.error.code, errors: outcome.error.errors });
      return { run: runDetailView(outcome.run, outcome.taskName), created: outcome.status === 201 };
    }, (answer) => answer.run.id);
  }

  /** POST /api/runs/batch: each submission's result, or (atomic) all written or a 400 naming every refused one. */
  async submitBatch(tenantId: string, body: { runs?: unknown; atomic?: unknown }, traceparent?: string): Promise<SubmitBatchView> {
    const parsed = parseBatch(body);
    if ('errors' in parsed) throw badRequest(parsed.errors);
    return submissionSpan('baton.runs.submit-batch', traceparent, { 'baton.tenant_id': tenantId, 'baton.runs': parsed.submissions.length }, (traceParent) =>
      this.submitParsed(tenantId, traceParent ? parsed.submissions.map((s) => ({ ...s, traceParent })) : parsed.submissions, parsed.atomic),
    );
  }

  /** A parsed batch written (each submission carrying the request's trace when traced), answered as POST /api/runs/batch answers. */
  private async submitParsed(tenantId: string, submissions: readonly Submission[], atomic: boolean): Promise<SubmitBatchView> {
    const outcomes = await this.submit(tenantId, submissions, {
      atomic,
      fieldPrefix: (i) => `runs[${i}].`,
      auditChange: (made) => ({
        objectType: 'run',
        objectId: null,
        after: { runs: made.map((o, i) => ('run' in o ? { taskId: o.run.taskId, runId: o.run.id, created: o.status === 201 } : { taskId: submissions[i].taskId, refused: o.status })) },
      }),
    });
    // A throttle's drop (409) is the task's rule, decided as the batch was written, not a refusal of
    // the request: the batch's other runs are written and it answers in its place. A refusal reads
    // as any 400 of the API (a 400 writes nothing): `runs[i].field: reason; …`.
    if (atomic && outcomes.some((o) => 'error' in o && o.status !== 409)) {
      throw badRequest(outcomes.flatMap((o, i) => ('error' in o && o.error.errors?.length ? o.error.errors : 'error' in o && o.status === 404 ? [{ field: `runs[${i}].taskId`, reason: NOT_A_TASK }] : [])));
    }
    const count = (status: number) => outcomes.filter((o) => o.status === status).length;
    return {
      results: outcomes.map((o) => ('run' in o ? { status: o.status, run: runView(o.run, o.taskName) } : { status: o.status, error: o.error })),
      created: count(201),
      existing: count(200),
      refused: outcomes.length - count(201) - count(200),
    };
  }

  /**
   * Writes one request's submissions and answers their outcomes, in order, once committed and
   * the wake-ups have left. 429 when the tenant has GROUP_COMMIT_LIMITS.maxWaiting runs waiting to
   * be written already (it is sending faster than its runs can be committed).
   */
  async submit<T = never>(
    tenantId: string,
    submissions: readonly Submission[],
    options: { atomic: boolean; fieldPrefix?: (index: number) => string; keyField?: string; auditChange: SubmissionRequest['auditChange']; alongside?: Alongside<T> },
  ): Promise<SubmissionOutcome[]> {
    const request: SubmissionRequest = {
      submissions,
      fieldPrefix: options.fieldPrefix ?? (() => ''),
      keyField: options.keyField,
      atomic: options.atomic,
      auditChange: options.auditChange,
      audit: deferredAudit(),
      alongside: options.alongside as Alongside<unknown> | undefined,
    };
    let outcomes: SubmissionOutcome[];
    try {
      outcomes = await this.lane.add(tenantId, request, Math.max(1, submissions.length));
    } catch (err) {
      if (err instanceof LaneFullError) throw new RetryLaterError(`${err.waiting} runs of this tenant are waiting to be written; send again shortly`, 1);
      throw err;
    }
    await wakeupsGone();
    return outcomes;
  }

  /** One batch of a tenant's requests: checked, then written in one transaction. */
  private async write(tenantId: string, requests: readonly SubmissionRequest[]): Promise<SubmissionOutcome[][]> {
    const now = this.clock.now();
    const all = requests.flatMap((request) => request.submissions.map((submission, index) => ({ request, submission, index })));
    // A task that is not found is not kept: one made a moment later is found by the next batch.
    const tasks = await this.keptTasks.through(tenantId, [...new Set(all.map((s) => s.submission.taskId))], now, (ids) => findSubmittableTasks(this.dataSource.manager, tenantId, ids));
    // Every problem of a submission in its one answer: its own values, its task, and its params
    // against their handler's schema when both its task and their shape allow the check.
    const own = all.map(({ request, submission, index }) => ownValueErrors(submission, request.fieldPrefix(index), request.keyField));
    const schemaErrors = await this.checkParams(tenantId, all, tasks, own, now);
    const problems = all.map(({ request, submission, index }, k) => problemOf(tasks.has(submission.taskId), [...own[k].all, ...schemaErrors[k]], submission.taskId, request.fieldPrefix(index)));
    const refused = new Set(requests.filter((request) => request.atomic && all.some((s, k) => s.request === request && problems[k] !== null)));
    const toWrite: Array<{ at: number; run: SubmittedRun }> = [];
    all.forEach(({ request, submission }, k) => {
      if (problems[k] !== null || refused.has(request)) return;
      const task = tasks.get(submission.taskId)!;
      toWrite.push({
        at: k,
        run: {
          task,
          params: submission.params === undefined ? task.params : JSON.stringify(submission.params),
          flowParams: submission.flowParams === undefined ? null : JSON.stringify(submission.flowParams),
          fireKey: fireKeyOf(submission),
          cause: submission.event ? 'EVENT' : 'MANUAL',
          traceParent: submission.traceParent ?? null,
        },
      });
    });
    const outcomes: SubmissionOutcome[] = all.map((_, k) => {
      const problem = problems[k];
      if (problem === null) return { status: 400, error: errorBody(400, { message: 'Not written: another submission of this request was refused' }) };
      return problem;
    });
    // Each request's outcomes, in its order: `all` lists the requests' submissions one request after another.
    const byRequest = () => {
      let k = 0;
      return requests.map((request) => outcomes.slice(k, (k += request.submissions.length)));
    };
    const recorded = requests.filter((request) => !refused.has(request) && request.audit !== null);
    const alongside = requests.filter((request) => !refused.has(request) && request.alongside !== undefined);
    if (toWrite.length === 0 && recorded.length === 0 && alongside.length === 0) return byRequest();
    const named = [...new Set(toWrite.map((w) => w.run.task.id))];
    // The runs written already sent, for the engine of this process once committed (a transaction tried again starts it afresh).
    let handovers: Handover[] = [];
    const committed = await inTransaction(this.dataSource, async (em) => {
      handovers = [];
      // Read before the transaction (or kept from an earlier read), a task may have been changed or
      // deleted since: the batch is judged again from a fresh read (a gone task's submissions then
      // answer 404, an atomic request's others 400). The share lock rides ahead of the batch's
      // next statement; its versions are judged once the runs are written, before anything else.
      const locking = lockSubmittedTasks(em, tenantId, named);
      // Awaited below; a statement failing before then fails the transaction, and its packet this read.
      locking.catch(() => undefined);
      // The rows written alongside that go first (an event under its idempotency key): a submission
      // their writer answers (an event found stored, a repeat) is not written.
      const answeredOf = new Map<SubmissionRequest, ReadonlyMap<number, SubmissionOutcome>>();
      for (const [writer, those] of byWriter(alongside)) {
        const answers = await writer.beforeRuns(em, tenantId, those.map((request) => request.alongside!.item), now);
        those.forEach((request, i) => answeredOf.set(request, answers[i]));
      }
      const answered = new Set<number>();
      all.forEach(({ request, index }, k) => {
        const outcome = answeredOf.get(request)?.get(index);
        if (outcome === undefined) return;
        outcomes[k] = outcome;
        answered.add(k);
      });
      const writing = answered.size === 0 ? toWrite : toWrite.filter((w) => !answered.has(w.at));
      // Tasks that debounce or throttle per key: their submissions open or join their key's window, or pass (key-windows.ts);
      // one whose idempotency key was seen answers what its first submission got (window-keys.ts).
      const keys = await claimWindowKeys(em, tenantId, writing.filter((w) => isWindowed(w.run.task)).map((w) => ({ at: w.at, taskId: w.run.task.id, fireKey: w.run.fireKey })), now);
      const windowed = writing.filter((w) => isWindowed(w.run.task) && keys.takes(w.at));
      const windows = await applyKeyWindows(em, tenantId, windowed.map(({ run }) => ({ task: run.task, params: run.params, flowParams: run.flowParams, cause: run.cause ?? 'MANUAL', traceParent: run.traceParent ?? null })), now);
      const plain = [...writing.filter((w) => !isWindowed(w.run.task)), ...windowed.filter((_, j) => windows[j].kind === 'START')];
      const sent = this.sentAtOnce(tenantId, plain.map((w) => w.run), now);
      const written = await insertSubmittedRuns(em, tenantId, sent.runs, now);
      const locked = await locking;
      const changed = named.filter((id) => locked.get(id)?.version !== tasks.get(id)!.version);
      if (changed.length > 0) {
        for (const id of changed) this.keptTasks.forget(`${tenantId}/${id}`);
        throw new TasksChanged();
      }
      for (const [id, task] of locked) this.lockedTasks.set(`${tenantId}/${id}`, task, now);
      written.forEach(({ row, created }, i) => (outcomes[plain[i].at] = { status: created ? 201 : 200, run: row, taskName: plain[i].run.task.name }));
      windowed.forEach((w, j) => {
        const window = windows[j];
        if (window.kind === 'WINDOW') outcomes[w.at] = { status: window.created ? 201 : 200, run: window.row, taskName: w.run.task.name };
        else if (window.kind === 'DROP') outcomes[w.at] = { status: 409, error: errorBody(409, { message: window.reason, errors: [{ field: 'throttle', reason: window.reason }] }) };
      });
      await keys.settle(em, outcomes, (at) => writing.find((w) => w.at === at)!.run.task.name);
      const split = byRequest();
      const answers = new Map(requests.map((request, i) => [request, split[i]]));
      for (const [writer, those] of byWriter(alongside)) {
        await writer.afterRuns(em, tenantId, those.map((request) => request.alongside!.item), those.map((request) => answers.get(request)!), now);
      }
      const entries: AuditEntry[] = [];
      for (const request of recorded) {
        const change = request.auditChange(answers.get(request)!);
        if (change) entries.push({ ...change, tenantId, actor: request.audit!.actor, action: request.audit!.action, at: now });
      }
      await recordAudits(em, tenantId, entries, async (manager) =>
        (await this.keptAuditTakers.through('audit-webhooks', [tenantId], now, async () => new Map([[tenantId, await takesAuditWebhooks(manager, tenantId)]]))).get(tenantId)!,
      );
      // A window's run is due later: the engines' claim finds it then (its COALESCING range), no wake-up.
      this.wakeAtCommit(em, tenantId, written.filter((w, i) => w.created && sent.runs[i].sent === undefined).map((w) => w.row), locked, now);
      handovers = sent.handovers.map(({ starts, leaseUntil, at }) => ({ starts, leaseUntil, rows: at.map((i) => namedRunColumns(written[i].row, locked.get(written[i].row.taskId)!.dispatch)) }));
      return true;
    }).catch((err: unknown) => {
      if (err instanceof TasksChanged) return false;
      throw err;
    });
    if (!committed) return this.write(tenantId, requests);
    for (const { starts, leaseUntil, rows } of handovers) starts.take(tenantId, rows, { at: now, leaseUntil });
    for (const request of recorded) request.audit!.counted();
    return byRequest();
  }

  /**
   * Submissions with their own params, of a task found and of a shape fit to check, against the
   * schema their handler declares (ParamsCheck): one check for the batch; each submission's errors.
   */
  private async checkParams(
    tenantId: string,
    all: ReadonlyArray<{ request: SubmissionRequest; submission: Submission; index: number }>,
    tasks: ReadonlyMap<number, SubmittableTask>,
    own: ReadonlyArray<{ params: FieldError | null }>,
    now: number,
  ): Promise<FieldError[][]> {
    const errorsOf: FieldError[][] = all.map(() => []);
    const checked = all.map((s, k) => k).filter((k) => tasks.has(all[k].submission.taskId) && all[k].submission.params !== undefined && own[k].params === null);
    if (checked.length === 0) return errorsOf;
    const ofTasks = checked.map((k) => {
      const task = tasks.get(all[k].submission.taskId)!;
      return { executorApp: task.executorApp, handler: task.handler, params: all[k].submission.params };
    });
    const byApp = await this.keptExecutors.through(tenantId, [...new Set(ofTasks.map((t) => t.executorApp))], now, async (apps) => {
      const read = new Map(apps.map((app) => [app, [] as LiveExecutor[]]));
      for (const executor of await findLiveExecutors(this.dataSource.manager, tenantId, apps)) read.get(executor.app)!.push(executor);
      return read;
    });
    const verdicts = await this.params.errors(this.dataSource.manager, tenantId, ofTasks, [...byApp.values()].flat());
    verdicts.forEach((errors, i) => {
      const k = checked[i];
      errorsOf[k] = errors.map((e) => ({ ...e, field: `${all[k].request.fieldPrefix(all[k].index)}${e.field}` }));
    });
    return errorsOf;
  }

  /**
   * The batch's runs, with those the engine of this process sends at once written already sent
   * (DirectStarts: `sent`, DISPATCHED to the executor its plan names, under its lease), and where
   * each goes once committed (`at`: indexes in `runs`). Only an unkeyed run (its row is new by
   * construction), not an event's, of a task that goes out as it is (startsAsItIs), judged on the task's dispatch
   * fields as an earlier batch's share lock read them at the version this batch writes from: the
   * transaction's own lock checks that version again, and a changed task rolls it back. The rest —
   * and all of them when no engine of this process serves the group, or it cannot send them at
   * once — are written PENDING and woken as ever.
   */
  private sentAtOnce(tenantId: string, runs: readonly SubmittedRun[], now: number): { runs: SubmittedRun[]; handovers: Array<{ starts: DirectStarts; leaseUntil: number; at: number[] }> } {
    const out = [...runs];
    const handovers: Array<{ starts: DirectStarts; leaseUntil: number; at: number[] }> = [];
    const byTask = new Map<number, number[]>();
    runs.forEach((run, i) => {
      // An event's runs are left to the wake-up: written sent, `emit` at 500/s on nodes started 13 / 61 and
      // 19 / 63 ms (p50 / p99) where the commit before took 14 / 34 and 14 / 36 in turn (bench on-demand,
      // -s37ev-*); left out, 15 / 41 and 18 / 56 against 19 / 42. Not explained yet: kept out until it is.
      if (!run.fireKey.startsWith('m:') || run.cause === 'EVENT') return;
      const those = byTask.get(run.task.id);
      if (those) those.push(i);
      else byTask.set(run.task.id, [i]);
    });
    for (const [taskId, at] of byTask) {
      const task = runs[at[0]].task;
      const locked = this.lockedTasks.get(`${tenantId}/${taskId}`, now);
      const starts = locked?.version === task.version ? this.wakeups.startsFor?.(task.engineGroup) : null;
      if (!starts) continue;
      const dispatch = claimedRunTask(locked!.dispatch, 't_');
      if (!startsAsItIs(dispatch)) continue;
      const plan = starts.plan({ tenantId, engineGroup: task.engineGroup, executorApp: task.executorApp, taskId, count: at.length });
      if (!plan) continue;
      at.forEach((i, k) => (out[i] = { ...runs[i], sent: { nodeId: plan.nodeId, leaseUntil: plan.leaseUntil, executorId: plan.executorIds[k], deadlineAt: now + dispatch.timeoutMs } }));
      handovers.push({ starts, leaseUntil: plan.leaseUntil, at });
    }
    return { runs: out, handovers };
  }

  /**
   * As the transaction's COMMIT leaves, the engines of each group hear of the new runs: named, with
   * their rows and their tasks' dispatch fields as the transaction wrote and locked them, so that
   * the engine woken dispatches them without reading them back (WokenRows). Its DISPATCHED mark
   * (or a claim by id, for an engine that reads them) waits for the commit on the rows' locks and
   * finds them only if they committed (whenCommitting): the wake-up's way overlaps the commit's
   * round trip instead of following it.
   */
  private wakeAtCommit(em: EntityManager, tenantId: string, runs: readonly RunEntity[], tasks: ReadonlyMap<number, LockedTask>, now: number): void {
    const byGroup = new Map<string, RunEntity[]>();
    for (const run of runs) {
      const those = byGroup.get(run.engineGroup);
      if (those) those.push(run);
      else byGroup.set(run.engineGroup, [run]);
    }
    for (const [engineGroup, those] of byGroup) {
      const rows = those.map((run) => namedRunColumns(run, tasks.get(run.taskId)!.dispatch));
      whenCommitting(em, () => this.wakeups.wake({ tenantId, engineGroup, dueAt: now, runIds: those.map((r) => r.id), runs: rows }));
    }
  }
}

/** Runs written already sent, to hand the engine of this process once committed. */
interface Handover {
  starts: DirectStarts;
  leaseUntil: number;
  rows: WakeRunRow[];
}

/** A batch's transaction found a task changed since its read: it is rolled back and the batch judged again. */
class TasksChanged extends Error {}

/** How long a batch's reads of its tasks and of their apps' UP executors are kept for the next batches. */
const KEEP_MS = 1_000;

/** The requests of each writer of rows alongside the runs, in the batch's order. */
function byWriter(requests: readonly SubmissionRequest[]): Map<AlongsideWriter<unknown>, SubmissionRequest[]> {
  const writers = new Map<AlongsideWriter<unknown>, SubmissionRequest[]>();
  for (const request of requests) {
    const those = writers.get(request.alongside!.writer);
    if (those) those.push(request);
    else writers.set(request.alongside!.writer, [request]);
  }
  return writers;
}

/** A task whose submissions go through their key's window (debounce, throttle) rather than straight to a run. */
function isWindowed(task: SubmittableTask): boolean {
  return task.debounce !== null || task.throttle !== null;
}

/** A run's fire key: its own (`m:`), its idempotency key's (`k:`), or its event's key's (`e:`, apart from the keys of triggers). */
function fireKeyOf(submission: Submission): string {
  if (submission.event) return submission.event.idempotencyKey === null ? `m:${randomUUID()}` : `e:${submission.event.idempotencyKey}`;
  return submission.idempotencyKey === undefined ? `m:${randomUUID()}` : `k:${submission.idempotencyKey}`;
}

/**
 * A submission's outcome when it is refused, or null: 400 naming every field at fault (its task
 * among them when the tenant has not that task), 404 when its task is its only problem.
 */
function problemOf(taskFound: boolean, errors: FieldError[], taskId: number, prefix: string): SubmissionOutcome | null {
  if (errors.length > 0) return { status: 400, error: errorBody(400, { errors: taskFound ? errors : [{ field: `${prefix}taskId`, reason: NOT_A_TASK }, ...errors] }) };
  if (!taskFound) return { status: 404, error: errorBody(404, { message: `Task ${taskId} not found` }) };
  return null;
}
