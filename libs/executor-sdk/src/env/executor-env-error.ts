/** A BATON_* variable of an executor is missing or malformed; the message names it and its value. */
export class ExecutorEnvError extends Error {
  readonly code = 'EXECUTOR_ENV_INVALID';

  constructor(
    readonly variable: string,
    readonly value: string | undefined,
    reason: string,
  ) {
    super(value === undefined ? `${variable} ${reason}` : `${variable}=${JSON.stringify(value)}: ${reason}`);
    this.name = 'ExecutorEnvError';
  }
}
