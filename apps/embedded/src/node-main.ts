import 'reflect-metadata';
import { ConfigError, defaultNodeId, exitOnStartFailure, ProcessConfig } from '@baton/config';
import { createLogger, type LogLevel } from '@baton/logging';
import { databaseKind } from '@baton/persistence';
import { flushTracing, startTracing } from '@baton/tracing';
import { openConsole } from '../../console/src/open-console';
import { readConsoleConfig } from '../../console/src/common/options';
import { EngineAlreadyRunningError, startEngine } from '../../engine/src';
import { bootOneProcess, type OneProcess } from './one-process';

export interface NodeProcess {
  /** Base URL of the console, its API and the engine's routes, e.g. http://127.0.0.1:8080 */
  url: string;
  /** The engine's node id (engine_nodes.id). */
  nodeId: string;
  close(): Promise<void>;
}

/**
 * `baton node`: a node of a cluster — a console and an engine in one process, on MySQL/MariaDB,
 * beside other nodes, consoles and engines. The console's variables (docs/CONFIGURATION.md,
 * "Console": BATON_DB_URL required, BATON_CONSOLE_PORT, BATON_HOST, the operator) and the engine's
 * ("Engine": its id, groups, tuning; BATON_ENGINE_URL, what executors are told to call back when
 * the listening address is not theirs to reach). The engine's routes share the console's port.
 * A run submitted here for a group this engine serves is claimed by it at once, without a signed
 * wake-up to another process (bootOneProcess). Prints `NODE READY <nodeId> <url>` once it listens.
 */
export async function runNode(env: NodeJS.ProcessEnv = process.env): Promise<NodeProcess> {
  const consoleValues = ProcessConfig.load('console', env);
  const engineValues = ProcessConfig.load('engine', env);
  const config = readConsoleConfig(consoleValues);
  if (databaseKind(config.databaseUrl) === 'sqlite') {
    throw new ConfigError('BATON_DB_URL', config.databaseUrl, 'a node shares a MySQL/MariaDB database with the rest of its cluster (one process on SQLite: `npm start`)');
  }
  startTracing('baton-node', env);
  const nodeId = engineValues.optionalString('BATON_ENGINE_ID') ?? defaultNodeId();
  const logger = createLogger({ process: 'node', nodeId, level: consoleValues.string('BATON_LOG_LEVEL') as LogLevel });
  for (const warning of consoleValues.warnings) logger.warn(warning);
  const booted: OneProcess = await bootOneProcess({ console: consoleValues, engine: engineValues }, { ...config, nodeId }, { logger, console: { consoleId: config.consoleId, socketCorsOrigins: config.module.socketCorsOrigins } });
  const { app, dataSource, alarmBus, engine } = booted;
  const close = async () => {
    await app.close();
    await flushTracing();
    await alarmBus.close();
    if (dataSource.isInitialized) await dataSource.destroy();
  };
  try {
    const url = await openConsole(app, config, logger);
    const engineUrl = await startEngine(app, { url: engine.publicUrl ?? url.replace('://0.0.0.0:', '://127.0.0.1:').replace('://[::]:', '://127.0.0.1:') });
    logger.info(`Baton node ${engine.nodeId} on ${url}/api (engine routes on the same port, executors call back at ${engineUrl}; groups ${engine.groups.join(', ')})`);
    process.stdout.write(`NODE READY ${engine.nodeId} ${url}\n`);
    return { url, nodeId: engine.nodeId, close };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

// A refusal to start is an answer, not a crash: its message says what to do.
if (require.main === module) runNode().catch((error: unknown) => exitOnStartFailure(error, [EngineAlreadyRunningError]));
