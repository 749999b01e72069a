import { describe, expect, it } from 'vitest';
import { findReservedKey, reservedKeyReason } from './json-reserved-keys';

describe('findReservedKey', () => {
  it('names the first reserved key with its place, at any depth and in arrays', () => {
    expect(findReservedKey(JSON.parse('{"a":{"__proto__":2,"b":1}}'))).toEqual({ key: '__proto__', path: 'a.__proto__' });
    expect(findReservedKey({ runs: [{ x: 1 }, { params: { constructor: { name: 'Object' } } }] })).toEqual({ key: 'constructor', path: 'runs[1].params.constructor' });
    expect(findReservedKey({ prototype: 1 })).toEqual({ key: 'prototype', path: 'prototype' });
    expect(findReservedKey([{ ok: true }, [{ prototype: 0 }]])).toEqual({ key: 'prototype', path: '[1][0].prototype' });
  });

  it('lets through bodies without them, values that merely say them, and non-objects', () => {
    expect(findReservedKey({ name: 'constructor', tags: ['__proto__'], nested: { Constructor: 1, proto: 2 } })).toBeNull();
    expect(findReservedKey(null)).toBeNull();
    expect(findReservedKey('__proto__')).toBeNull();
  });

  it('says why, naming the others too', () => {
    expect(reservedKeyReason('constructor')).toBe('"constructor" is not accepted as a key (nor are "__proto__" and "prototype"): it would be dropped');
  });
});
