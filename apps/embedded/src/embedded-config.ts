/** How the one-process embedded mode runs; read from the environment. */
export interface EmbeddedConfig {
  /** `BATON_DB_URL`. Default `sqlite:./data/baton.sqlite` (relative to the working directory). */
  databaseUrl: string;
  /** `BATON_HOST`. Default 127.0.0.1: the demo logins are not for a network. */
  host: string;
  /** `BATON_CONSOLE_PORT`: console, API, engine callbacks. Default 8080. */
  port: number;
}

export function readEmbeddedConfig(env: NodeJS.ProcessEnv = process.env): EmbeddedConfig {
  const port = Number(env.BATON_CONSOLE_PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`BATON_CONSOLE_PORT must be a port number (got "${env.BATON_CONSOLE_PORT}")`);
  return {
    databaseUrl: env.BATON_DB_URL ?? 'sqlite:./data/baton.sqlite',
    host: env.BATON_HOST ?? '127.0.0.1',
    port,
  };
}
