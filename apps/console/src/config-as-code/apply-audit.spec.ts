import { describe, expect, it } from 'vitest';
import { REDACTED } from '@baton/domain';
import { AUDIT_VALUE_MAX_BYTES } from '@baton/persistence';
import type { FileTask } from '../tasks/file-task';
import { applyAudit } from './apply-audit';
import type { ConfigFile } from './config-file';
import type { PlannedChange } from './config-plan';

const FIELDS = ['alarms', 'calendarName', 'concurrency', 'executorApp', 'group', 'handler', 'name', 'params', 'retry', 'timeoutMs', 'trigger'];

const created = (i: number): PlannedChange => ({ kind: 'task', name: `task-number-${i}`, action: 'create', fields: FIELDS.map((field) => ({ field, before: undefined, after: field === 'name' ? `task-number-${i}` : null })) });

/** The tenant as it was before the apply: what its deletions deleted. */
const current: ConfigFile = {
  version: 1,
  retention: null,
  calendars: [{ name: 'holidays', timeZone: 'UTC', dates: ['2026-12-25'] }],
  webhooks: [{ name: 'ops', url: 'https://hooks.example.com/baton', alarmTypes: null, minSeverity: 'CRITICAL' }],
  tasks: [{ name: 'old', executorApp: 'billing', handler: 'close', params: { region: 'eu', dbPassword: 'hunter2' }, concurrency: { key: 'customerId', limit: 1, onLimit: 'QUEUE' } } as unknown as FileTask],
  dependencies: [{ parent: 'old', child: 'mail', condition: 'ON_SUCCESS', approval: null }],
};

const deleted = (kind: PlannedChange['kind'], name: string): PlannedChange => ({ kind, name, action: 'delete', fields: [] });

