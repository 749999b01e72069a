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

/**
 * The value of a DN's first attribute, its RFC 4514 escapes undone (`Doe, John` of
 * `cn=Doe\, John,ou=people,…`; `\c3\a9` is `é`): what escapeDnValue escaped, read back.
 */
export function firstRdnValue(dn: string): string {
  const bytes: number[] = [];
  const chars = [...dn.slice(dn.indexOf('=') + 1)];
  for (let i = 0; i < chars.length; i++) {
    let c = chars[i];
    if (c === ',' || c === '+') break;
    if (c === '\\') {
      const hex = `${chars[i + 1] ?? ''}${chars[i + 2] ?? ''}`;
      if (/^[0-9a-fA-F]{2}$/.test(hex)) {
        bytes.push(parseInt(hex, 16));
        i += 2;
        continue;
      }
      c = chars[++i] ?? '';
    }
    bytes.push(...Buffer.from(c, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}
