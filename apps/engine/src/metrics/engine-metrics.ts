import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The engine's Prometheus metrics, one registry per node (served at GET /metrics).
 * Names carry the `baton_engine_` prefix; times are in seconds, as Prometheus expects.
 */
/**
 * How often the event-loop lag (`baton_engine_nodejs_eventloop_lag_*`) is sampled, in ms (prom-client's default: 10).
 * Each sample is a timer that wakes the engine, 100 times a second at the default, idle or not; on a VM where a wake-up
 * costs 50-170 µs of CPU that was a third of an idle engine's CPU (docs/BENCHMARKS.md, Idle). A loop blocked for
 * longer than this still shows in full in the lag's max and p99; a shorter stall is sampled with that chance.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

/**
 * prom-client's default gauges of the counts of active handles, requests and resources, named
 * `_total` as if they were counters: Prometheus keeps that suffix for counters (`promtool check
 * metrics` refuses them) and a query would take them for ones. Left out: the same counts by type
 * (`baton_engine_nodejs_active_handles{type}` & co., also defaults) sum to each total
 * (`sum without (type) (…)`), so no fact is lost — a second series of the sum is what prom-client's
 * maintainers mean to drop themselves (prometheus/client_js#283).
 */
const MISNAMED_DEFAULT_GAUGES = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

export class EngineMetrics {
  readonly registry = new Registry();

  /** Runs whose dispatch got a 202 from an executor. */
  readonly runsFired = new Counter({ name: 'baton_engine_runs_fired_total', help: 'Runs accepted by an executor', registers: [this.registry] });

  /** Of those, runs sent ahead of their instant (BATON_SEND_AHEAD_MS) to an executor that starts them then. */
  readonly runsSentAhead = new Counter({ name: 'baton_engine_runs_sent_ahead_total', help: 'Runs accepted by an executor ahead of their instant, to start at it', registers: [this.registry] });

  /** Runs whose handler started more than EARLY_START_TOLERANCE_MS (20 ms) before their instant, as their callbacks said (a defect: RUN_STARTED_EARLY). */
  readonly runsStartedEarly = new Counter({ name: 'baton_engine_runs_started_early_total', help: 'Runs whose handler started more than 20 ms before their instant', registers: [this.registry] });

  /** How early those starts were (their negative lateness, as a positive number). */
  readonly earliness = new Histogram({
    name: 'baton_engine_start_earliness_seconds',
    help: 'How long before its instant an early run started',
    buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });

