import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { APPROVAL_OUTCOMES, APPROVER_ROLES, EXECUTOR_STATES, HANDED_BACK, MAX_APPROVAL_COMMENT, RUN_CAUSES, RUN_STATES, TIMELINE_STEPS, WITHDRAWAL_STATES, type ApprovalOutcome, type ApproverRole, type AttemptState, type ExecutorState, type JsonValue, type RunCause, type RunState, type TimelineClock, type TimelineStep, type WithdrawalState } from '@baton/domain';
import { InstantQuery, IntQuery, PageQuery, ToList } from '../../common/query';
import { Raw } from '../../common/raw-json';
import type * as Api from '../../api-types';

export class RunQuery extends PageQuery {
  @IntQuery('Only runs of this task', 1)
  taskId?: number;

  @IntQuery('Only the runs of this flow (the id of its root run): the flow view of the dependency graph', 1)
  flowId?: number;

  @IntQuery("Only the runs this run fired: a fan-out run's shards, or the children its end fired", 1)
  parentRunId?: number;

  @ApiPropertyOptional({ enum: RUN_STATES, isArray: true, description: 'One or several states (comma-separated or repeated)' })
  @IsOptional()
  @ToList()
  @IsIn(RUN_STATES, { each: true })
  state?: RunState[];

  @ApiPropertyOptional({ enum: RUN_CAUSES, isArray: true })
  @IsOptional()
  @ToList()
  @IsIn(RUN_CAUSES, { each: true })
  cause?: RunCause[];

  @InstantQuery('Scheduled at or after (epoch ms)')
  from?: number;

  @InstantQuery('Scheduled before (epoch ms)')
  to?: number;
}

export class RunView implements Api.Run {
  @ApiProperty() id!: number;
  @ApiProperty() taskId!: number;
  @ApiProperty({ type: String, nullable: true, description: 'Null when the task was deleted' }) taskName!: string | null;
  @ApiProperty({ enum: RUN_STATES }) state!: RunState;
  @ApiProperty({ enum: RUN_CAUSES }) cause!: RunCause;
  @ApiProperty({ type: Number, nullable: true }) flowId!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'DEPENDENCY runs: the parent run whose end fired this one; SHARD runs: their fan-out run' }) parentRunId!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: "A shard's index (ctx.shardIndex), 0-based; null for other runs" }) shardIndex!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: "A shard's number of shards; a fan-out run's, once it has written them; null for other runs" }) shardTotal!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'A broadcast shard runs on this executor only' }) pinnedExecutorId!: number | null;
  @ApiProperty() attempt!: number;
  @ApiProperty() priority!: number;
  @ApiProperty({ description: 'Nominal fire time, epoch ms' }) scheduledAt!: number;
  @ApiProperty() dueAt!: number;
  @ApiProperty({ type: Number, nullable: true }) executorId!: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      "Engine clock, epoch ms: when the dispatch request the executor accepted left the engine. Until an executor accepts it (or if the outcome overtook the ack), when the engine marked the run for sending, just before",
  })
  dispatchedAt!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: "A retried run: when its first attempt went out (dispatchedAt is the latest attempt's) — the first not handed back (sent ahead and never started by its executor); null before a retry" })
  firstDispatchedAt!: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: "How late the first attempt went out (dispatch − scheduled, ms), as the statistics count it: a retry's backoff is not lateness. An attempt handed back (sent ahead, never started by its executor) is not the run's start: the attempt sent after it is, late by when it was sent. Null before dispatch, and for BACKFILL runs (late on purpose)",
  })
  latenessMs!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: "Engine clock: when the executor's 202 reached the engine. Always ≥ dispatchedAt" })
  acceptedAt!: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      "Executor clock: when the handler started. The executor starts the work as it answers 202, so startedAt may come before acceptedAt by the answer's trip (and by the two machines' clock difference)",
  })
  startedAt!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: "When the attempt ended: the executor's clock when it reported its end, the engine's for an end the engine decided (its timeout, a lost executor, a cancel, a skip) or stamped (an outcome reported without a time). The timeline's FINISHED step says whose" })
  finishedAt!: number | null;
  @ApiProperty({ type: String, nullable: true, description: "The error's first line (at most 300 characters); the rest is the run detail's errorDetail" }) error!: string | null;
  @ApiProperty({ type: Number, nullable: true }) progress!: number | null;
  @ApiProperty({
    enum: WITHDRAWAL_STATES,
    nullable: true,
    description:
      "A scheduled fire withdrawn by an edit, a pause, a calendar or a first dependency after an engine may have sent it ahead to its executor (it is CANCELLED): UNSETTLED while the engines wait for the executor to say whether it started it — its instant is not planned again before; then NOT_STARTED (its instant is planned again), STARTED (it ran as it was prepared: startedAt, and finishedAt when it ran past the withdrawal, are the executor's) or UNKNOWN (no word by its timeout: taken as run, not planned again). Null for every other run",
  })
  withdrawal!: WithdrawalState | null;
  @ApiProperty() createdAt!: number;
  @ApiProperty() updatedAt!: number;
}