describe('applyAudit', () => {
  it("lists a small apply whole, with its counts and each field's values before and after", () => {
    const changes: PlannedChange[] = [
      { kind: 'task', name: 'new', action: 'create', fields: [{ field: 'name', before: undefined, after: 'new' }, { field: 'params', before: undefined, after: { region: 'us', apiToken: 'tok-1' } }] },
      { kind: 'task', name: 'nightly', action: 'update', fields: [{ field: 'params.region', before: 'eu', after: 'us' }, { field: 'timeoutMs', before: 1_000, after: 2_000 }] },
      { kind: 'dependency', name: 'a → b', action: 'update', fields: [{ field: 'condition', before: 'ON_SUCCESS', after: 'ON_FAILURE' }] },
    ];
    expect(applyAudit(false, changes, current)).toEqual({
      prune: false,
      counts: { task: { create: 1, update: 1 }, dependency: { update: 1 } },
      changes: [
        { kind: 'task', name: 'new', action: 'create', fields: [{ field: 'name', after: 'new' }, { field: 'params', after: { region: 'us', apiToken: REDACTED } }] },
        { kind: 'task', name: 'nightly', action: 'update', fields: [{ field: 'params.region', before: 'eu', after: 'us' }, { field: 'timeoutMs', before: 1_000, after: 2_000 }] },
        { kind: 'dependency', name: 'a → b', action: 'update', fields: [{ field: 'condition', before: 'ON_SUCCESS', after: 'ON_FAILURE' }] },
      ],
    });
  });

  it('redacts a value by its path: a secret-named field on the way hides both sides whole, an absent side stays absent', () => {
    const changes: PlannedChange[] = [
      {
        kind: 'task',
        name: 'nightly',
        action: 'update',
        fields: [
          { field: 'params.dbPassword', before: 'hunter2', after: 'hunter3' },
          { field: 'params.credentials.user', before: undefined, after: 'svc' },
          { field: 'params.auth', before: { user: 'u', secret: 's1' }, after: null },
        ],
      },
    ];
    const [change] = applyAudit(false, changes, current).changes;
    expect(change).toEqual({
      kind: 'task',
      name: 'nightly',
      action: 'update',
      fields: [
        { field: 'params.dbPassword', before: REDACTED, after: REDACTED },
        { field: 'params.credentials.user', after: REDACTED },
        { field: 'params.auth', before: { user: 'u', secret: REDACTED }, after: null },
      ],
    });
    expect(JSON.stringify(change)).not.toMatch(/hunter|s1|svc/);
  });

  it("shows a key bound's `key` changed alone (it names a params path), and still hides a params value named key", () => {
    const changes: PlannedChange[] = [
      {
        kind: 'task',
        name: 'nightly',
        action: 'update',
        fields: [
          { field: 'concurrency.key', before: 'customerId', after: 'order.customerId' },
          { field: 'rateLimit.key', before: 'region', after: 'order.region' },
          { field: 'debounce.key', before: undefined, after: 'accountId' },
          { field: 'throttle.key', before: 'a', after: 'b' },
          { field: 'params.key', before: 'sk_live_1', after: 'sk_live_2' },
          { field: 'params.concurrency.key', before: 'sk_live_3', after: 'sk_live_4' },
        ],
      },
    ];
    const [change] = applyAudit(false, changes, current).changes;
    expect(change).toEqual({
      kind: 'task',
      name: 'nightly',
      action: 'update',
      fields: [
        { field: 'concurrency.key', before: 'customerId', after: 'order.customerId' },
        { field: 'rateLimit.key', before: 'region', after: 'order.region' },
        { field: 'debounce.key', after: 'accountId' },
        { field: 'throttle.key', before: 'a', after: 'b' },
        { field: 'params.key', before: REDACTED, after: REDACTED },
        { field: 'params.concurrency.key', before: REDACTED, after: REDACTED },
      ],
    });
    expect(JSON.stringify(change)).not.toMatch(/sk_live/);
  });

  it('keeps what a prune deleted as it was, redacted as a DELETE records it', () => {
    const changes = [deleted('calendar', 'holidays'), deleted('webhook', 'ops'), deleted('task', 'old'), deleted('dependency', 'old → mail')];
    const audit = applyAudit(true, changes, current);
    expect(audit.counts).toEqual({ calendar: { delete: 1 }, webhook: { delete: 1 }, task: { delete: 1 }, dependency: { delete: 1 } });
    expect(audit.changes).toEqual([
      { kind: 'calendar', name: 'holidays', action: 'delete', fields: [], before: current.calendars[0] },
      { kind: 'webhook', name: 'ops', action: 'delete', fields: [], before: current.webhooks[0] },
      // The key bound's key names a params path and is kept; the password is not shown.
      { kind: 'task', name: 'old', action: 'delete', fields: [], before: { name: 'old', executorApp: 'billing', handler: 'close', params: { region: 'eu', dbPassword: REDACTED }, concurrency: { key: 'customerId', limit: 1, onLimit: 'QUEUE' } } },
      { kind: 'dependency', name: 'old → mail', action: 'delete', fields: [], before: current.dependencies[0] },
    ]);
  });

  it('lists a change whose values are too big by its field names, keeping the values of the others', () => {
    const big = { kind: 'task', name: 'big', action: 'update', fields: [{ field: 'params.blob', before: 'a'.repeat(40_000), after: 'b'.repeat(40_000) }, { field: 'priority', before: 0, after: 1 }] } satisfies PlannedChange;
    const small = { kind: 'task', name: 'small', action: 'update', fields: [{ field: 'priority', before: 0, after: 2 }] } satisfies PlannedChange;
    const audit = applyAudit(true, [big, small, deleted('task', 'old')], current);
    expect(Buffer.byteLength(JSON.stringify(audit), 'utf8')).toBeLessThanOrEqual(AUDIT_VALUE_MAX_BYTES);
    expect(audit.changesLeftOut).toBeUndefined();
    expect(audit.changes).toEqual([
      { kind: 'task', name: 'big', action: 'update', fields: ['params.blob', 'priority'], valuesLeftOut: true },
      { kind: 'task', name: 'small', action: 'update', fields: [{ field: 'priority', before: 0, after: 2 }] },
      expect.objectContaining({ name: 'old', before: expect.objectContaining({ name: 'old' }) }),
    ]);
    // Alone, the same change is too big for the record whole: named still.
    expect(applyAudit(false, [{ ...big, fields: [{ field: 'params.blob', before: null, after: 'c'.repeat(70_000) }] }], current).changes).toEqual([{ kind: 'task', name: 'big', action: 'update', fields: ['params.blob'], valuesLeftOut: true }]);
  });

  it('keeps a large apply within an audit value: every count, the changes that fit by name, how many were left out', () => {
    const audit = applyAudit(false, Array.from({ length: 5_000 }, (_, i) => created(i)), current);
    expect(Buffer.byteLength(JSON.stringify(audit), 'utf8')).toBeLessThanOrEqual(AUDIT_VALUE_MAX_BYTES);
    expect(audit.counts).toEqual({ task: { create: 5_000 } });
    expect(audit.changes.length).toBeGreaterThan(100);
    expect(audit.changes.length + audit.changesLeftOut!).toBe(5_000);
    expect(audit.changes[0]).toEqual({ kind: 'task', name: 'task-number-0', action: 'create', fields: FIELDS, valuesLeftOut: true });
  });

  it('gives the values of a mid-sized apply to every change that fits them', () => {
    const audit = applyAudit(false, Array.from({ length: 100 }, (_, i) => created(i)), current);
    expect(audit.changesLeftOut).toBeUndefined();
    expect(audit.changes.every((c) => !('valuesLeftOut' in c))).toBe(true);
    expect(audit.changes[99]).toMatchObject({ name: 'task-number-99', fields: expect.arrayContaining([{ field: 'name', after: 'task-number-99' }, { field: 'timeoutMs', after: null }]) });
  });
});
