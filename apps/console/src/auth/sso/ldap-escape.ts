/** A value inside a DN (RFC 4514): the special characters, a leading space or `#`, a trailing space, escaped. */
export function escapeDnValue(value: string): string {
  return value
    .replace(/[\\,+"<>;=\0]/g, (c) => (c === '\0' ? '\\00' : `\\${c}`))
    .replace(/^([ #])/, '\\$1')
    .replace(/ $/, '\\ ');
}

/** A value inside a search filter (RFC 4515): `*`, `(`, `)`, `\` and NUL as hex escapes. */
export function escapeFilterValue(value: string): string {
  return value.replace(/[*()\\\0]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