export class RunLogView implements Api.RunLog {
  @ApiProperty() id!: number;
  @ApiProperty() attempt!: number;
  @ApiProperty() at!: number;
  @ApiProperty() level!: string;
  @ApiProperty() message!: string;
}

export class RunExecutorView implements Api.RunExecutor {
  @ApiProperty() id!: number;
  @ApiProperty() app!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ enum: EXECUTOR_STATES }) state!: ExecutorState;
}

export class RunApprovalView implements Api.RunApproval {
  @ApiProperty() runId!: number;
  @ApiProperty({ enum: APPROVER_ROLES, nullable: true, description: 'Users of at least this role may decide; null: only `users`' }) role!: ApproverRole | null;
  @ApiProperty({ type: [String], description: 'Usernames (or `api-key:<name>`) that may decide' }) users!: string[];
  @ApiProperty({ description: 'When the deadline decides onTimeout (epoch ms)' }) deadlineAt!: number;
  @ApiProperty({ enum: APPROVAL_OUTCOMES }) onTimeout!: ApprovalOutcome;
  @ApiProperty({ enum: APPROVAL_OUTCOMES, nullable: true, description: 'Null while it waits' }) decision!: ApprovalOutcome | null;
  @ApiProperty({ type: String, nullable: true, description: 'Who decided; null when the deadline did, or nobody yet' }) decidedBy!: string | null;
  @ApiProperty({ type: Number, nullable: true }) decidedAt!: number | null;
  @ApiProperty({ type: String, nullable: true }) comment!: string | null;
  @ApiProperty({ description: 'Whether the caller may decide on it now (it waits, its deadline is ahead, and the gate admits the caller)' }) mayDecide!: boolean;
}

/** A decision's body: an optional comment, recorded with it (and in the audit log). */
export class DecideRunDto {
  @ApiPropertyOptional({ type: String, maxLength: MAX_APPROVAL_COMMENT, description: `Why (at most ${MAX_APPROVAL_COMMENT} characters)` })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_APPROVAL_COMMENT)
  comment?: string;
}

export class RunDetailView extends RunView implements Api.RunDetail {
  @ApiProperty({ description: 'Params snapshot taken when the run was made' }) params!: JsonValue;
  @ApiProperty({ nullable: true }) result!: JsonValue | null;
  @ApiProperty({ type: String, nullable: true, description: 'The error after its first line (the stack, paths relative to the executor), at most 4,000 characters; null when none' }) errorDetail!: string | null;
  @ApiProperty({ type: [RunLogView] }) logs!: RunLogView[];
  @ApiProperty({ type: RunExecutorView, nullable: true, description: 'The executor it went to (null before dispatch, or when the executor is gone)' }) executor!: RunExecutorView | null;
  @ApiProperty({
    type: () => [TimelineEntryView],
    description: "The current attempt's timeline, always in the order SCHEDULED, DISPATCHED, ACCEPTED, STARTED, FINISHED (a retry's starts at its due time); a step reported earlier than one before it is flagged outOfOrder, with why. Every attempt's: GET /runs/{id}/attempts",
  })
  timeline!: TimelineEntryView[];
  @ApiProperty({ type: String, nullable: true, description: "The run's OpenTelemetry trace id (32 hex digits) when it was made with tracing on; null otherwise" })
  traceId!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Its trace in the tracing UI (BATON_TRACE_URL_TEMPLATE with the trace id); GET /runs/{id} only, null without a template or a trace' })
  traceUrl!: string | null;
  @ApiProperty({ type: RunApprovalView, nullable: true, description: "Its approval step (a run fired by an edge with one); null: it never waited for a person. GET /runs/{id} only" })
  approval!: RunApprovalView | null;
}

export class RunPage implements Api.Page<RunView> {
  @ApiProperty({ type: [RunView] }) items!: RunView[];
  @ApiProperty({ type: String, nullable: true }) nextCursor!: string | null;
}

/** Ids a bulk action of the runs list takes at most. */
export const MAX_BULK_RUNS = 500;

