import { DEFAULT_ALARM_TOPIC_PREFIX } from '@baton/messaging';
import { EXECUTOR_DEFAULTS } from '../options';

/** One environment variable of an executor built on the SDK (`executorOptionsFromEnv()`). */
export interface EnvVariableSpec {
  name: string;
  type: 'string' | 'integer' | 'url' | 'url-list' | 'boolean';
  /** The value used when unset, as written in the environment. */
  default?: string;
  required?: boolean;
  description: string;
}

/**
 * The variables an executor reads (`executorOptionsFromEnv()` parses them by this table; the
 * defaults of the tuning ones are EXECUTOR_DEFAULTS, so there is one place for each). The SDK owns this table (it is an installable package and
 * depends on nothing of the repository); Baton's configuration schema (libs/config) imports it
 * for docs/CONFIGURATION.md and for its unknown-variable warnings.
 */
export const EXECUTOR_ENV: readonly EnvVariableSpec[] = [
  { name: 'BATON_TENANT', type: 'string', required: true, description: 'Tenant id the executor serves.' },
  { name: 'BATON_EXECUTOR_SECRET', type: 'string', required: true, description: "The tenant's executor secret (signs every request between engine and executor)." },
  { name: 'BATON_ENGINE_URLS', type: 'url-list', default: 'http://127.0.0.1:8080', description: 'Engine base URLs, comma-separated; the executor registers and heartbeats with each. The default is `npm start` (embedded mode serves the engine on the console port).' },
  { name: 'BATON_EXECUTOR_APP', type: 'string', default: 'default', description: 'App name: the tasks whose `executorApp` is this run here (the demo executor: `demo`).' },
  { name: 'BATON_EXECUTOR_HOST', type: 'string', default: EXECUTOR_DEFAULTS.host, description: 'Address the dispatch endpoint listens on.' },
  { name: 'BATON_EXECUTOR_PORT', type: 'integer', default: String(EXECUTOR_DEFAULTS.port), description: 'Port of the dispatch endpoint; 0: any free port.' },
  { name: 'BATON_EXECUTOR_PUBLIC_URL', type: 'url', description: 'URL engines dispatch to, when the bound address is not reachable from them. Default: the bound URL.' },
  { name: 'BATON_EXECUTOR_CONCURRENCY', type: 'integer', default: String(EXECUTOR_DEFAULTS.concurrency), description: 'Handlers running at once (the pool size).' },
  { name: 'BATON_EXECUTOR_QUEUE_LIMIT', type: 'integer', default: String(EXECUTOR_DEFAULTS.queueLimit), description: 'Accepted runs waiting for the pool; above it dispatches are refused (the engine routes elsewhere).' },
  { name: 'BATON_EXECUTOR_CALLBACK_CONCURRENCY', type: 'integer', default: String(EXECUTOR_DEFAULTS.callbackConcurrency), description: 'Callback requests (progress, logs, outcomes) in flight to the engines at once; each carries every callback ready when it leaves, up to 100.' },
  { name: 'BATON_EXECUTOR_SPOOL', type: 'string', description: 'File where callbacks wait while no engine answers (kept across restarts). Default `./.baton/spool-<app>.jsonl`.' },
  { name: 'BATON_EXECUTOR_HEARTBEAT_MS', type: 'integer', default: String(EXECUTOR_DEFAULTS.heartbeatIntervalMs), description: 'Heartbeat period (milliseconds).' },
  { name: 'BATON_EXECUTOR_SHUTDOWN_GRACE_MS', type: 'integer', default: String(EXECUTOR_DEFAULTS.shutdownGraceMs), description: 'On stop, running handlers get this long (milliseconds) to finish before they are aborted.' },
  { name: 'BATON_EXECUTOR_RETRY_BASE_MS', type: 'integer', default: String(EXECUTOR_DEFAULTS.callbackRetry.baseMs), description: 'First delay (milliseconds) of the callback retry backoff.' },
  { name: 'BATON_EXECUTOR_RETRY_MAX_MS', type: 'integer', default: String(EXECUTOR_DEFAULTS.callbackRetry.maxMs), description: 'Longest delay (milliseconds) of the callback retry backoff.' },
  { name: 'BATON_BROKER_URL', type: 'string', description: "ActiveMQ STOMP broker(s): `ctx.alarm()` publishes straight to the tenant's topic. Default none: alarms go through the engine." },
  { name: 'BATON_ALARM_TOPIC_PREFIX', type: 'string', default: DEFAULT_ALARM_TOPIC_PREFIX, description: 'Topic prefix of direct alarms (`<prefix><tenant>`).' },
];
