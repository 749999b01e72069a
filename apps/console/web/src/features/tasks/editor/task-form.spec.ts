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
