import type { CliCommand } from '../common/cli-command';
import { UsageError } from '../common/usage-error';
import { redactUrlPasswords } from '@baton/domain';
import { describeMigrationRun, migrateDatabase } from '../common/migrate-database';

export const migrateCommand: CliCommand = {
  name: 'migrate',
  summary: 'Run the pending migrations on a database (ahead of a roll-out)',
  help: `usage: baton migrate [<database URL>]

Runs the pending migrations on the database (the argument, or BATON_DB_URL) and lists the ones
this run applied ("applied 2:" and their names), then how many the database has ("up to date:
56 migrations"; that line alone when none was pending). Engines and consoles also run them when
they start (under a lock, so processes may start together): this is for migrating ahead of a
roll-out.

  BATON_DB_URL   mysql://user:pass@host:3306/db or sqlite:path   required without the argument`,
  async run(args) {
    if (args.length > 1) throw new UsageError(`takes one database URL at most (got ${args.length} arguments)`);
    const { ConfigError, ProcessConfig, exitOnStartFailure } = await import('@baton/config');
    const url =
      args[0] ??
      readDatabaseUrl(() => {
        const value = ProcessConfig.load('cli').optionalString('BATON_DB_URL');
        if (value === undefined) throw new ConfigError('BATON_DB_URL', undefined, 'required (see docs/CONFIGURATION.md)');
        return value;
      }, exitOnStartFailure);
    try {
      const run = await migrateDatabase(url);
      console.log(`${redactUrlPasswords(url)}: ${describeMigrationRun(run)}`);
    } catch (error) {
      const { DatabaseUnavailableError } = await import('@baton/persistence');
      // A database it cannot open: why and what to do, naming BATON_DB_URL when the URL came from it.
      if (error instanceof DatabaseUnavailableError && args[0] === undefined) return exitOnStartFailure(error);
      const why = error instanceof DatabaseUnavailableError ? error.why : `migration failed: ${(error as Error).message}`;
      console.error(`${redactUrlPasswords(url)}: ${why}`);
      process.exit(1);
    }
  },
};

/** BATON_DB_URL, validated; a missing or bad one ends the process with the one line naming it. */
function readDatabaseUrl(read: () => string, fail: (error: unknown) => never): string {
  try {
    return read();
  } catch (error) {
    return fail(error);
  }
}
