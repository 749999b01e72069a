import { describe, expect, it } from 'vitest';
import { isSecretName, redact, redactChange, REDACTED, shownTextContains } from './redact';

describe('isSecretName', () => {
  it.each(['password', 'dbPassword', 'secret', 'clientSecret', 'previousSecret', 'token', 'apiToken', 'keyHash', 'passwordHash', 'key', 'KEY', 'apiKey', 'x-apikey', 'authorization', 'Authorization', 'cookie', 'Set-Cookie', 'credentials', 'awsCredential'])('%s is secret', (name) => {
    expect(isSecretName(name)).toBe(true);
  });

  it.each(['name', 'region', 'keyId', 'keys', 'monkey', 'hashing', 'author', 'url', 'tenantId', 'runId', ''])('%s is not', (name) => {
    expect(isSecretName(name)).toBe(false);
  });
});

describe('redact', () => {
  it('hides every secret field at any depth and keeps the rest', () => {
    expect(
      redact({ name: 'k', keyHash: 'abc', nested: [{ password: 'p', secret: 's', previousSecret: null, ok: 1 }], headers: { Authorization: 'Bearer x' }, key: 'bk_1' }),
    ).toEqual({ name: 'k', keyHash: REDACTED, nested: [{ password: REDACTED, secret: REDACTED, previousSecret: null, ok: 1 }], headers: { Authorization: REDACTED }, key: REDACTED });
  });

  it('keeps a field named __proto__ as a field (params parsed from JSON may have one), and the copy a plain object', () => {
    const params = JSON.parse('{"__proto__": {"polluted": 1}, "constructor": 1, "password": "p"}') as Record<string, unknown>;
    const shown = redact(params) as Record<string, unknown>;
    expect(JSON.stringify(shown)).toBe('{"__proto__":{"polluted":1},"constructor":1,"password":"[redacted]"}');
    expect(Object.getPrototypeOf(shown)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('hides a secret-named object or list whole', () => {
    expect(redact({ credentials: { user: 'u', pass: 'p' }, tokens: ['a', 'b'] })).toEqual({ credentials: REDACTED, tokens: REDACTED });
  });

  it('leaves absent fields out and keeps scalars, lists and non-record objects as they are', () => {
    const at = new Date(0);
    const err = new Error('boom');
    const bytes = Buffer.from('x');
    expect(redact({ gone: undefined, at, err, bytes })).toEqual({ at, err, bytes });
    expect((redact({ at }) as { at: unknown }).at).toBe(at);
    expect((redact({ err }) as { err: unknown }).err).toBe(err);
    for (const scalar of [null, undefined, 0, 'token', true]) expect(redact(scalar)).toBe(scalar);
    expect(redact([{ token: 't' }, 'token'])).toEqual([{ token: REDACTED }, 'token']);
  });

  it("keeps a task's key bounds, whose `key` names a params path, and hides a `key` of any other shape", () => {
    const task = { concurrency: { key: 'customerId', limit: 1, onLimit: 'QUEUE', group: 'customer-sync' }, rateLimit: { key: 'account.id', perSecond: 2, burst: 5 }, params: { key: 'sk_live_1' } };
    expect(redact(task)).toEqual({ ...task, params: { key: REDACTED } });
    expect(redact({ concurrency: { key: 'sk_live_1', extra: 'x', limit: 1 } })).toEqual({ concurrency: { key: REDACTED, extra: 'x', limit: 1 } });
    expect(redact({ rateLimit: { key: 'sk_live_1' } })).toEqual({ rateLimit: { key: REDACTED } });
    const windows = { debounce: { key: 'customer.id', quietMs: 1000, maxWaitMs: 10_000 }, throttle: { key: 'customerId', limit: 1, periodMs: 1000, keep: 'LAST' } };
    expect(redact(windows)).toEqual(windows);
    expect(redact({ debounce: { key: 'sk_live_1', quietMs: 'x' } })).toEqual({ debounce: { key: REDACTED, quietMs: 'x' } });
  });

  it('copies: the value given is not changed', () => {
    const given = { auth: { password: 'p' } };
    redact(given);
    expect(given).toEqual({ auth: { password: 'p' } });
  });
});

describe('redactChange', () => {
  it('hides both values whole when a name on the path is a secret, keeping an absent side absent', () => {
    expect(redactChange({ field: 'params.apiToken', before: 'a', after: 'b' })).toEqual({ field: 'params.apiToken', before: REDACTED, after: REDACTED });
    expect(redactChange({ field: 'params.auth.password', before: undefined, after: 'b' })).toEqual({ field: 'params.auth.password', before: undefined, after: REDACTED });
    expect(redactChange({ field: 'credentials.user', before: 'u1', after: 'u2' })).toEqual({ field: 'credentials.user', before: REDACTED, after: REDACTED });
  });

  it('redacts the values of any other field as redact does', () => {
    expect(redactChange({ field: 'params', before: { region: 'eu', token: 't1' }, after: null })).toEqual({ field: 'params', before: { region: 'eu', token: REDACTED }, after: null });
    expect(redactChange({ field: 'trigger.expression', before: '0 0 2 * * *', after: '0 30 6 * * *' })).toEqual({ field: 'trigger.expression', before: '0 0 2 * * *', after: '0 30 6 * * *' });
  });

  it("keeps a key bound set whole (its `key` names a params path), as redact keeps it in the task", () => {
    const bound = { key: 'customerId', limit: 1, onLimit: 'QUEUE' };
    expect(redactChange({ field: 'concurrency', before: null, after: bound })).toEqual({ field: 'concurrency', before: null, after: bound });
    expect(redactChange({ field: 'params', before: undefined, after: { concurrency: bound, key: 'sk_live_1' } })).toEqual({ field: 'params', before: undefined, after: { concurrency: bound, key: REDACTED } });
    expect(redactChange({ field: 'params.__proto__', before: undefined, after: { token: 't' } }).after).toEqual({ token: REDACTED });
  });

  it("shows a key bound's `key` changed alone: it names a params path, it is no secret", () => {
    for (const bound of ['concurrency', 'rateLimit', 'debounce', 'throttle']) {
      expect(redactChange({ field: `${bound}.key`, before: 'customerId', after: 'order.region' })).toEqual({ field: `${bound}.key`, before: 'customerId', after: 'order.region' });
    }
    expect(redactChange({ field: 'concurrency.key', before: undefined, after: 'customerId' })).toEqual({ field: 'concurrency.key', before: undefined, after: 'customerId' });
  });

  it('still hides a secret-named params value, a `key` or a bound-like path under params included', () => {
    for (const field of ['params.key', 'params.concurrency.key', 'params.rateLimit.key', 'params.apiKey', 'key', 'concurrency.key.secret', 'webhook.key', 'constructor.key']) {
      expect(redactChange({ field, before: 'sk_live_1', after: 'sk_live_2' }), field).toEqual({ field, before: REDACTED, after: REDACTED });
    }
  });
});

describe('shownTextContains', () => {
  const params = { region: 'EU-west', auth: { apiToken: 'tok-123' }, list: [{ password: 'hunter2' }] };

  it('finds a text in what redact shows, case aside, keys included', () => {
    expect(shownTextContains(params, 'eu-WEST')).toBe(true);
    expect(shownTextContains(params, '"region":"EU')).toBe(true);
    expect(shownTextContains(params, 'apiToken')).toBe(true);
    expect(shownTextContains(params, REDACTED)).toBe(true);
  });

  it('does not find a text that is only inside a secret-named value', () => {
    expect(shownTextContains(params, 'tok-1')).toBe(false);
    expect(shownTextContains(params, 'hunter')).toBe(false);
  });

  it('answers for any JSON value', () => {
    expect(shownTextContains('plain', 'lai')).toBe(true);
    expect(shownTextContains(null, 'null')).toBe(true);
    expect(shownTextContains(undefined, 'x')).toBe(false);
  });
});

describe('redact — field changes inside a record (a config.apply record, as the audit log stores it)', () => {
  it('judges each change by its path: a bound added whole keeps its key, a params secret stays hidden', () => {
    const record = {
      changes: [
        {
          kind: 'task',
          name: 'sync',
          fields: [
            { field: 'rateLimit', after: { key: 'accountId', perSecond: 0.5, burst: 1 } },
            { field: 'concurrency.key', before: 'customerId', after: 'order.customerId' },
            { field: 'params', before: { apiToken: 'sk_live_1', region: 'eu' }, after: { apiToken: 'sk_live_2', region: 'us' } },
            { field: 'params.key', before: 'sk_live_3', after: 'sk_live_4' },
          ],
        },
      ],
    };
    expect(redact(record)).toEqual({
      changes: [
        {
          kind: 'task',
          name: 'sync',
          fields: [
            { field: 'rateLimit', after: { key: 'accountId', perSecond: 0.5, burst: 1 } },
            { field: 'concurrency.key', before: 'customerId', after: 'order.customerId' },
            { field: 'params', before: { apiToken: REDACTED, region: 'eu' }, after: { apiToken: REDACTED, region: 'us' } },
            { field: 'params.key', before: REDACTED, after: REDACTED },
          ],
        },
      ],
    });
  });

  it('a bound key path whose value is not a path name is hidden whole, as any path with a secret-named part', () => {
    expect(redactChange({ field: 'concurrency.key', before: undefined, after: { token: 'sk_live_5' } })).toEqual({ field: 'concurrency.key', after: REDACTED });
    expect(redact([{ field: 'concurrency.key', after: { token: 'sk_live_5' } }])).toStrictEqual([{ field: 'concurrency.key', after: REDACTED }]);
  });
});
