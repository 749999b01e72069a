import { describe, expect, it } from 'vitest';
import { diffFields } from './task-diff';

describe('diffFields', () => {
  it('names each changed leaf by its dotted path, arrays whole, sorted', () => {
    const before = { name: 'a', trigger: { kind: 'CRON', expression: '0 0 2 * * *', timeZone: 'UTC' }, params: { region: 'eu' }, dates: ['2026-01-01'] };
    const after = { name: 'a', trigger: { kind: 'CRON', expression: '0 0 3 * * *', timeZone: 'UTC' }, params: { region: 'us', extra: 1 }, dates: ['2026-01-01', '2026-12-25'] };
    expect(diffFields(before, after)).toEqual([
      { field: 'dates', before: ['2026-01-01'], after: ['2026-01-01', '2026-12-25'] },
      { field: 'params.extra', before: undefined, after: 1 },
      { field: 'params.region', before: 'eu', after: 'us' },
      { field: 'trigger.expression', before: '0 0 2 * * *', after: '0 0 3 * * *' },
    ]);
  });

  it('finds nothing between equal values, and a whole change when a trigger changes kind', () => {
    expect(diffFields({ a: { b: [1] } }, { a: { b: [1] } })).toEqual([]);
    expect(diffFields({ trigger: { kind: 'MANUAL' } }, { trigger: { kind: 'FIXED_RATE', intervalMs: 1000 } })).toEqual([
      { field: 'trigger.intervalMs', before: undefined, after: 1000 },
      { field: 'trigger.kind', before: 'MANUAL', after: 'FIXED_RATE' },
    ]);
  });
});
