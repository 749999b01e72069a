import type { CliCommand } from '../common/cli-command';
import { noArguments } from './no-arguments';

export const consoleCommand: CliCommand = {
  name: 'console',
  summary: 'The console (web and REST API) of a cluster',
  help: `usage: baton console

The console of a cluster: web console and REST API (/api, docs at /api/docs), live alarms.
Prints "CONSOLE READY <url>" once it listens. Run as many as you like behind a load balancer.

Main variables (all: docs/CONFIGURATION.md, "Console"):
  BATON_DB_URL             mysql://user:pass@host:3306/db                    required
  BATON_BROKER_URL         ActiveMQ STOMP broker for live alarms            default none
  BATON_CONSOLE_PORT       HTTP port                                        default 8080
  BATON_HOST               listen address                                   default 127.0.0.1
  BATON_OPERATOR_USERNAME, BATON_OPERATOR_PASSWORD   this operator is created at start when missing`,
  async run(args) {
    noArguments(args);
    const [{ runConsole }, { exitOnStartFailure }] = await Promise.all([import('../../../console/src/main'), import('@baton/config')]);
    await runConsole().catch((error: unknown) => exitOnStartFailure(error));
  },
};
