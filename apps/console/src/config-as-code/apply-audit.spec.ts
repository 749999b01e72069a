import { describe, expect, it } from 'vitest';
import { AUDIT_VALUE_MAX_BYTES } from '@baton/persistence';
import { applyAudit } from './apply-audit';
import type { PlannedChange } from './config-plan';

const created = (i: number): PlannedChange => ({
  kind: 'task',
  name: `task-number-${i}`,
  action: 'create',
  fields: ['alarms', 'calendarName', 'concurrency', 'executorApp', 'group', 'handler', 'name', 'params', 'retry', 'timeoutMs', 'trigger'].map((field) => ({ field, before: null, after: null })),
});

describe('applyAudit', () => {
  it('lists a small apply whole, with its counts', () => {
    const changes: PlannedChange[] = [created(1), { kind: 'task', name: 'old', action: 'delete', fields: [] }, { kind: 'dependency', name: 'a → b', action: 'update', fields: [{ field: 'condition', before: 'ON_SUCCESS', after: 'ON_FAILURE' }] }];
    expect(applyAudit(true, changes)).toEqual({
      prune: true,
      counts: { task: { create: 1, delete: 1 }, dependency: { update: 1 } },
      changes: [
        { kind: 'task', name: 'task-number-1', action: 'create', fields: ['alarms', 'calendarName', 'concurrency', 'executorApp', 'group', 'handler', 'name', 'params', 'retry', 'timeoutMs', 'trigger'] },
        { kind: 'task', name: 'old', action: 'delete', fields: [] },
        { kind: 'dependency', name: 'a → b', action: 'update', fields: ['condition'] },
      ],
    });
  });

  it('keeps a large apply within an audit value: every count, the changes that fit, how many were left out', () => {
    const audit = applyAudit(false, Array.from({ length: 5_000 }, (_, i) => created(i)));
    expect(Buffer.byteLength(JSON.stringify(audit), 'utf8')).toBeLessThanOrEqual(AUDIT_VALUE_MAX_BYTES);
    expect(audit.counts).toEqual({ task: { create: 5_000 } });
    expect(audit.changes.length).toBeGreaterThan(100);
    expect(audit.changes.length + audit.changesLeftOut!).toBe(5_000);
    expect(audit.changes[0].name).toBe('task-number-0');
  });
});
