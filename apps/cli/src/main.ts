import type { CliCommand } from './common/cli-command';
import { UsageError } from './common/usage-error';
import { clusterCommand } from './commands/cluster.command';
import { applyCommand, exportCommand, planCommand } from './commands/config.commands';
import { consoleCommand } from './commands/console.command';
import { embeddedCommand } from './commands/embedded.command';
import { nodeCommand } from './commands/node.command';
import { engineCommand } from './commands/engine.command';
import { importCommand } from './commands/import.command';
import { migrateCommand } from './commands/migrate.command';

const COMMANDS: readonly CliCommand[] = [embeddedCommand, clusterCommand, consoleCommand, engineCommand, nodeCommand, migrateCommand, exportCommand, planCommand, applyCommand, importCommand];

const USAGE = `usage: baton <command> [options]      (baton <command> --help for its options and variables)

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(10)}${command.summary}`).join('\n')}

Every process is configured by BATON_* variables (docs/CONFIGURATION.md); the main ones:
  BATON_DB_URL          database: mysql://user:pass@host:3306/db or sqlite:path
  BATON_BROKER_URL      ActiveMQ STOMP broker for alarms: stomp://host:61613
  BATON_CONSOLE_PORT    console port (default 8080)
  BATON_ENGINE_PORT     engine port (default 8090)
  BATON_ENGINE_GROUPS   engine groups an engine serves (default default)
  BATON_LOG_LEVEL       info, debug, … (default info)`;

/**
 * `baton <command>` (bin/baton.js, after building what changed): runs the command, or prints
 * the usage — on stdout and exit 0 when asked for (`--help`), on stderr and exit 2 for a bad
 * command line. An unexpected error: its stack, exit 1.
 */
export function main(argv: string[]): Promise<void> {
  // A reader that closed the pipe (`baton export | head -1`) took what it wanted: no stack for it.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(0);
  });
  return runCommand(argv).catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  });
}

async function runCommand(argv: string[]): Promise<void> {
  const [name, ...args] = argv;
  if (name === undefined) return usageError('baton', 'no command given', USAGE);
  if (name === '--help' || name === '-h' || name === 'help') {
    console.log(COMMANDS.find((c) => c.name === args[0])?.help ?? USAGE);
    return;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) return usageError('baton', `unknown command "${name}"`, USAGE);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(command.help);
    return;
  }
  try {
    await command.run(args);
  } catch (error) {
    if (error instanceof UsageError) return usageError(`baton ${error.command ?? command.name}`, error.message, command.help);
    throw error;
  }
}

/** `<who>: <message>`, the usage, exit 2; `who` is `baton`, or the command that refused its command line (`baton import quartz`), named once. */
function usageError(who: string, message: string, usage: string): void {
  console.error(`${who}: ${message}\n\n${usage}`);
  process.exit(2);
}

if (require.main === module) void main(process.argv.slice(2));
