package dev.baton.executor;

/** A BATON_* variable is missing or malformed; the message names it and its value. */
public class ExecutorEnvException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;
  private final String variable;

  ExecutorEnvException(String variable, String value, String reason) {
    super(value == null ? variable + " " + reason : variable + "=\"" + value + "\": " + reason);
    this.variable = variable;
  }

  public String variable() {
    return variable;
  }
}