  /** Scheduled time → dispatch sent. */
  readonly lateness = new Histogram({
    name: 'baton_engine_dispatch_lateness_seconds',
    help: 'Delay from a run\'s instant (its admission when its own keys held it back) to its dispatch',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  /** This engine's clock offset from the database's (database − engine), measured at each heartbeat; the engine schedules corrected by it. In seconds, as every time here. */
  readonly clockOffset = new Gauge({ name: 'baton_engine_clock_offset_seconds', help: "Offset of the database's clock from this engine's (s), measured at heartbeat", registers: [this.registry] });

  /** Dispatch slots held (send → ack). */
  readonly slotsInUse = new Gauge({ name: 'baton_engine_slots_in_use', help: 'Dispatch slots in use', registers: [this.registry] });

  /** Runs held in memory waiting for their due time. */
  readonly runsHeld = new Gauge({ name: 'baton_engine_runs_held', help: 'Claimed runs waiting in the timer queue', registers: [this.registry] });

  /** Rows claimed per claim query (runs) or plan query (tasks). */
  readonly claimBatch = new Histogram({
    name: 'baton_engine_claim_batch_size',
    help: 'Rows claimed per query',
    labelNames: ['kind'],
    buckets: [0, 1, 5, 10, 50, 100, 250, 500, 1000],
    registers: [this.registry],
  });

  /** One claim's transaction: `runs` a claim turn's (or a wake-up's runs claimed by id), `tasks` a plan pass's (due tasks locked, their runs inserted). */
  readonly claimDuration = new Histogram({
    name: 'baton_engine_claim_seconds',
    help: 'Time of one claim (runs) or plan (tasks) transaction',
    labelNames: ['kind'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  /**
   * Callback lag: a final callback's receipt here − the `finishedAt` its executor reported (the
   * handler's end), so a slow network, a busy executor or a callback that waited in its spool
   * through an outage shows. Two clocks: an executor's skew shifts it (a negative lag counts 0).
   */
  readonly callbackLag = new Histogram({
    name: 'baton_engine_callback_lag_seconds',
    help: "Time from a handler's end (the callback's finishedAt) to the callback's receipt",
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });

  /** Statements that waited for a free database connection (DatabasePoolWaits: all of the pool's connections were busy). */
  readonly dbPoolWaits = new Counter({ name: 'baton_engine_db_pool_waits_total', help: 'Database requests that queued for a free pool connection', registers: [this.registry] });

  /**
   * The alarm outbox's backlog, read by TenantLoadSampler with the tenants' load (every engine
   * reports the same: aggregate with max): unpublished alarms, counted up to 10,000, and the age
   * of the oldest (0 when none waits). Growing: the relay cannot publish (broker away).
   */
  readonly alarmOutboxPending = new Gauge({ name: 'baton_engine_alarm_outbox_pending', help: 'Alarms waiting in the outbox to be published (counted up to 10000)', registers: [this.registry] });

  readonly alarmOutboxOldestAge = new Gauge({
    name: 'baton_engine_alarm_outbox_oldest_age_seconds',
    help: 'Age of the oldest alarm waiting in the outbox, 0 when none waits',
    registers: [this.registry],
  });

  /** Time to process one executor callback, receipt → committed. */
  readonly callbackLatency = new Histogram({
    name: 'baton_engine_callback_seconds',
    help: 'Callback processing time',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });

  /** Slot hold time, send → ack (the MTHPT claim: independent of the work's length). */
  readonly slotHold = new Histogram({
    name: 'baton_engine_slot_hold_seconds',
    help: 'Time a dispatch slot is held',
    // Fine around 10–30 ms: the slot-hold target (p99 ≤ 20 ms) is read from these buckets.
    buckets: [0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.1, 0.25, 1, 5],
    registers: [this.registry],
  });

  /** Dispatch attempts refused or failed, by reason (BUSY, REJECTED, UNREACHABLE, NO_EXECUTOR). */
  readonly dispatchFailures = new Counter({
    name: 'baton_engine_dispatch_failures_total',
    help: 'Dispatch attempts that did not get a 202',
    labelNames: ['reason'],
    registers: [this.registry],
  });

  /** Runs given back to the pool, by why (TAKEOVER of a dead node, EXPIRED lease, SHUTDOWN, RESTART of the same node id, STRAY: held in the database but not in memory) and outcome (PENDING, SKIPPED). */
  readonly runsReleased = new Counter({
    name: 'baton_engine_runs_released_total',
    help: 'Held runs released by takeover, expired lease, shutdown or as strays',
    labelNames: ['reason', 'outcome'],
    registers: [this.registry],
  });

  /** Takeover of a dead engine: from its last heartbeat to its runs being claimable again. */
  readonly takeoverDelay = new Histogram({
    name: 'baton_engine_takeover_seconds',
    help: 'Time from a dead engine\'s last heartbeat to the release of its runs',
    buckets: [1, 2, 4, 6, 8, 10, 12, 15, 20, 30, 60],
    registers: [this.registry],
  });

  /**
   * Signed requests refused by a tenant's admission on this engine (TenantAdmission), by route
   * (the protocol path: 5 values) and reason (TENANT_BUSY, TENANT_RATE_LIMITED). No tenant
   * label: a tenant id is unbounded, and the refusing engine logs the tenant (at most every 10 s
   * per tenant, with the count since its last line).
   */
  readonly signedRequestsRefused = new Counter({
    name: 'baton_engine_signed_requests_refused_total',
    help: "Signed requests refused (429) by their tenant's admission on this engine",
    labelNames: ['route', 'reason'],
    registers: [this.registry],
  });

  /** Alarms the outbox relay published (the broker confirmed them). */
  readonly alarmsPublished = new Counter({ name: 'baton_engine_alarms_published_total', help: 'Alarms published by the outbox relay', registers: [this.registry] });

  /** Relay turns that could not publish (no broker connection, no receipt). */
  readonly alarmPublishFailures = new Counter({
    name: 'baton_engine_alarm_publish_failures_total',
    help: 'Alarm relay turns stopped by a publish failure (the alarms wait in the outbox)',
    registers: [this.registry],
  });

  /*
   * Per-tenant load, read from the database every BATON_LOAD_SAMPLE_MS by TenantLoadSampler (not
   * at scrape time) for the tenants of this engine's groups: a `tenant` label for at most
   * BATON_LOAD_METRIC_TENANTS of them — the oldest due run first — and the rest summed under
   * `tenant="_other"`, so the series stay bounded however many tenants there are. Every engine of
   * a group reports the same figures (aggregate with max by (tenant), not sum).
   */

  /** PENDING/RETRY_WAIT runs whose due time has come, counted up to 10,000 per tenant (100,000 for `_other`). */
  readonly tenantDueRuns = new Gauge({ name: 'baton_engine_tenant_due_runs', help: 'Runs due and not claimed yet, per tenant (counted up to a cap)', labelNames: ['tenant'], registers: [this.registry] });

  /** CLAIMED runs: held by the group's engines. */
  readonly tenantHeldRuns = new Gauge({ name: 'baton_engine_tenant_held_runs', help: 'Runs held by engines (CLAIMED), per tenant', labelNames: ['tenant'], registers: [this.registry] });

  /** HELD runs: waiting for a place of their concurrency key (counted up to 100,000 in all). */
  readonly tenantKeyHeldRuns = new Gauge({ name: 'baton_engine_tenant_key_held_runs', help: 'Runs held by their concurrency key (HELD), per tenant', labelNames: ['tenant'], registers: [this.registry] });

  /** Events received per second over the last EVENT_RATE_WINDOW_MS (10 s), among the newest 100,000 events of all tenants. */
  readonly tenantEventRate = new Gauge({ name: 'baton_engine_tenant_events_per_second', help: 'Events received per second over the last 10 s, per tenant', labelNames: ['tenant'], registers: [this.registry] });

  /** DISPATCHED/ACCEPTED runs whose instant has come: the executors' load (saturation is this ÷ capacity). */
  readonly tenantInFlightRuns = new Gauge({
    name: 'baton_engine_tenant_in_flight_runs',
    help: 'Runs at executors whose instant has come (DISPATCHED/ACCEPTED: running, or waiting there for a worker), per tenant; runs sent ahead are baton_engine_tenant_sent_ahead_runs',
    labelNames: ['tenant'],
    registers: [this.registry],
  });

  /** DISPATCHED/ACCEPTED runs sent ahead of their instant (BATON_SEND_AHEAD_MS), waiting for it at their executor: no worker's load. */
  readonly tenantSentAheadRuns = new Gauge({
    name: 'baton_engine_tenant_sent_ahead_runs',
    help: 'Runs sent ahead to executors that wait there for their instant (DISPATCHED/ACCEPTED, instant to come: not load), per tenant',
    labelNames: ['tenant'],
    registers: [this.registry],
  });

  /** How long the oldest due run has waited (0 when nothing is due); `_other`: the longest among the others. */
  readonly tenantOldestDueAge = new Gauge({
    name: 'baton_engine_tenant_oldest_due_age_seconds',
    help: "Age of the tenant's oldest due run (now - its due time), 0 when nothing is due",
    labelNames: ['tenant'],
    registers: [this.registry],
  });

  /** Retries the tenant's retry budget made due later than their backoff said (BATON_RETRY_BUDGET_PERCENT, BATON_RETRY_BUDGET_PER_SEC). */
  readonly retriesPaced = new Counter({ name: 'baton_engine_retries_paced_total', help: "Retries made due later than their backoff by the tenant's retry budget", labelNames: ['tenant'], registers: [this.registry] });

  /** Sum of the pool sizes of the tenant's UP executors. */
  readonly tenantExecutorCapacity = new Gauge({ name: 'baton_engine_tenant_executor_capacity', help: "Capacity of the tenant's UP executors", labelNames: ['tenant'], registers: [this.registry] });

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (!(options.defaultMetrics ?? true)) return;
    collectDefaultMetrics({ register: this.registry, prefix: 'baton_engine_', eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    for (const name of MISNAMED_DEFAULT_GAUGES) this.registry.removeSingleMetric(`baton_engine_${name}`);
  }
}
