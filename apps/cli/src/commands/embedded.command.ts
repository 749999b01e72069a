import type { CliCommand } from '../common/cli-command';
import { noArguments } from './no-arguments';

export const embeddedCommand: CliCommand = {
  name: 'embedded',
  summary: 'Baton in one process on SQLite: console, engine and demo executor (what `npm start` runs)',
  help: `usage: baton embedded

Console (web and REST API), one engine and the demo executor in one process, on an SQLite file.
Seeds a demo tenant with its demo tasks on an empty database and prints the URLs and logins.

Main variables (all: docs/CONFIGURATION.md, "Embedded mode"):
  BATON_DB_URL             database                       default sqlite:./data/baton.sqlite
  BATON_CONSOLE_PORT       console (and callback) port     default 8080
  BATON_HOST               listen address                 default 127.0.0.1
  BATON_DEMO_PASSWORD      password of the demo admin "demo"        default demo-password
  BATON_OPERATOR_PASSWORD  password of the operator "operator"      default operator-password`,
  async run(args) {
    noArguments(args);
    const [{ runEmbedded }, { exitOnStartFailure }, { EngineAlreadyRunningError }] = await Promise.all([
      import('../../../embedded/src/main'),
      import('@baton/config'),
      import('../../../engine/src'),
    ]);
    await runEmbedded().catch((error: unknown) => exitOnStartFailure(error, [EngineAlreadyRunningError]));
  },
};
