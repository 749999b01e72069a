package dev.baton.executor;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/** What a handler gets for one attempt of a run (the Node SDK's HandlerContext). */
public final class RunContext {
  private final RunJob job;
  private final DispatchRequest r;
  private final RunLogger log;

  RunContext(RunJob job) {
    this.job = job;
    this.r = job.request;
    this.log = new RunLogger(job);
  }

  /** The task's params as configured in the console (a JSON null when none). */
  public JsonNode params() {
    return r.params();
  }

  /** The params converted to a class of yours (Jackson's convertValue). */
  public <T> T params(Class<T> type) {
    return Json.MAPPER.convertValue(r.params(), type);
  }

  public long runId() {
    return r.runId();
  }

  /** 1 for the first attempt, 2 for the first retry, … */
  public int attempt() {
    return r.attempt();
  }

  public long taskId() {
    return r.taskId();
  }

  public String taskName() {
    return r.taskName();
  }

  /** The handler name the run was dispatched to. */
  public String handler() {
    return r.handler();
  }

  public String tenantId() {
    return r.tenantId();
  }

  /** Nominal fire time (epoch ms). */
  public long scheduledAt() {
    return r.scheduledAt();
  }

  /**
   * The handler must be done by then (epoch ms, on this executor's clock); the run is aborted when
   * it passes. It is the dispatch's arrival + the time the engine gave the run then ({@code
   * deadlineInMs}), so a clock ahead of the engines' does not cut the run short (from an older
   * engine that does not send it: the engine's {@code deadline}).
   */
  public long deadline() {
    return job.deadline;
  }

  /** In a flow: the results of this run's parent tasks, by task name; empty for a run no parent fired. */
  public Map<String, JsonNode> parentResults() {
    return r.parentResults();
  }

  /** Params of the flow this run belongs to (given when its root was triggered); a JSON null when none. */
  public JsonNode flowParams() {
    return r.flowParams();
  }

  /** A BROADCAST or SHARDED task's shard: its index, 0 … shardTotal − 1 (0 for other runs). */
  public int shardIndex() {
    return r.shardIndex();
  }

  /** How many shards the run was split into (1 for other runs). */
  public int shardTotal() {
    return r.shardTotal();
  }

  /**
   * The run's W3C trace context when the engines trace (the engine's dispatch span), else null.
   * With OpenTelemetry: {@code W3CTraceContextPropagator.getInstance().extract(Context.current(),
   * Map.of("traceparent", ctx.traceparent()), getter)} gives the context your spans nest under.
   */
  public String traceparent() {
    return r.traceparent();
  }

  /** True once the run is aborted (engine timeout, cancel or replace, deadline, shutdown). */
  public boolean isAborted() {
    return job.abortReason() != null;
  }

  /** Why the run was aborted, or null. */
  public AbortReason abortReason() {
    return job.abortReason();
  }

  /** Throws a {@link RunAbortedException} when the run is aborted: call it between steps. */
  public void throwIfAborted() {
    AbortReason reason = job.abortReason();
    if (reason != null) throw new RunAbortedException(reason);
  }

  /** Waits {@code ms}; throws a {@link RunAbortedException} as soon as the run is aborted. */
  public void sleep(long ms) {
    job.sleep(ms);
  }

  public RunLogger log() {
    return log;
  }

  /** Progress, 0–100 (clamped), sent to the engine in a throttled interim callback. */
  public void progress(double percent) {
    job.progress(percent);
  }

  /** Raises a business alarm on the tenant's alarm topic (severity INFO, WARNING or CRITICAL), through the engine. */
  public void alarm(String severity, String message) {
    job.alarm(severity, message, null);
  }

  /** As {@link #alarm(String, String)} with data (anything Jackson serialises). */
  public void alarm(String severity, String message, Object data) {
    job.alarm(severity, message, data);
  }
}
