package dev.baton.executor;

/**
 * A run's log: its lines reach the console's run page while the handler runs (interim
 * callbacks, about once a second) and the rest with the final callback. Arguments are
 * formatted with {@link String#format}.
 */
public final class RunLogger {
  private final RunJob job;

  RunLogger(RunJob job) {
    this.job = job;
  }

  public void debug(String format, Object... args) {
    job.log("debug", format, args);
  }

  public void info(String format, Object... args) {
    job.log("info", format, args);
  }

  public void warn(String format, Object... args) {
    job.log("warn", format, args);
  }

  public void error(String format, Object... args) {
    job.log("error", format, args);
  }
}
