package dev.baton.executor;

/**
 * Why an attempt ended ABORTED: the engine's abort reasons, its deadline passing here, this executor
 * shutting down, or a run sent ahead let go unstarted for lack of contact with the engines (protocol 3).
 */
public enum AbortReason {
  TIMEOUT("aborted by the engine: the run timed out"),
  CANCELLED("aborted by the engine: the run was cancelled"),
  REPLACED("aborted by the engine: the run was replaced by a newer one"),
  DEADLINE("aborted: the run passed its deadline"),
  SHUTDOWN("aborted: the executor is shutting down"),
  NO_CONTACT("not started: sent ahead, and no engine had answered a heartbeat within the sent-ahead lease before its instant (or the engines handed it back)");

  final String message;

  AbortReason(String message) {
    this.message = message;
  }

  /** True for the reasons an engine may send in an abort request. */
  boolean fromEngine() {
    return this == TIMEOUT || this == CANCELLED || this == REPLACED;
  }
}
