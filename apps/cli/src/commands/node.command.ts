import type { CliCommand } from '../common/cli-command';
import { noArguments } from './no-arguments';

export const nodeCommand: CliCommand = {
  name: 'node',
  summary: 'A console and an engine in one process: a node of a cluster on MySQL/MariaDB',
  help: `usage: baton node

A console (web and REST API) and an engine in one process, beside the cluster's other nodes,
consoles and engines on one MySQL/MariaDB database. The engine's routes (executors' heartbeats and
callbacks) share the console's port. A run submitted here is claimed by this node's engine at
once, without a signed wake-up to another process: fewer processes, and less CPU a run submitted
through the API (docs/BENCHMARKS.md, on demand). Prints "NODE READY <nodeId> <url>" once it listens.

Main variables (all: docs/CONFIGURATION.md, "Console" and "Engine"):
  BATON_DB_URL             mysql://user:pass@host:3306/db                    required
  BATON_CONSOLE_PORT       HTTP port (console, API, engine routes)          default 8080
  BATON_HOST               listen address                                   default 127.0.0.1
  BATON_ENGINE_ID          the engine's node id                             default <host>-<pid>-<random>
  BATON_ENGINE_GROUPS      engine groups it serves                          default default
  BATON_ENGINE_URL         the URL executors call back, when not the listening one
  BATON_BROKER_URL         ActiveMQ STOMP broker for live alarms            default none
  BATON_OPERATOR_USERNAME, BATON_OPERATOR_PASSWORD   this operator is created at start when missing`,
  async run(args) {
    noArguments(args);
    const [{ runNode }, { exitOnStartFailure }, { EngineAlreadyRunningError }] = await Promise.all([
      import('../../../embedded/src/node-main'),
      import('@baton/config'),
      import('../../../engine/src'),
    ]);
    await runNode().catch((error: unknown) => exitOnStartFailure(error, [EngineAlreadyRunningError]));
  },
};
