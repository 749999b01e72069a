import { defaultNodeId, ProcessConfig } from '@baton/config';

/** How the one-process embedded mode runs; read from the environment. */
export interface EmbeddedConfig {
  /** `BATON_DB_URL`. Default `sqlite:./data/baton.sqlite` (relative to the working directory). */
  databaseUrl: string;
  /** `BATON_HOST`. Default 127.0.0.1: the demo logins are not for a network. */
  host: string;
  /** `BATON_CONSOLE_PORT`: console, API, engine callbacks. Default 8080. */
  port: number;
  /** Id of the engine node, `nodeId` of the log lines (`BATON_ENGINE_ID`). Default `<hostname>-<pid>-<random>`. */
  nodeId?: string;
  /**
   * Every variable of the embedded mode, validated (the engine's tuning, the demo passwords, …).
   * Default: loaded from `process.env` when the embedded mode starts.
   */
  values?: ProcessConfig;
}

/** The embedded mode's variables through the schema (libs/config): a bad one throws ConfigError. */
export function readEmbeddedConfig(env: NodeJS.ProcessEnv = process.env): EmbeddedConfig & { values: ProcessConfig } {
  const values = ProcessConfig.load('embedded', env);
  return {
    databaseUrl: values.string('BATON_DB_URL'),
    host: values.string('BATON_HOST'),
    port: values.integer('BATON_CONSOLE_PORT'),
    nodeId: values.optionalString('BATON_ENGINE_ID') ?? defaultNodeId(),
    values,
  };
}
