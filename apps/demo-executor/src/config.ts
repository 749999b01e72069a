import type { ExecutorLogger, ExecutorOptions } from '@baton/executor-sdk';
import { buildDemoHandlers } from './handlers';

/**
 * The demo executor's options from the environment:
 *
 * | variable | meaning | default |
 * |---|---|---|
 * | `BATON_TENANT` | tenant id | required |
 * | `BATON_EXECUTOR_SECRET` | the tenant's executor secret | required |
 * | `BATON_ENGINE_URLS` | engine base URLs, comma-separated | required |
 * | `BATON_EXECUTOR_APP` | app name | `demo` |
 * | `BATON_EXECUTOR_HOST` / `BATON_EXECUTOR_PORT` | listen address | `127.0.0.1` / `0` (ephemeral) |
 * | `BATON_EXECUTOR_PUBLIC_URL` | URL engines call | the bound URL |
 * | `BATON_EXECUTOR_CONCURRENCY` / `BATON_EXECUTOR_QUEUE_LIMIT` | pool size / queue | 4 / 100 |
 * | `BATON_EXECUTOR_CALLBACK_CONCURRENCY` | callbacks in flight at once | 32 |
 * | `BATON_EXECUTOR_SPOOL` | callback spool file | `./.baton/spool-<app>.jsonl` |
 * | `BATON_EXECUTOR_HEARTBEAT_MS` | heartbeat interval | 3000 |
 * | `BATON_EXECUTOR_SHUTDOWN_GRACE_MS` | graceful-stop grace | 10000 |
 * | `BATON_EXECUTOR_RETRY_BASE_MS` / `BATON_EXECUTOR_RETRY_MAX_MS` | callback backoff | 200 / 30000 |
 * | `BATON_DEMO_RECORD_FILE` | JSONL file, one line per handler invocation | none |
 * | `BATON_BROKER_URL` | ActiveMQ STOMP broker(s): `ctx.alarm()` publishes straight to the tenant's topic | none (alarms go through the engine) |
 * | `BATON_ALARM_TOPIC_PREFIX` | topic prefix of direct alarms | `baton.alarms.` |
 */
export function demoExecutorOptionsFromEnv(env: NodeJS.ProcessEnv, logger: ExecutorLogger = stderrLogger): ExecutorOptions {
  const required = (name: string): string => {
    const v = env[name]?.trim();
    if (!v) throw new Error(`${name} is required`);
    return v;
  };
  const int = (name: string): number | undefined => {
    const raw = env[name]?.trim();
    if (!raw) return undefined;
    const v = Number(raw);
    if (!Number.isInteger(v) || v < 0) throw new Error(`${name} must be a non-negative integer (got "${raw}")`);
    return v;
  };
  const retryBase = int('BATON_EXECUTOR_RETRY_BASE_MS');
  const retryMax = int('BATON_EXECUTOR_RETRY_MAX_MS');
  return {
    tenantId: required('BATON_TENANT'),
    secret: required('BATON_EXECUTOR_SECRET'),
    engineUrls: required('BATON_ENGINE_URLS')
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean),
    app: env.BATON_EXECUTOR_APP?.trim() || 'demo',
    host: env.BATON_EXECUTOR_HOST?.trim() || '127.0.0.1',
    port: int('BATON_EXECUTOR_PORT') ?? 0,
    publicUrl: env.BATON_EXECUTOR_PUBLIC_URL?.trim() || undefined,
    concurrency: int('BATON_EXECUTOR_CONCURRENCY'),
    callbackConcurrency: int('BATON_EXECUTOR_CALLBACK_CONCURRENCY'),
    queueLimit: int('BATON_EXECUTOR_QUEUE_LIMIT'),
    spoolFile: env.BATON_EXECUTOR_SPOOL?.trim() || undefined,
    heartbeatIntervalMs: int('BATON_EXECUTOR_HEARTBEAT_MS'),
    shutdownGraceMs: int('BATON_EXECUTOR_SHUTDOWN_GRACE_MS'),
    callbackRetry: retryBase !== undefined || retryMax !== undefined ? { baseMs: retryBase, maxMs: retryMax } : undefined,
    handlers: buildDemoHandlers({ recordFile: env.BATON_DEMO_RECORD_FILE?.trim() || undefined }),
    logger,
    brokerUrl: env.BATON_BROKER_URL?.trim() || undefined,
    alarmTopicPrefix: env.BATON_ALARM_TOPIC_PREFIX?.trim() || undefined,
  };
}

/** Everything to stderr: stdout carries only the `READY <url>` line. */
export const stderrLogger: ExecutorLogger = {
  info: (m) => console.error(m),
  warn: (m) => console.error(m),
  error: (m) => console.error(m),
};
