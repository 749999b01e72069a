/** A bad command line: the CLI prints the message and the command's usage, and exits 2. */
export class UsageError extends Error {
  readonly code = 'CLI_USAGE';
}
