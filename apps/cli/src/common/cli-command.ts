/** One `baton <name>` command. */
export interface CliCommand {
  name: string;
  /** One line for `baton --help`. */
  summary: string;
  /** `baton <name> --help`: usage, options and the variables it reads. */
  help: string;
  /** Runs the command with the arguments after its name; resolves once it is up (servers keep running). */
  run(args: string[]): Promise<void>;
}

