import type { AlarmType, ConcurrencyPolicy, FanOut, RetryPolicy, RunCause } from '@baton/domain';
import type { ClaimedShard } from '@baton/persistence';

/**
 * A run this engine holds a lease on, waiting in the in-memory timer queue for its due time.
 * The claim query joins the task, so dispatching needs no further read.
 */
export interface ClaimedRun {
  runId: number;
  tenantId: string;
  taskId: number;
  taskName: string;
  engineGroup: string;
  attempt: number;
  priority: number;
  params: unknown;
  /** A child run's parents' results in its flow, JSON text (handed to the handler as ctx.parentResults); null for others. */
  parentResults?: string | null;
  /** The params of its flow, JSON text (ctx.flowParams); null when its root was given none. */
  flowParams?: string | null;
  /** Nominal fire time: lateness is measured from here. */
  scheduledAt: number;
  /** When it may be sent: its instant, or later when a dispatch back-off deferred it (a refusal, no executor); before the instant only if it was refused while sent ahead. */
  dueAt: number;
  /**
   * The instant it is to start at: its fire time, or the end of a retry backoff. No deferral,
   * refusal, reroute, give-back or takeover moves it: a run sent again starts then, or at once if it has passed.
   */
  instant: number;
  /**
   * The instant its lateness counts from: its instant, or later when its own keys held it back
   * (a rate key's token, a concurrency key's place) — the task's own rule, not lateness
   * (find-late-runs.ts). The engine's lateness histogram measures from here.
   */
  lateFrom: number;
  leaseUntil: number;
  flowId: number | null;
  executorApp: string;
  handler: string;
  timeoutMs: number;
  startDeadlineMs: number;
  concurrencyPolicy: ConcurrencyPolicy;
  retry: RetryPolicy;
  /** The task's fan-out: a run of a BROADCAST/SHARDED task (not a shard) writes shards instead of being sent. */
  fanOut: FanOut;
  /** A shard's place (cause SHARD); null for other runs. */
  shard: ClaimedShard | null;
  /** W3C traceparent of the span that made the run: its claim, dispatch and outcome spans join that trace. Null: untraced. */
  traceParent?: string | null;
  /** Executor recorded on the run at its last dispatch (set when a taken-over DISPATCHED run is re-sent). */
  executorId: number | null;
  /** Why the run exists (runs.cause). */
  cause: RunCause;
  /** Its task's alarm types; null: every type. */
  alarmTypes: AlarmType[] | null;
  /** Its task's alarm silence window (0: never collapsed); with alarmTypes, its alarms need no read of the task. */
  alarmSilenceMs: number;
  /** Whether its end may have follow-ups (DAG children, a FIXED_DELAY task's next fire): none for a shard. */
  followUps: { children: boolean; fixedDelay: boolean };
  /** Its task bounds runs per key: its end frees its key's place, which only its row names (runs.run_key). */
  keyed: boolean;
  /**
   * Read by a wake-up, not claimed: its row is still PENDING, and its DISPATCHED mark claims it
   * (RunClaims.readNamed). Until then a peer, a poll or a cancel may take it first; the mark then
   * moves nothing and the run is dropped here, as a run taken over is. Absent: claimed.
   */
  unclaimed?: boolean;
  /**
   * Written already sent (DirectStarts): its console wrote its row DISPATCHED to `executorId`,
   * held by this node, at this instant. Sent there within MARK_FRESH_MS of it, it needs no
   * DISPATCHED mark (RunStart); sent elsewhere or later, the mark is a reroute of the row. Absent:
   * its row is CLAIMED (or PENDING: `unclaimed`), as any claimed run's.
   */
  markedAt?: number;
}
