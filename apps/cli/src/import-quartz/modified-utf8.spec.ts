import { describe, expect, it } from 'vitest';
import { JavaStreamError } from './java-stream-error';
import { decodeModifiedUtf8 } from './modified-utf8';

/** The bytes of a string as Java 17's ObjectOutputStream wrote them (fixtures/job-data-map-modified-utf8.ser). */
const decode = (hex: string) => {
  const bytes = Buffer.from(hex.replace(/ /g, ''), 'hex');
  return decodeModifiedUtf8(bytes, 0, bytes.length);
};

describe('decodeModifiedUtf8', () => {
  it('reads a character beyond U+FFFF written as two 3-byte surrogates (CESU-8)', () => {
    expect(decode('6465706c6f7920 eda0bd edba80 20646f6e65')).toBe('deploy 🚀 done');
  });

  it('reads NUL written as C0 80', () => {
    expect(decode('c080')).toBe('\u0000');
  });

  it('reads 2- and 3-byte characters as UTF-8 does, and ASCII as it is', () => {
    expect(decode('6772 c3bc c39f 20 e4bda0 e5a5bd')).toBe('grüß 你好');
    expect(decode('726567696f6e')).toBe('region');
  });

  it('a string longer than one chunk of code units reads whole', () => {
    const bytes = Buffer.concat([Buffer.alloc(20_000, 'é'), Buffer.from('eda0bdedba80', 'hex')]);
    expect(decodeModifiedUtf8(bytes, 0, bytes.length)).toBe(`${'é'.repeat(10_000)}🚀`);
  });

  it('bytes that are no modified UTF-8 form are an error naming where', () => {
    expect(() => decode('61 f09f9a80')).toThrow(new JavaStreamError('malformed modified UTF-8: byte 0xf0 at byte 1')); // UTF-8's 4-byte form: Java never writes it
    expect(() => decode('61 eda0')).toThrow(new JavaStreamError('malformed modified UTF-8: the string ends inside the character at byte 3'));
    expect(() => decode('c3 41')).toThrow(new JavaStreamError('malformed modified UTF-8: byte 0x41 at byte 1'));
  });
});
