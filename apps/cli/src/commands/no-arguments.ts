import { UsageError } from '../common/usage-error';

/** The server commands are configured by BATON_* variables only: any argument is a mistake. */
export function noArguments(args: string[]): void {
  if (args.length > 0) throw new UsageError(`takes no arguments (got "${args.join(' ')}"); it is configured by BATON_* variables`);
}
