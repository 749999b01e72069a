import { CST } from 'yaml';

/**
 * Hands the YAML library each one-line double-quoted scalar of `tokens` (a file's CST) as the
 * single-quoted scalar of the same value, which it reads in one pass. Why: the library builds a
 * double-quoted value a character at a time (`res += ch`), which V8 keeps as a rope of one node
 * per character, some 30 bytes each, until the value is read whole — a file of 3.85 MB of JSON
 * written into YAML (params as `{"key": "…"}`) took more than the worker's 128 MB to compose, where
 * the same file in plain scalars takes 20 MB. Only a value the library would read the same in both
 * quotes is handed over: one line, no line break in it, and escapes that JSON reads as YAML does;
 * the others (a folded line, `\n`, YAML's own escapes, an unclosed quote) are left to it. The
 * token's offset is kept, so every place a later error names is where it is in the file.
 */
export function quoteInOnePass(tokens: readonly CST.Token[]): void {
  for (const token of tokens) {
    if (token.type !== 'document') continue;
    CST.visit(token, (item) => {
      singleQuoted(item.key);
      singleQuoted(item.value);
    });
  }
}

function singleQuoted(token: CST.Token | null | undefined): void {
  if (token?.type !== 'double-quoted-scalar') return;
  const value = oneLineValue(token.source);
  if (value === null) return;
  token.type = 'single-quoted-scalar';
  token.source = `'${value.replaceAll("'", "''")}'`;
}

/** The value of a one-line double-quoted scalar's source (quotes included), or null: one to leave to the library. */
function oneLineValue(source: string): string | null {
  if (source.length < 2 || !source.endsWith('"') || /[\n\r]/.test(source)) return null;
  if (!source.includes('\\')) return source.slice(1, -1);
  let value: unknown;
  try {
    // JSON's escapes (\" \\ \/ \b \f \n \r \t \uXXXX) mean in YAML what they mean in JSON; one it lacks fails here.
    value = JSON.parse(source);
  } catch {
    return null;
  }
  // A line break in a single-quoted value would be folded; another control character (\b, \f, \u0000…) is not printable there.
  return typeof value === 'string' && !hasControlBesidesTab(value) ? value : null;
}

function hasControlBesidesTab(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c === 0x7f) return true;
  }
  return false;
}
