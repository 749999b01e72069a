/**
 * The work a tasks-as-code file may cost the YAML library, counted before it runs: entries
 * (list items, mapping keys, flow items: MAX_YAML_ENTRIES, default 100,000 — a file of 1,000 tasks
 * has about 14,000, an import of 5,000 jobs about 70,000) and nesting (MAX_YAML_DEPTH, default
 * 100, counted from indentation, brackets, `- ` and keys: up to twice the true depth, so params may
 * nest 40 levels; a pair inside brackets, `[a: b]`, is not counted, so a file refused for neither
 * nests under 200). Why: the library parses about 1 MB a second and holds the whole document in
 * the worker's heap (with its syntax tree, about 1.2 KB an entry: ConfigThread's heap holds the
 * budget's), and some documents nested thousands deep abort a Node process inside it; the
 * body limit of a file (4 MB, TASKS_AS_CODE_JSON_LIMIT) alone admits one of 350,000 one-line keys.
 * The count is one pass over the text that allocates nothing, and otherwise errs on the side of
 * counting more (a `[` inside a multi-line plain scalar, a `key: value` in a block scalar's first line).
 */
export const MAX_YAML_ENTRIES = 100_000;
export const MAX_YAML_DEPTH = 100;

const SPACE = 32;
const TAB = 9;
const NEWLINE = 10;
const RETURN = 13;

/** Why the text is refused before parsing (the reason of field `file`), or null: within budget. */
export function yamlBudgetProblem(text: string, limits = { entries: MAX_YAML_ENTRIES, depth: MAX_YAML_DEPTH }): string | null {
  const tooDeep = `nests more than ${limits.depth} levels deep (counted from indentation, brackets, "- " and keys)`;
  const tooMany = `has more than ${limits.entries} entries (list items, keys and flow items counted): split it, or keep params small`;
  /** The lines the current one may be nested in: their indentation, and the depth they reached. */
  const indents: Array<{ indent: number; depth: number }> = [];
  let base = 0;
  let entries = 0;
  let flow = 0;
  let quote = 0;
  /** Inside a block scalar (`|`, `>`): the indentation of the line that opened it; -1 otherwise. */
  let blockScalar = -1;
  const blank = (c: number) => c === SPACE || c === TAB || c === NEWLINE || c === RETURN || Number.isNaN(c);
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    let i = start;
    while (text.charCodeAt(i) === SPACE) i++;
    const indent = i - start;
    const empty = i >= end || blank(text.charCodeAt(i)) || text[i] === '#';
    if (blockScalar >= 0 && (empty || indent > blockScalar)) {
      start = end + 1;
      continue;
    }
    blockScalar = -1;
    if (empty && quote === 0) {
      start = end + 1;
      continue;
    }
    if (flow === 0 && quote === 0) {
      while (indents.length > 0 && indents[indents.length - 1].indent >= indent) indents.pop();
      // One level more than the line it is nested in, for a list under a key at the key's own indentation.
      base = (indents.at(-1)?.depth ?? 0) + 1;
      indents.push({ indent, depth: base });
    }
    let depth = base + flow;
    let keyed = false;
    // Where a node may start: a quote, bracket, `- ` or block scalar indicator there means one.
    let atNode = quote === 0;
    for (; i < end; i++) {
      const c = text[i];
      if (quote !== 0) {
        if (c === '\\' && quote === 0x22) i++;
        else if (c.charCodeAt(0) === quote) quote = 0;
        continue;
      }
      const next = text.charCodeAt(i + 1);
      if (c === ' ' || c === '\t') continue;
      if (c === '#' && blank(text.charCodeAt(i - 1))) break;
      if (atNode && (c === '&' || c === '!')) {
        // An anchor or a tag: the node it names starts after it.
        while (i + 1 < end && !blank(text.charCodeAt(i + 1))) i++;
      } else if (atNode && (c === '"' || c === "'")) {
        quote = c.charCodeAt(0);
        atNode = false;
      } else if (atNode && (c === '-' || c === '?') && blank(next) && flow === 0) {
        entries++;
        depth++;
      } else if (atNode && (c === '|' || c === '>') && flow === 0) {
        blockScalar = indent;
        break;
      } else if ((atNode || flow > 0) && (c === '[' || c === '{')) {
        flow++;
        depth++;
        entries++;
        atNode = true;
      } else if (flow > 0 && (c === ']' || c === '}')) {
        flow--;
        atNode = false;
      } else if (flow > 0 && c === ',') {
        entries++;
        atNode = true;
      } else if (c === ':' && (blank(next) || (flow > 0 && (next === 0x2c || next === 0x5d || next === 0x7d)))) {
        entries++;
        atNode = true;
        // A line's first key outside brackets opens a mapping (`- key: value` is a list item holding one).
        if (flow === 0 && !keyed) depth++;
        keyed ||= flow === 0;
      } else atNode = false;
      if (depth > limits.depth) return tooDeep;
      if (entries > limits.entries) return tooMany;
    }
    if (flow === 0 && quote === 0 && indents.length > 0) indents[indents.length - 1].depth = depth;
    start = end + 1;
  }
  return null;
}
