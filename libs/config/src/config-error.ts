/**
 * A `BATON_*` variable with a value a process cannot start with. The message is the whole answer
 * (`BATON_ENGINE_SLOTS="abc": must be an integer ≥ 1`): the process prints it and exits 1.
 */
export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';

  constructor(
    readonly variable: string,
    readonly value: string | undefined,
    readonly reason: string,
  ) {
    super(value === undefined ? `${variable} is not set: ${reason}` : `${variable}=${JSON.stringify(value)}: ${reason}`);
    this.name = 'ConfigError';
  }
}
