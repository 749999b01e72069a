import { describe, expect, it } from 'vitest';
import { validateTask } from '../task/validate-task';
import { withTaskDefaults } from '../task/task-defaults';
import { eventMatches, eventRunParams } from './event-match';
import { jsonPathProblem, readJsonPath } from './json-path';
import { eventNameProblem, eventTriggerProblems } from './validate-event';

const payload = { customer: { id: 'c-1', tier: 'gold', vip: null }, order: { id: 42, lines: [{ sku: 'A' }, { sku: 'B' }] }, flag: false };

describe('readJsonPath', () => {
  it('walks keys and array indexes', () => {
    expect(readJsonPath(payload, 'customer.tier')).toEqual({ found: true, value: 'gold' });
    expect(readJsonPath(payload, 'order.lines.1.sku')).toEqual({ found: true, value: 'B' });
    expect(readJsonPath(payload, 'customer.vip')).toEqual({ found: true, value: null });
  });

  it('finds nothing past a missing key, an index out of range, a scalar or a non-index on an array', () => {
    for (const path of ['customer.name', 'order.lines.2.sku', 'customer.tier.x', 'order.lines.first', 'toString', 'customer.__proto__']) expect(readJsonPath(payload, path)).toEqual({ found: false });
  });
});

describe('jsonPathProblem', () => {
  it('takes dotted keys and refuses empty segments, spaces and overlong paths', () => {
    expect(jsonPathProblem('a.b_c.0.$d-e')).toBeNull();
    for (const bad of ['', 'a..b', '.a', 'a.', 'a b', 'a[0]', 'x'.repeat(201), 7]) expect(jsonPathProblem(bad)).not.toBeNull();
  });
});

describe('eventMatches', () => {
  it('passes every payload with an empty filter', () => {
    expect(eventMatches(payload, {})).toBe(true);
    expect(eventMatches({}, {})).toBe(true);
  });

  it('tests equality of scalars as JSON (no coercion) and presence', () => {
    expect(eventMatches(payload, { 'customer.tier': 'gold', 'order.id': 42, flag: false })).toBe(true);
    expect(eventMatches(payload, { 'order.id': '42' })).toBe(false);
    expect(eventMatches(payload, { flag: null })).toBe(false);
    expect(eventMatches(payload, { 'customer.vip': null })).toBe(true);
    expect(eventMatches(payload, { 'customer.missing': null })).toBe(false);
    expect(eventMatches(payload, { 'customer.vip': { exists: true }, 'customer.name': { exists: false } })).toBe(true);
    expect(eventMatches(payload, { 'customer.tier': { exists: false } })).toBe(false);
  });

  it('needs every entry to hold', () => {
    expect(eventMatches(payload, { 'customer.tier': 'gold', 'order.id': { exists: false } })).toBe(false);
  });
});

describe('eventRunParams', () => {
  it('is the whole payload without a projection', () => {
    expect(eventRunParams(payload, null)).toBe(payload);
  });

  it('projects each param from its path and leaves out what the payload lacks', () => {
    expect(eventRunParams(payload, { customerId: 'customer.id', firstSku: 'order.lines.0.sku', vip: 'customer.vip', coupon: 'order.coupon', lines: 'order.lines' })).toEqual({
      customerId: 'c-1',
      firstSku: 'A',
      vip: null,
      lines: [{ sku: 'A' }, { sku: 'B' }],
    });
  });
});

describe('event validation', () => {
  it('takes names of letters, digits and . _ - : up to 100 characters', () => {
    for (const good of ['order.paid', 'customer:updated', 'a', 'x'.repeat(100), 'v2_item-sent']) expect(eventNameProblem(good)).toBeNull();
    for (const bad of ['', '.hidden', 'has space', 'x'.repeat(101), 'ü', 3, null]) expect(eventNameProblem(bad)).not.toBeNull();
  });

  it('names every problem of an EVENT trigger', () => {
    expect(eventTriggerProblems({ kind: 'EVENT', event: 'order.paid', filter: { 'a.b': 'x', c: { exists: true }, d: null }, params: { p: 'a.b' } })).toEqual([]);
    expect(eventTriggerProblems({ kind: 'EVENT', event: 'order.paid', filter: { a: { exists: 'yes' }, b: [1], c: { x: 1 } }, params: {} }).map((e) => e.field)).toEqual(['trigger.filter.a', 'trigger.filter.b', 'trigger.filter.c', 'trigger.params']);
    expect(eventTriggerProblems({ kind: 'EVENT', filter: [], params: { p: 'a..b' } }).map((e) => e.field)).toEqual(['trigger.event', 'trigger.filter', 'trigger.params.p']);
    for (const param of ['', 'p'.repeat(101)]) {
      expect(eventTriggerProblems({ kind: 'EVENT', event: 'e', params: { [param]: 'a' } })).toEqual([{ field: 'trigger.params', reason: 'each param name must be 1 to 100 characters' }]);
    }
    expect(eventTriggerProblems({ kind: 'EVENT', event: 'e', params: { ['p'.repeat(100)]: 'a' } })).toEqual([]);
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i]));
    expect(eventTriggerProblems({ kind: 'EVENT', event: 'e', filter: many }).map((e) => e.reason)).toEqual(['must have at most 20 entries']);
  });

  it('is part of validateTask, which refuses other trigger fields on an EVENT trigger', () => {
    const task = { name: 't', executorApp: 'app', handler: 'h' };
    expect(validateTask({ ...task, trigger: { kind: 'EVENT', event: 'order.paid' } })).toEqual([]);
    expect(validateTask({ ...task, trigger: { kind: 'EVENT', event: 'order.paid', at: 5 } })).toEqual([{ field: 'trigger.at', reason: 'is not a field of a EVENT trigger' }]);
  });

  it('gets its defaults: an empty filter and the whole payload', () => {
    expect(withTaskDefaults({ name: 't', executorApp: 'a', handler: 'h', trigger: { kind: 'EVENT', event: 'e' } }, 'acme').trigger).toEqual({ kind: 'EVENT', event: 'e', filter: {}, params: null });
  });
});
