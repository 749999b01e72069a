import { HttpException } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './cursor';

describe('keyset cursor', () => {
  it('round-trips (time, id)', () => {
    const cursor = encodeCursor(1_772_323_200_000, 42);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual({ time: 1_772_323_200_000, id: 42 });
  });

  it.each(['', 'nope', Buffer.from('[1]').toString('base64url'), Buffer.from('["a",1]').toString('base64url'), Buffer.from('{"time":1}').toString('base64url')])(
    'refuses %j with a 400 naming the field',
    (bad) => {
      try {
        decodeCursor(bad);
        throw new Error('accepted');
      } catch (error) {
        expect((error as HttpException).getStatus()).toBe(400);
        expect((error as HttpException).getResponse()).toMatchObject({ errors: [{ field: 'cursor' }] });
      }
    },
  );
});
