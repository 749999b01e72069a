/**
 * Truncation to what the columns hold. MySQL's TEXT holds 65 535 BYTES and a VARCHAR(n) n
 * characters; SQLite holds anything, but both databases must store the same thing.
 */

/** The longest prefix of `text` whose UTF-8 encoding fits `maxBytes`, marked when cut. */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const marker = '… [truncated]';
  const budget = maxBytes - Buffer.byteLength(marker, 'utf8');
  // Cut the encoded bytes, then drop a partial trailing character (decoded as U+FFFD).
  let cut = Buffer.from(text, 'utf8').subarray(0, Math.max(0, budget)).toString('utf8');
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  return cut + marker;
}

/** At most `maxChars` characters (code points), marked when cut. */
export function truncateChars(text: string, maxChars: number): string {
  const chars = Array.from(text);
  if (chars.length <= maxChars) return text;
  return chars.slice(0, Math.max(0, maxChars - 1)).join('') + '…';
}

/** Room for `error` and each log line: under TEXT's 65 535 bytes, with margin. */
export const MAX_TEXT_BYTES = 60_000;
