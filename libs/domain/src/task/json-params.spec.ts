import { describe, expect, it } from 'vitest';
import { BEYOND_SAFE_INTEGERS, jsonProblem, utf8ByteLength } from './json-params';

describe('utf8ByteLength', () => {
  it.each([
    ['', 0],
    ['abc', 3],
    ['é', 2],
    ['€', 3],
    ['😀', 4], // a surrogate pair
    ['\ud83d', 3], // a lone surrogate is written as U+FFFD
    ['a\ud83dz', 5],
  ])('%j is %i bytes', (text, bytes) => {
    expect(utf8ByteLength(text)).toBe(bytes);
  });

  it('agrees with Buffer on a mixed string', () => {
    const text = 'Grüße, 世界! 😀 \u0000 \u07ff \u0800';
    expect(utf8ByteLength(text)).toBe(Buffer.byteLength(text, 'utf8'));
  });
});

describe('jsonProblem: numbers', () => {
  it('takes every number a JSON reader keeps as sent, to ±(2^53 − 1)', () => {
    for (const n of [0, -1, 1.5, 1e-300, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER]) expect(jsonProblem({ n }, 'params')).toBeNull();
  });

  it('refuses a number past it, naming its path: such a number arrives rounded (two ids would be one key)', () => {
    const sent = JSON.parse('{"customer": {"id": 12345678901234567890}}') as unknown;
    expect(jsonProblem(sent, 'params')).toEqual({ field: 'params.customer.id', reason: BEYOND_SAFE_INTEGERS });
    expect(jsonProblem([Number.MAX_SAFE_INTEGER + 1], 'params')?.field).toBe('params[0]');
    expect(jsonProblem(-1e300, 'params')?.reason).toBe(BEYOND_SAFE_INTEGERS);
  });
});
