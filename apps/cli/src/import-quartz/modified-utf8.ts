import { JavaStreamError } from './java-stream-error';

/** Code units turned into a string this many at a time (String.fromCharCode takes them as arguments). */
const CHUNK = 8192;

/**
 * Java's modified UTF-8, as DataOutputStream.writeUTF writes it (a serialization stream's strings,
 * class and field names): UTF-8 but for two things. NUL is two bytes, C0 80; and a character
 * beyond U+FFFF is its two UTF-16 surrogates, three bytes each (CESU-8), never UTF-8's four bytes.
 * Read as UTF-8, both became U+FFFD (`deploy 🚀 done` read as `deploy ������ done`). Each 1-, 2-
 * or 3-byte form is one UTF-16 code unit, which is what a JavaScript string holds, so a pair of
 * surrogates decodes to the character they make. Bytes that are no such form are a
 * JavaStreamError naming where, as DataInputStream.readUTF's UTFDataFormatException does.
 */
export function decodeModifiedUtf8(bytes: Buffer, start: number, end: number): string {
  let ascii = true;
  for (let i = start; i < end && ascii; i++) ascii = bytes[i] < 0x80;
  if (ascii) return bytes.toString('latin1', start, end);
  const units: number[] = [];
  let text = '';
  for (let i = start; i < end; ) {
    const a = bytes[i];
    if (a < 0x80) {
      units.push(a);
      i += 1;
    } else if ((a & 0xe0) === 0xc0) {
      units.push(((a & 0x1f) << 6) | (continuation(bytes, i, 1, end) & 0x3f));
      i += 2;
    } else if ((a & 0xf0) === 0xe0) {
      units.push(((a & 0x0f) << 12) | ((continuation(bytes, i, 1, end) & 0x3f) << 6) | (continuation(bytes, i, 2, end) & 0x3f));
      i += 3;
    } else {
      throw new JavaStreamError(`malformed modified UTF-8: byte 0x${a.toString(16)} at byte ${i}`);
    }
    if (units.length === CHUNK) text += String.fromCharCode(...units.splice(0));
  }
  return text + String.fromCharCode(...units);
}

/** The `n`th byte after the lead byte at `at`, which must be a continuation byte (10xxxxxx) inside the string. */
function continuation(bytes: Buffer, at: number, n: number, end: number): number {
  const b = at + n < end ? bytes[at + n] : -1;
  if ((b & 0xc0) !== 0x80) throw new JavaStreamError(`malformed modified UTF-8: ${b < 0 ? 'the string ends inside the character' : `byte 0x${b.toString(16)}`} at byte ${at + n}`);
  return b;
}
