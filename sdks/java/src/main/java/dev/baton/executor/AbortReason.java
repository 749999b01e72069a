package dev.baton.executor;

/** Why an attempt ended ABORTED: the engine's abort reasons, its deadline passing here, or this executor shutting down. */
public enum AbortReason {
  TIMEOUT("aborted by the engine: the run timed out"),
  CANCELLED("aborted by the engine: the run was cancelled"),
  REPLACED("aborted by the engine: the run was replaced by a newer one"),
  DEADLINE("aborted: the run passed its deadline"),
  SHUTDOWN("aborted: the executor is shutting down");

  final String message;

  AbortReason(String message) {
    this.message = message;
  }

  /** True for the reasons an engine may send in an abort request. */
  boolean fromEngine() {
    return this == TIMEOUT || this == CANCELLED || this == REPLACED;
  }
}
