import { HttpException } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { canonicalInteger, IdPipe } from './id.pipe';

describe('canonical integers', () => {
  it('reads the one decimal spelling of each safe integer', () => {
    expect(canonicalInteger('0')).toBe(0);
    expect(canonicalInteger('42')).toBe(42);
    expect(canonicalInteger('-42')).toBe(-42);
    expect(canonicalInteger('9007199254740991')).toBe(9007199254740991);
    expect(canonicalInteger('-9007199254740991')).toBe(-9007199254740991);
  });

  it.each(['', ' 1', '1 ', '01', '-0', '+1', '1.0', '1.', '1e0', '0x1', '0b1', '0o1', '1_0', '1n', 'Infinity', 'NaN', '９', '9007199254740992', '99999999999999999999'])(
    'refuses %j',
    (text) => expect(canonicalInteger(text)).toBeNull(),
  );

  it('refuses what is not text', () => {
    expect(canonicalInteger(1)).toBeNull();
    expect(canonicalInteger(['1'])).toBeNull();
    expect(canonicalInteger(undefined)).toBeNull();
  });

  it('IdPipe: a positive canonical id, else a 400 naming the parameter', () => {
    expect(new IdPipe().transform('7')).toBe(7);
    for (const bad of ['0', '-1', '1.0', 1]) {
      try {
        new IdPipe('taskId').transform(bad);
        throw new Error(`accepted ${JSON.stringify(bad)}`);
      } catch (error) {
        expect((error as HttpException).getStatus()).toBe(400);
        expect((error as HttpException).getResponse()).toMatchObject({ errors: [{ field: 'taskId' }] });
      }
    }
  });
});
