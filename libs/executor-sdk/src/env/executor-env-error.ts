import { redactUrlPasswords } from '@baton/domain/redaction/redact-url';

/**
 * A BATON_* variable of an executor is missing, malformed or refused; the message names it, its
 * value (a URL's password hidden: BATON_BROKER_URL may carry one) and why.
 */
export class ExecutorEnvError extends Error {
  readonly code = 'EXECUTOR_ENV_INVALID';
  readonly value: string | undefined;

  constructor(
    readonly variable: string,
    value: string | undefined,
    reason: string,
  ) {
    const shown = value === undefined ? undefined : redactUrlPasswords(value);
    super(shown === undefined ? `${variable} ${reason}` : `${variable}=${JSON.stringify(shown)}: ${reason}`);
    this.value = shown;
    this.name = 'ExecutorEnvError';
  }
}
