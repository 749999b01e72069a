import { DEFAULT_ALARM_TOPIC_PREFIX } from '@baton/messaging';
import { EXECUTOR_DEFAULTS, INTEGER_OPTION_RANGES, type IntegerOption } from '../options';

/** One environment variable of an executor built on the SDK (`executorOptionsFromEnv()`). */
export interface EnvVariableSpec {
  name: string;
  type: 'string' | 'integer' | 'url' | 'url-list' | 'boolean';
  /** The option it sets, as ExecutorOptions (and ExecutorOptionsError) name it: `concurrency`, `callbackRetry.baseMs`. */
  option: string;
  /** The value used when unset, as written in the environment. */
  default?: string;
  required?: boolean;
  /** An integer's least and most: its option's (INTEGER_OPTION_RANGES). */
  min?: number;
  max?: number;
  description: string;
}

/** An integer variable: its default and range are its option's. */
function integer(name: string, option: IntegerOption, fallback: number, description: string): EnvVariableSpec {
  return { name, type: 'integer', option, default: String(fallback), ...INTEGER_OPTION_RANGES[option], description };
}

/**
 * The variables an executor reads (`executorOptionsFromEnv()` parses them by this table; the
 * defaults of the tuning ones are EXECUTOR_DEFAULTS, so there is one place for each). The SDK owns this table (it is an installable package and
 * depends on nothing of the repository); Baton's configuration schema (libs/config) imports it
 * for docs/CONFIGURATION.md and for its unknown-variable warnings.
 */
export const EXECUTOR_ENV: readonly EnvVariableSpec[] = [
  { name: 'BATON_TENANT', type: 'string', option: 'tenantId', required: true, description: 'Tenant id the executor serves.' },
  { name: 'BATON_EXECUTOR_SECRET', type: 'string', option: 'secret', required: true, description: "The tenant's executor secret (signs every request between engine and executor)." },
  { name: 'BATON_ENGINE_URLS', type: 'url-list', option: 'engineUrls', default: 'http://127.0.0.1:8080', description: 'Engine base URLs, comma-separated; the executor registers and heartbeats with each. The default is `npm start` (embedded mode serves the engine on the console port).' },
  { name: 'BATON_EXECUTOR_APP', type: 'string', option: 'app', default: 'default', description: 'App name: the tasks whose `executorApp` is this run here (the demo executor: `demo`).' },
  { name: 'BATON_EXECUTOR_HOST', type: 'string', option: 'host', default: EXECUTOR_DEFAULTS.host, description: 'Address the dispatch endpoint listens on.' },
  integer('BATON_EXECUTOR_PORT', 'port', EXECUTOR_DEFAULTS.port, 'Port of the dispatch endpoint; 0: any free port.'),
  { name: 'BATON_EXECUTOR_PUBLIC_URL', type: 'url', option: 'publicUrl', description: 'URL engines dispatch to, when the bound address is not reachable from them. Default: the bound URL.' },
  integer('BATON_EXECUTOR_CONCURRENCY', 'concurrency', EXECUTOR_DEFAULTS.concurrency, 'Handlers running at once (the pool size).'),
  integer('BATON_EXECUTOR_QUEUE_LIMIT', 'queueLimit', EXECUTOR_DEFAULTS.queueLimit, 'Accepted runs waiting for the pool; above it dispatches are refused (the engine routes elsewhere).'),
  integer('BATON_EXECUTOR_CALLBACK_CONCURRENCY', 'callbackConcurrency', EXECUTOR_DEFAULTS.callbackConcurrency, 'Callback requests (progress, logs, outcomes) in flight to the engines at once; each carries every callback ready when it leaves, up to 100.'),
  { name: 'BATON_EXECUTOR_SPOOL', type: 'string', option: 'spoolFile', description: 'File where callbacks wait while no engine answers (kept across restarts). Default `./.baton/spool-<app>.jsonl`.' },
  integer('BATON_EXECUTOR_HEARTBEAT_MS', 'heartbeatIntervalMs', EXECUTOR_DEFAULTS.heartbeatIntervalMs, 'Heartbeat period (milliseconds).'),
  integer('BATON_EXECUTOR_SHUTDOWN_GRACE_MS', 'shutdownGraceMs', EXECUTOR_DEFAULTS.shutdownGraceMs, 'On stop, running handlers get this long (milliseconds) to finish before they are aborted.'),
  integer('BATON_EXECUTOR_RETRY_BASE_MS', 'callbackRetry.baseMs', EXECUTOR_DEFAULTS.callbackRetry.baseMs, 'First delay (milliseconds) of the callback retry backoff.'),
  integer('BATON_EXECUTOR_RETRY_MAX_MS', 'callbackRetry.maxMs', EXECUTOR_DEFAULTS.callbackRetry.maxMs, 'Longest delay (milliseconds) of the callback retry backoff.'),
  { name: 'BATON_BROKER_URL', type: 'string', option: 'brokerUrl', description: "Direct alarms, for consumers of the topic that want them before the engine publishes them: `ctx.alarm()` also publishes straight to the tenant's topic (the consoles show the engine's copy). Default none, which is right for an executor: alarms go through the engine and the executor needs no access to the broker." },
  { name: 'BATON_ALARM_TOPIC_PREFIX', type: 'string', option: 'alarmTopicPrefix', default: DEFAULT_ALARM_TOPIC_PREFIX, description: 'Topic prefix of direct alarms (`<prefix><tenant>`).' },
];
