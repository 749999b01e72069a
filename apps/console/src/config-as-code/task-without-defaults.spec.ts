import { describe, expect, it } from 'vitest';
import { withTaskDefaults, type TaskInput } from '@baton/domain';
import { stringify } from 'yaml';
import { canonical } from '../tasks/canonical-definition';
import { fileTask, type FileTask } from '../tasks/file-task';
import { taskWithoutDefaults } from './task-without-defaults';

const read = (input: Partial<FileTask>): FileTask => fileTask(canonical(withTaskDefaults(input as TaskInput, 'acme')));

describe('taskWithoutDefaults', () => {
  it('leaves out what reading fills in the same, and reads back as the task', () => {
    const task = read({ name: 'nightly', executorApp: 'billing', handler: 'close', trigger: { kind: 'CRON', expression: '0 0 2 * * *', timeZone: 'Europe/Berlin' }, timeoutMs: 60_000, retry: { maxAttempts: 3 } as FileTask['retry'] });
    const short = taskWithoutDefaults(task, 'acme');
    expect(Object.keys(short)).toEqual(['name', 'executorApp', 'handler', 'trigger', 'timeoutMs', 'retry']);
    expect(read(short)).toEqual(task);
    // The whole task was 50-odd YAML entries; what it says now is a few.
    expect(stringify(short).split('\n').length).toBeLessThan(stringify(task).split('\n').length / 3);
  });

  it('keeps onStartLate GIVE_UP, leaves out ALARM (the default), and reads back as the task either way', () => {
    const base = { name: 'export', executorApp: 'billing', handler: 'run', trigger: { kind: 'MANUAL' } } as Partial<FileTask>;
    const givesUp = read({ ...base, onStartLate: 'GIVE_UP' });
    expect(taskWithoutDefaults(givesUp, 'acme')).toMatchObject({ onStartLate: 'GIVE_UP' });
    expect(read(taskWithoutDefaults(givesUp, 'acme'))).toEqual(givesUp);
    const alarms = read({ ...base, onStartLate: 'ALARM' });
    expect(taskWithoutDefaults(alarms, 'acme')).not.toHaveProperty('onStartLate');
    expect(read(taskWithoutDefaults(alarms, 'acme'))).toEqual(alarms);
  });

  it('keeps every field of a task whose short form would read otherwise, and those of each trigger kind', () => {
    for (const trigger of [{ kind: 'MANUAL' }, { kind: 'FIXED_RATE', intervalMs: 60_000 }, { kind: 'ONCE', at: 2_000_000_000_000 }, { kind: 'EVENT', event: 'order.paid' }] as FileTask['trigger'][]) {
      const task = read({ name: 't', executorApp: 'a', handler: 'h', trigger, paused: true, params: { n: 1 } });
      expect(read(taskWithoutDefaults(task, 'acme'))).toEqual(task);
    }
  });
});
