package dev.baton.executor;

/**
 * What {@link RunContext#sleep} and {@link RunContext#throwIfAborted} throw once the run is
 * aborted (engine timeout or cancel, deadline, shutdown). Let it propagate: the run is reported
 * ABORTED whatever the handler throws after an abort.
 */
public class RunAbortedException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final AbortReason reason;

  public RunAbortedException(AbortReason reason) {
    super(reason.message);
    this.reason = reason;
  }

  public AbortReason reason() {
    return reason;
  }
}
