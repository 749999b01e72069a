import { describe, expect, it } from 'vitest';
import { utf8ByteLength } from './json-params';

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
