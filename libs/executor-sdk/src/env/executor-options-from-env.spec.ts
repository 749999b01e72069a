import { describe, expect, it } from 'vitest';
import { EXECUTOR_DEFAULTS, resolveExecutorOptions } from '../options';
import { defineHandler } from '../handler';
import { EXECUTOR_ENV } from './executor-env';
import { ExecutorEnvError } from './executor-env-error';
import { executorOptionsFromEnv } from './executor-options-from-env';

describe('executorOptionsFromEnv', () => {
  const env = { BATON_TENANT: 'acme', BATON_EXECUTOR_SECRET: 's3cret' };
  const hello = defineHandler('hello', () => 'hi');

  it('needs only the tenant and its secret: the engine of `npm start`, app default, the SDK defaults', () => {
    const o = executorOptionsFromEnv(env);
    expect(o).toMatchObject({ tenantId: 'acme', secret: 's3cret', engineUrls: ['http://127.0.0.1:8080'], app: 'default', host: '127.0.0.1', port: 0, brokerUrl: undefined, spoolFile: undefined });
    const resolved = resolveExecutorOptions({ ...o, handlers: [hello] });
    expect(resolved).toMatchObject({
      concurrency: EXECUTOR_DEFAULTS.concurrency,
      queueLimit: EXECUTOR_DEFAULTS.queueLimit,
      callbackConcurrency: EXECUTOR_DEFAULTS.callbackConcurrency,
      heartbeatIntervalMs: EXECUTOR_DEFAULTS.heartbeatIntervalMs,
      shutdownGraceMs: EXECUTOR_DEFAULTS.shutdownGraceMs,
      callbackRetry: EXECUTOR_DEFAULTS.callbackRetry,
      alarmTopicPrefix: 'baton.alarms.',
      brokerUrl: null,
    });
  });

  it('reads every variable of EXECUTOR_ENV', () => {
    const full = {
      ...env,
      BATON_ENGINE_URLS: ' http://e1:1/ , https://e2 ',
      BATON_EXECUTOR_APP: 'billing',
      BATON_EXECUTOR_HOST: '0.0.0.0',
      BATON_EXECUTOR_PORT: '8123',
      BATON_EXECUTOR_PUBLIC_URL: 'http://billing.internal:8123',
      BATON_EXECUTOR_CONCURRENCY: '16',
      BATON_EXECUTOR_QUEUE_LIMIT: '7',
      BATON_EXECUTOR_CALLBACK_CONCURRENCY: '8',
      BATON_EXECUTOR_SPOOL: '/var/spool/b.jsonl',
      BATON_EXECUTOR_HEARTBEAT_MS: '500',
      BATON_EXECUTOR_SHUTDOWN_GRACE_MS: '0',
      BATON_EXECUTOR_RETRY_BASE_MS: '50',
      BATON_EXECUTOR_RETRY_MAX_MS: '900',
      BATON_BROKER_URL: 'stomp://mq:61613',
      BATON_ALARM_TOPIC_PREFIX: 'acme.alarms.',
    };
    // This test sets every variable of the table (a new one must be added here, and parsed).
    expect(Object.keys(full).sort()).toEqual(EXECUTOR_ENV.map((v) => v.name).sort());
    expect(executorOptionsFromEnv(full)).toEqual({
      tenantId: 'acme',
      secret: 's3cret',
      engineUrls: ['http://e1:1/', 'https://e2'],
      app: 'billing',
      host: '0.0.0.0',
      port: 8123,
      publicUrl: 'http://billing.internal:8123',
      concurrency: 16,
      queueLimit: 7,
      callbackConcurrency: 8,
      spoolFile: '/var/spool/b.jsonl',
      heartbeatIntervalMs: 500,
      shutdownGraceMs: 0,
      callbackRetry: { baseMs: 50, maxMs: 900 },
      brokerUrl: 'stomp://mq:61613',
      alarmTopicPrefix: 'acme.alarms.',
    });
  });

  it('lets the code override what the environment says', () => {
    expect(executorOptionsFromEnv({ ...env, BATON_EXECUTOR_APP: 'x' }, { app: 'y', concurrency: 2 })).toMatchObject({ app: 'y', concurrency: 2 });
  });

  it('names the variable and the value that is wrong', () => {
    const error = (e: Record<string, string>) => {
      try {
        executorOptionsFromEnv(e);
      } catch (err) {
        return err as ExecutorEnvError;
      }
      throw new Error('no error');
    };
    expect(error({ BATON_EXECUTOR_SECRET: 's' })).toMatchObject({ code: 'EXECUTOR_ENV_INVALID', variable: 'BATON_TENANT', value: undefined, message: 'BATON_TENANT is required: tenant id the executor serves.' });
    expect(error({ BATON_TENANT: 'acme', BATON_EXECUTOR_SECRET: '  ' }).message).toMatch(/^BATON_EXECUTOR_SECRET is required/);
    expect(error({ ...env, BATON_EXECUTOR_PORT: 'eighty' }).message).toBe('BATON_EXECUTOR_PORT="eighty": must be an integer ≥ 0 and ≤ 65535');
    expect(error({ ...env, BATON_EXECUTOR_CONCURRENCY: '-1' }).message).toBe('BATON_EXECUTOR_CONCURRENCY="-1": must be an integer ≥ 1');
    expect(error({ ...env, BATON_EXECUTOR_PUBLIC_URL: 'billing:80' }).message).toBe('BATON_EXECUTOR_PUBLIC_URL="billing:80": must be an http(s) URL');
    expect(error({ ...env, BATON_ENGINE_URLS: 'http://e1:1,ftp://e2' })).toMatchObject({ variable: 'BATON_ENGINE_URLS', message: 'BATON_ENGINE_URLS="http://e1:1,ftp://e2": "ftp://e2" is not an http(s) URL (a comma-separated list of engine base URLs)' });
    expect(error({ ...env, BATON_ENGINE_URLS: ' , ' }).message).toBe('BATON_ENGINE_URLS=",": must name at least one http(s) URL');
  });

  it("refuses at once what the options' own checks would refuse at start, naming the variable, its value and the option's rule", () => {
    const refusal = (e: Record<string, string>) => {
      try {
        executorOptionsFromEnv({ ...env, ...e });
      } catch (err) {
        expect(err).toBeInstanceOf(ExecutorEnvError);
        return (err as ExecutorEnvError).message;
      }
      return null;
    };
    // Every integer variable, just outside its option's range, and a fraction.
    expect(refusal({ BATON_EXECUTOR_CONCURRENCY: '0' })).toBe('BATON_EXECUTOR_CONCURRENCY="0": must be an integer ≥ 1');
    expect(refusal({ BATON_EXECUTOR_CONCURRENCY: '1.5' })).toBe('BATON_EXECUTOR_CONCURRENCY="1.5": must be an integer ≥ 1');
    expect(refusal({ BATON_EXECUTOR_QUEUE_LIMIT: '-1' })).toBe('BATON_EXECUTOR_QUEUE_LIMIT="-1": must be an integer ≥ 0');
    expect(refusal({ BATON_EXECUTOR_CALLBACK_CONCURRENCY: '0' })).toBe('BATON_EXECUTOR_CALLBACK_CONCURRENCY="0": must be an integer ≥ 1');
    expect(refusal({ BATON_EXECUTOR_HEARTBEAT_MS: '9' })).toBe('BATON_EXECUTOR_HEARTBEAT_MS="9": must be an integer ≥ 10');
    expect(refusal({ BATON_EXECUTOR_SHUTDOWN_GRACE_MS: '-5' })).toBe('BATON_EXECUTOR_SHUTDOWN_GRACE_MS="-5": must be an integer ≥ 0');
    expect(refusal({ BATON_EXECUTOR_RETRY_BASE_MS: '0' })).toBe('BATON_EXECUTOR_RETRY_BASE_MS="0": must be an integer ≥ 1');
    expect(refusal({ BATON_EXECUTOR_RETRY_MAX_MS: '0' })).toBe('BATON_EXECUTOR_RETRY_MAX_MS="0": must be an integer ≥ 1');
    expect(refusal({ BATON_EXECUTOR_PORT: '65536' })).toBe('BATON_EXECUTOR_PORT="65536": must be an integer ≥ 0 and ≤ 65535');
    // The ends of each range are taken (a queue limit of 0: no run waits for the pool).
    expect(refusal({ BATON_EXECUTOR_CONCURRENCY: '1', BATON_EXECUTOR_QUEUE_LIMIT: '0', BATON_EXECUTOR_HEARTBEAT_MS: '10', BATON_EXECUTOR_SHUTDOWN_GRACE_MS: '0', BATON_EXECUTOR_PORT: '65535' })).toBeNull();
    // The strings the options check.
    expect(refusal({ BATON_EXECUTOR_APP: 'billing app' })).toBe('BATON_EXECUTOR_APP="billing app": may only contain letters, digits, ".", "_" and "-"');
    expect(refusal({ BATON_ALARM_TOPIC_PREFIX: 'alarms' })).toMatch(/^BATON_ALARM_TOPIC_PREFIX="alarms": .*must be dot-separated words ending with a dot/);
    // A broker URL's password stays out of the message.
    const broker = refusal({ BATON_BROKER_URL: 'http://user:hunter2@mq:61613' });
    expect(broker).toMatch(/^BATON_BROKER_URL="http:\/\/user:\*\*\*@mq:61613": broker URL .*scheme must be stomp:\/\//);
    expect(broker).not.toContain('hunter2');
  });

  it("an override is the code's: it may replace a refused value, and a refused override is the options' own error", () => {
    expect(executorOptionsFromEnv({ ...env, BATON_EXECUTOR_CONCURRENCY: '0' }, { concurrency: 4 })).toMatchObject({ concurrency: 4 });
    expect(executorOptionsFromEnv({ ...env, BATON_EXECUTOR_RETRY_BASE_MS: '0' }, { callbackRetry: { baseMs: 100 } }).callbackRetry).toEqual({ baseMs: 100 });
    expect(() => executorOptionsFromEnv(env, { concurrency: 0 })).toThrow(expect.objectContaining({ name: 'ExecutorOptionsError', option: 'concurrency', message: 'executor options: concurrency must be an integer ≥ 1 (got 0)' }));
  });
});
