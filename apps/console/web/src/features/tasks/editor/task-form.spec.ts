import { describe, expect, it } from 'vitest';
import type { Task } from '../../../shared/model';
import { bodyOf, emptyForm, formOf } from './task-form';

describe('the task form with an EVENT trigger', () => {
  it('sends the event name, the filter and the projection (empty: the whole payload)', () => {
    const form = { ...emptyForm(), kind: 'EVENT' as const, eventName: 'order.paid', eventFilter: '{"customer.tier": "gold"}', eventParams: '' };
    expect(bodyOf(form)).toMatchObject({ local: {}, body: { trigger: { kind: 'EVENT', event: 'order.paid', filter: { 'customer.tier': 'gold' }, params: null } } });
    expect(bodyOf({ ...form, eventParams: '{"orderId": "order.id"}' }).body.trigger).toEqual({ kind: 'EVENT', event: 'order.paid', filter: { 'customer.tier': 'gold' }, params: { orderId: 'order.id' } });
  });

  it('names a filter or projection that is not JSON beside its field', () => {
    const { local } = bodyOf({ ...emptyForm(), kind: 'EVENT', eventName: 'e', eventFilter: '{', eventParams: 'nope' });
    expect(Object.keys(local).sort()).toEqual(['trigger.filter', 'trigger.params']);
  });

  it('reads a saved EVENT trigger back into the form', () => {
    const task = { ...bodyOf(emptyForm()).body, id: 1, trigger: { kind: 'EVENT', event: 'order.paid', filter: { a: 1 }, params: { p: 'a' } } } as unknown as Task;
    expect(formOf(task)).toMatchObject({ kind: 'EVENT', eventName: 'order.paid', eventFilter: JSON.stringify({ a: 1 }, null, 2), eventParams: JSON.stringify({ p: 'a' }, null, 2) });
  });
});

describe('the task form of an imported task', () => {
  it('keeps importedFrom through an edit (a save replaces the whole task); a new task has none', () => {
    const task = { ...bodyOf(emptyForm()).body, id: 1, importedFrom: 'xxl-job:xxl_job/xxl_job_ job 7' } as unknown as Task;
    expect(bodyOf({ ...formOf(task), handler: 'other' }).body).toMatchObject({ handler: 'other', importedFrom: 'xxl-job:xxl_job/xxl_job_ job 7' });
    expect(bodyOf(emptyForm()).body.importedFrom).toBeNull();
  });
});

describe('the task form with bounds per key', () => {
  it('sends no bound for an empty key, and each bound with its numbers when a key is given', () => {
    expect(bodyOf(emptyForm()).body).toMatchObject({ concurrency: null, rateLimit: null });
    const form = { ...emptyForm(), concurrencyKey: ' customerId ', concurrencyLimit: '2', concurrencyOnLimit: 'CANCEL_OLDEST', rateKey: 'account', ratePerSecond: '0.5', rateBurst: '3' };
    expect(bodyOf(form).body).toMatchObject({ concurrency: { key: 'customerId', limit: 2, onLimit: 'CANCEL_OLDEST' }, rateLimit: { key: 'account', perSecond: 0.5, burst: 3 } });
    // A key group is sent when given, left out when empty (the task's own keys).
    expect(bodyOf(form).body.concurrency).not.toHaveProperty('group');
    expect(bodyOf({ ...form, concurrencyGroup: ' customer-sync ', rateGroup: 'crm-api' }).body).toMatchObject({ concurrency: { group: 'customer-sync' }, rateLimit: { group: 'crm-api' } });
    // A wrong number reaches the API as typed, which names the field.
    expect((bodyOf({ ...form, concurrencyLimit: 'two' }).body.concurrency as { limit: unknown }).limit).toBe('two');
  });

  it('reads saved bounds back into the form, and a task without them as empty keys', () => {
    const task = { ...bodyOf(emptyForm()).body, id: 1, concurrency: { key: 'c', limit: 3, onLimit: 'CANCEL_NEW' }, rateLimit: { key: 'r', perSecond: 2, burst: 4 } } as unknown as Task;
    expect(formOf(task)).toMatchObject({ concurrencyKey: 'c', concurrencyLimit: '3', concurrencyOnLimit: 'CANCEL_NEW', rateKey: 'r', ratePerSecond: '2', rateBurst: '4' });
    expect(formOf({ ...task, concurrency: null, rateLimit: null } as Task)).toMatchObject({ concurrencyKey: '', rateKey: '', concurrencyOnLimit: 'QUEUE' });
    expect(formOf({ ...task, concurrency: { key: 'c', limit: 1, onLimit: 'QUEUE', group: 'customer-sync' }, rateLimit: { key: 'r', perSecond: 1, burst: 1, group: 'crm-api' } } as Task)).toMatchObject({
      concurrencyGroup: 'customer-sync',
      rateGroup: 'crm-api',
    });
    expect(formOf(task)).toMatchObject({ concurrencyGroup: '', rateGroup: '' });
  });
});

describe('the task form with debounce and throttle per key', () => {
  it('sends none for an empty key, each with its numbers when a key is given, and leaves maxWaitMs to its default when empty', () => {
    expect(bodyOf(emptyForm()).body).toMatchObject({ debounce: null, throttle: null });
    const debounced = { ...emptyForm(), debounceKey: ' customerId ', debounceQuietMs: '2000' };
    expect(bodyOf(debounced).body.debounce).toEqual({ key: 'customerId', quietMs: 2000 });
    expect(bodyOf({ ...debounced, debounceMaxWaitMs: '9000' }).body.debounce).toEqual({ key: 'customerId', quietMs: 2000, maxWaitMs: 9000 });
    const throttled = { ...emptyForm(), throttleKey: 'account', throttleLimit: '3', throttlePeriodMs: '1000', throttleKeep: 'FIRST' };
    expect(bodyOf(throttled).body.throttle).toEqual({ key: 'account', limit: 3, periodMs: 1000, keep: 'FIRST' });
  });

  it('reads saved ones back into the form, and a task without them as empty keys', () => {
    const task = { ...bodyOf(emptyForm()).body, id: 1, debounce: { key: 'd', quietMs: 100, maxWaitMs: 1000 }, throttle: { key: 't', limit: 2, periodMs: 500, keep: 'FIRST' } } as unknown as Task;
    expect(formOf(task)).toMatchObject({ debounceKey: 'd', debounceQuietMs: '100', debounceMaxWaitMs: '1000', throttleKey: 't', throttleLimit: '2', throttlePeriodMs: '500', throttleKeep: 'FIRST' });
    expect(formOf({ ...task, debounce: null, throttle: null } as Task)).toMatchObject({ debounceKey: '', debounceMaxWaitMs: '', throttleKey: '', throttleKeep: 'LAST' });
  });
});

describe('the task form with what a run not started by its start deadline becomes', () => {
  it('sends ALARM for a new task, GIVE_UP when chosen, and reads a saved one back', () => {
    expect(bodyOf(emptyForm()).body).toMatchObject({ startDeadlineMs: 10_000, onStartLate: 'ALARM' });
    expect(bodyOf({ ...emptyForm(), onStartLate: 'GIVE_UP' }).body).toMatchObject({ onStartLate: 'GIVE_UP' });
    const task = { ...bodyOf(emptyForm()).body, id: 1, onStartLate: 'GIVE_UP' } as unknown as Task;
    expect(formOf(task)).toMatchObject({ onStartLate: 'GIVE_UP' });
  });
});
