import type { ExecutorOptions } from '../options';
import { EXECUTOR_ENV, type EnvVariableSpec } from './executor-env';
import { ExecutorEnvError } from './executor-env-error';

/** What the environment gives: every option but the handlers (they are code). */
export type EnvExecutorOptions = Omit<ExecutorOptions, 'handlers'> & Partial<Pick<ExecutorOptions, 'handlers'>>;

type Value = string | number | boolean | string[] | undefined;

/**
 * An executor's options from its BATON_* variables (the table EXECUTOR_ENV: names, types,
 * defaults), then `overrides` on top (what the code fixes, e.g. `{ logger }`). Throws an
 * ExecutorEnvError naming the variable and its value when one is missing or malformed.
 *
 *     runExecutor({ ...executorOptionsFromEnv(), handlers: [hello] });
 */
export function executorOptionsFromEnv(env: NodeJS.ProcessEnv = process.env, overrides: Partial<ExecutorOptions> = {}): EnvExecutorOptions {
  const v = Object.fromEntries(EXECUTOR_ENV.map((spec) => [spec.name, readVariable(spec, env[spec.name])])) as Record<string, Value>;
  const int = (name: string) => v[name] as number | undefined;
  const str = (name: string) => v[name] as string | undefined;
  const retryBase = int('BATON_EXECUTOR_RETRY_BASE_MS');
  const retryMax = int('BATON_EXECUTOR_RETRY_MAX_MS');
  const fromEnv: EnvExecutorOptions = {
    tenantId: str('BATON_TENANT') as string,
    secret: str('BATON_EXECUTOR_SECRET') as string,
    engineUrls: v.BATON_ENGINE_URLS as string[],
    app: str('BATON_EXECUTOR_APP') as string,
    host: str('BATON_EXECUTOR_HOST'),
    port: int('BATON_EXECUTOR_PORT'),
    publicUrl: str('BATON_EXECUTOR_PUBLIC_URL'),
    concurrency: int('BATON_EXECUTOR_CONCURRENCY'),
    queueLimit: int('BATON_EXECUTOR_QUEUE_LIMIT'),
    callbackConcurrency: int('BATON_EXECUTOR_CALLBACK_CONCURRENCY'),
    spoolFile: str('BATON_EXECUTOR_SPOOL'),
    heartbeatIntervalMs: int('BATON_EXECUTOR_HEARTBEAT_MS'),
    shutdownGraceMs: int('BATON_EXECUTOR_SHUTDOWN_GRACE_MS'),
    callbackRetry: { baseMs: retryBase, maxMs: retryMax },
    brokerUrl: str('BATON_BROKER_URL'),
    alarmTopicPrefix: str('BATON_ALARM_TOPIC_PREFIX'),
  };
  return { ...fromEnv, ...overrides };
}

/** One variable: its trimmed value, or its default, parsed by its type. */
function readVariable(spec: EnvVariableSpec, raw: string | undefined): Value {
  const given = raw?.trim() || undefined;
  const value = given ?? spec.default;
  if (value === undefined) {
    if (spec.required) throw new ExecutorEnvError(spec.name, undefined, `is required: ${lowerFirst(spec.description)}`);
    return undefined;
  }
  const fail = (reason: string): never => {
    throw new ExecutorEnvError(spec.name, value, reason);
  };
  switch (spec.type) {
    case 'integer': {
      const n = Number(value);
      return /^\d+$/.test(value) && Number.isSafeInteger(n) ? n : fail('must be a non-negative integer');
    }
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : fail('must be true or false');
    case 'url':
      return httpUrl(value) ? value : fail('must be an http(s) URL');
    case 'url-list': {
      const urls = value.split(',').map((u) => u.trim()).filter(Boolean);
      const bad = urls.find((u) => !httpUrl(u));
      if (bad !== undefined) fail(`"${bad}" is not an http(s) URL (a comma-separated list of engine base URLs)`);
      return urls.length > 0 ? urls : fail('must name at least one http(s) URL');
    }
    case 'string':
      return value;
  }
}

function httpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
