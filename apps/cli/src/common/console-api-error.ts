/**
 * A call to the console's REST API that did not get the answer expected: the console could not be
 * reached (`status` null) or answered other than 2xx (`status`: its HTTP status). The message is
 * written for the terminal.
 */
export class ConsoleApiError extends Error {
  readonly code = 'CONSOLE_API';

  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}
