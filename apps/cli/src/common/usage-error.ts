/**
 * A bad command line: the CLI prints `baton <command>: <message>` and the command's usage, and
 * exits 2. The message names no command (main.ts does, once); `command` is the command as typed
 * when it is more than the name the CLI found (`import quartz`).
 */
export class UsageError extends Error {
  readonly code = 'CLI_USAGE';

  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}
