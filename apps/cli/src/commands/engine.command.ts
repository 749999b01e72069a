import type { CliCommand } from '../common/cli-command';
import { noArguments } from './no-arguments';

export const engineCommand: CliCommand = {
  name: 'engine',
  summary: 'An engine node of a cluster (fires, dispatches and tracks runs)',
  help: `usage: baton engine

An engine node: claims due runs of its engine groups, dispatches them to executors, takes their
callbacks (HTTP), serves GET /health and GET /metrics. Creates the engine groups it serves when
they do not exist. Prints "ENGINE READY <nodeId> <url>" once it works; SIGTERM/SIGINT stop it
gracefully (held runs go back to PENDING).

Main variables (all: docs/CONFIGURATION.md, "Engine node"):
  BATON_DB_URL             mysql://user:pass@host:3306/db                    required in a cluster
  BATON_BROKER_URL         ActiveMQ STOMP broker the alarms are published to default none
  BATON_ENGINE_PORT        callback API, /health, /metrics                  default 8090
  BATON_ENGINE_GROUPS      engine groups served (comma list)                default default
  BATON_ENGINE_URL         URL executors call back on                       default the bound URL
  BATON_ENGINE_ID          node id, fixed across restarts                   default <host>-<pid>-<random>`,
  async run(args) {
    noArguments(args);
    const [{ runEngine }, { exitOnStartFailure }, { EngineAlreadyRunningError }] = await Promise.all([
      import('../../../engine/src/main'),
      import('@baton/config'),
      import('../../../engine/src'),
    ]);
    await runEngine().catch((error: unknown) => exitOnStartFailure(error, [EngineAlreadyRunningError]));
  },
};