export class BulkRunsDto {
  @ApiProperty({ type: 'array', items: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER }, minItems: 1, maxItems: MAX_BULK_RUNS, description: `Run ids, 1 to ${MAX_BULK_RUNS} (a repeated id counts once); a bad one is named by its place (\`ids[2]\`)` })
  // Checked by bulkRunIds, which names each id at fault.
  @IsOptional()
  @Raw()
  ids!: unknown;
}

export class BulkRunResultView implements Api.BulkRunResult {
  @ApiProperty({ description: 'The run id given' }) id!: number;
  @ApiProperty({ description: 'What the single action would have answered: 200 cancelled, 201 run again, 404 no such run of the tenant, 409 wrong state' }) status!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'Cancel: the run; re-run: the new run; null when refused' }) runId!: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why it was refused; null when done' }) message!: string | null;
}

export class BulkRunsView implements Api.BulkRunResults {
  @ApiProperty({ type: [BulkRunResultView], description: 'One result per distinct id, in the order given' }) results!: BulkRunResultView[];
}

export const SEARCH_FIELDS = ['error', 'params'] as const;

export class RunSearchQuery extends PageQuery {
  @ApiProperty({ description: 'Text to find in the chosen field (a substring, 2 to 200 characters; ASCII letters match either case)' })
  @IsDefined()
  @IsString()
  @MinLength(2)
  @MaxLength(200)
  q!: string;

  @ApiPropertyOptional({ enum: SEARCH_FIELDS, default: 'error', description: "error: the run's error text; params: its params (JSON text)" })
  @IsOptional()
  @IsIn(SEARCH_FIELDS)
  field?: (typeof SEARCH_FIELDS)[number];

  @InstantQuery('Scheduled at or after (epoch ms)', { min: 0, required: true })
  from!: number;

  @InstantQuery('Scheduled before (epoch ms), after `from`', { min: 0, required: true })
  to!: number;

  @IntQuery('Only runs of this task', 1)
  taskId?: number;
}

export class RunSearchPageView implements Api.RunSearchPage {
  @ApiProperty({ type: [RunView], description: 'Matches, newest scheduled first' }) items!: RunView[];
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Pass as `cursor` to search on; null when the range is searched through. A page may hold fewer than `limit` matches (even none) and still have a next one: each call examines a bounded slice of the range',
  })
  nextCursor!: string | null;
  @ApiProperty({ description: 'The search has examined the runs scheduled from here (epoch ms) up to `to`; `from` when done' }) searchedFrom!: number;
}

export class TimelineEntryView implements Api.TimelineEntry {
  @ApiProperty({ enum: TIMELINE_STEPS, description: 'Always in this order: SCHEDULED, DISPATCHED, ACCEPTED, STARTED, FINISHED' }) step!: TimelineStep;
  @ApiProperty({ type: Number, nullable: true, description: 'Epoch ms; null: not reached' }) at!: number | null;
  @ApiProperty({ enum: ['engine', 'executor'], description: "Whose clock measured it (the executor's is another machine's). FINISHED is the executor's when it reported the end with its time, else the engine's: an end the engine decided (its timeout, a lost executor, a refused dispatch, a cancel, a skip) or stamped on receipt" }) clock!: TimelineClock;
  @ApiProperty({ description: 'Reported earlier than a step before it in the order' }) outOfOrder!: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'Why an out-of-order report happens; null when in order' }) note!: string | null;
}

export class RunAttemptView implements Api.RunAttempt {
  @ApiProperty() attempt!: number;
  @ApiProperty({ description: "The run's current attempt (the run row); earlier ones ended and were retried" }) latest!: boolean;
  @ApiProperty({ enum: [...RUN_STATES, HANDED_BACK], nullable: true, description: "Latest: the run's state; earlier: how the attempt ended, FAILED or TIMED_OUT, or HANDED_BACK (sent ahead of its instant and never started by its executor, which had lost contact with the engines: dispatched again, not counted against the task's retries; attempts kept before 2026-12-07: how far it had got; null: not kept, retried before attempts were kept). Its timeline says how far it got" }) state!: AttemptState | null;
  @ApiProperty({ type: Number, nullable: true }) executorId!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: "When the attempt was due: the fire time, or its backoff's end" }) dueAt!: number | null;
  @ApiProperty({ type: String, nullable: true, description: "The attempt's error, first line" }) error!: string | null;
  @ApiProperty({ type: [TimelineEntryView] }) timeline!: TimelineEntryView[];
  @ApiProperty({ type: [RunLogView], description: "The attempt's first 1,000 log lines (GET /runs/{id}/log has them all)" }) logs!: RunLogView[];
}

export class RunAttemptsView implements Api.RunAttempts {
  @ApiProperty({ type: [RunAttemptView], description: 'Oldest first' }) items!: RunAttemptView[];
}
