import type { CliCommand } from '../common/cli-command';
import { UsageError } from '../common/usage-error';
import { describeChanges, exportFile, planOrApply, type ConsoleApi } from '../common/config-api';
import { ConsoleApiError } from '../common/console-api-error';
import { readNamedFile } from '../common/read-named-file';
import { writeNamedFile } from '../common/write-named-file';

const VARIABLES = `  BATON_API_URL   the console (default http://127.0.0.1:8080)
  BATON_API_KEY   a tenant API key (TENANT_ADMIN for plan and apply)   required`;

/** BATON_API_URL and BATON_API_KEY through the schema; a missing key ends the process naming it. */
async function consoleApi(): Promise<ConsoleApi> {
  const { ConfigError, ProcessConfig, exitOnStartFailure } = await import('@baton/config');
  try {
    const values = ProcessConfig.load('cli');
    const apiKey = values.optionalString('BATON_API_KEY');
    if (!apiKey) throw new ConfigError('BATON_API_KEY', undefined, 'required: a tenant API key (the console\'s API keys page, or POST /api/api-keys)');
    return { url: values.string('BATON_API_URL'), apiKey };
  } catch (error) {
    return exitOnStartFailure(error);
  }
}

/** `-f file` (required) and `--prune`. */
function fileArguments(args: string[]): { file: string; prune: boolean } {
  let file: string | undefined;
  let prune = false;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-f' || args[i] === '--file') file = args[++i];
    else if (args[i] === '--prune') prune = true;
    else throw new UsageError(`unknown argument "${args[i]}"`);
  }
  if (!file) throw new UsageError('needs -f <file>');
  return { file, prune };
}

async function reported(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (!(error instanceof ConsoleApiError)) throw error;
    console.error(`baton: ${error.message}`);
    process.exit(1);
  }
}

export const exportCommand: CliCommand = {
  name: 'export',
  summary: "Write a tenant's tasks, dependencies, calendars, webhooks and retention as one YAML file",
  help: `usage: baton export [-o <file>]

Writes the tenant of BATON_API_KEY as a tasks-as-code file (stable order, names not ids) to
<file>, or to stdout. No Baton secret is in it, but an admin's export holds the tasks' params as
they are (secret-named values in clear) and the webhooks' URLs: keep the file private.

${VARIABLES}`,
  async run(args) {
    const out = args[0] === '-o' || args[0] === '--output' ? args[1] : undefined;
    if (args.length > 0 && (out === undefined || args.length > 2)) throw new UsageError('takes -o <file> at most');
    const api = await consoleApi();
    await reported(async () => {
      const file = await exportFile(api);
      if (out) writeNamedFile('-o', out, file);
      else process.stdout.write(file);
    });
  },
};

export const planCommand: CliCommand = {
  name: 'plan',
  summary: 'Show what applying a tasks-as-code file would change',
  help: `usage: baton plan -f <file> [--prune]

Prints what \`baton apply\` would change: creations (+), updates (~, field by field, with the next
fire times of a task whose schedule changes) and, with --prune, deletions (-). Changes nothing.

${VARIABLES}`,
  async run(args) {
    const { file, prune } = fileArguments(args);
    const text = readNamedFile('-f', file);
    const api = await consoleApi();
    await reported(async () => console.log(describeChanges(await planOrApply(api, 'plan', text, prune))));
  },
};

export const applyCommand: CliCommand = {
  name: 'apply',
  summary: 'Apply a tasks-as-code file, all of it or nothing',
  help: `usage: baton apply -f <file> [--prune]

Makes the tenant match the file in one transaction: all of it or, at the first refusal (printed
with its place in the file), nothing. --prune also deletes the tasks, dependencies, calendars and
webhooks the file does not name. The tasks it writes are marked managed (the console warns before
editing them and shows when one has drifted). Recorded in the audit log.

${VARIABLES}`,
  async run(args) {
    const { file, prune } = fileArguments(args);
    const text = readNamedFile('-f', file);
    const api = await consoleApi();
    await reported(async () => {
      const changes = await planOrApply(api, 'apply', text, prune);
      console.log(describeChanges(changes));
      if (changes.length > 0) console.log('Applied.');
    });
  },
};
