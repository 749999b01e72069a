import { Composer, isScalar, LineCounter, Parser, visit, YAMLParseError, type Document, type YAMLError } from 'yaml';
import type { FieldError } from '@baton/domain';
import { readConfigFile, type ConfigFile } from './config-file';
import { quoteInOnePass } from './quoted-in-one-pass';
import { yamlBudgetProblem } from './yaml-budget';

/**
 * A tasks-as-code file read as a tenant's desired state (readConfigFile), or every problem found.
 * Runs in ConfigThread's worker, all of it: the YAML library parses about 1 MB a second, and
 * checking 1,000 tasks (their cron expressions made canonical) takes 0.3–3 s — on the event loop,
 * every tenant's requests would wait meanwhile.
 */
export function readConfigText(text: string, tenantId: string): { file: ConfigFile } | { errors: FieldError[] } {
  const parsed = parseConfigYaml(text);
  if ('errors' in parsed) return parsed;
  const read = readConfigFile(parsed.raw, tenantId);
  return read.file ? { file: read.file } : { errors: read.errors };
}

/**
 * A tasks-as-code file's YAML as plain data, or why it cannot be read (field `file`). The text is
 * counted first (yaml-budget): what is past the budget never reaches the library.
 */
export function parseConfigYaml(text: string): { raw: unknown } | { errors: FieldError[] } {
  const overBudget = yamlBudgetProblem(text);
  if (overBudget) return { errors: [{ field: 'file', reason: overBudget }] };
  const lines = new LineCounter();
  const document = composeOne(text, lines);
  const invalid = document.errors.length > 0 ? document.errors.map((e) => placed(e, lines)) : repeatedKeys(document, lines);
  if (invalid.length > 0) return { errors: invalid.map((message) => ({ field: 'file', reason: `is not valid YAML: ${message}` })) };
  // No anchors or aliases: a file of nested aliases expands exponentially (a billion laughs), and one that names the same params twice reads as two copies anyway.
  const reused = firstAnchorOrAlias(document, lines);
  if (reused) return { errors: [{ field: 'file', reason: `YAML anchors and aliases (&name, *name) are not accepted in a tasks file: ${reused}` }] };
  try {
    return { raw: document.toJS({ maxAliasCount: 0 }) };
  } catch (error) {
    return { errors: [{ field: 'file', reason: `cannot be read: ${(error as Error).message}` }] };
  }
}

/**
 * The text as one YAML document (the library's parseDocument, its CST handed over with its
 * double-quoted scalars read in one pass: quoteInOnePass), a second document an error. Keys are
 * not checked by the library (uniqueKeys): it compares each key with every earlier one of its
 * mapping — 16,000 keys took 2 s, 1 MB of them 83 s. repeatedKeys does it in one pass.
 */
function composeOne(text: string, lines: LineCounter): Document.Parsed {
  const tokens = [...new Parser(lines.addNewLine).parse(text)];
  quoteInOnePass(tokens);
  const [document, another] = new Composer({ uniqueKeys: false }).compose(tokens, true, text.length);
  if (another) document.errors.push(new YAMLParseError([another.range[0], another.range[1]], 'MULTIPLE_DOCS', 'a tasks file is one YAML document; another starts'));
  return document as Document.Parsed;
}

/** An error's message (its first line) and its place in the file. */
function placed(error: Pick<YAMLError, 'message' | 'pos'>, lines: LineCounter): string {
  const message = error.message.split('\n')[0];
  return error.pos[0] < 0 ? message : `${message} ${at(lines, error.pos[0])}`;
}

function at(lines: LineCounter, offset: number | undefined): string {
  const { line, col } = lines.linePos(offset ?? 0);
  return `at line ${line}, column ${col}`;
}

/** The file's first anchor (`&name`) or alias (`*name`) and its place, or null. */
function firstAnchorOrAlias(document: Document, lines: LineCounter): string | null {
  let found: string | null = null;
  visit(document, {
    Alias(_, alias) {
      found = `*${alias.source} ${at(lines, alias.range?.[0])}`;
      return visit.BREAK;
    },
    Node(_, node) {
      if (!node.anchor) return undefined;
      found = `&${node.anchor} ${at(lines, node.range?.[0])}`;
      return visit.BREAK;
    },
  });
  return found;
}

/** Each key that repeats an earlier one of its mapping or is not a scalar — what a JavaScript object cannot hold apart — with its place. */
function repeatedKeys(document: Document, lines: LineCounter): string[] {
  const problems: string[] = [];
  visit(document, {
    Map(_, map) {
      const seen = new Set<string>();
      for (const { key } of map.items) {
        if (!isScalar(key)) problems.push(`Map keys must be plain values ${at(lines, (key as { range?: number[] } | null)?.range?.[0])}`);
        else if (seen.has(String(key.value))) problems.push(`Map keys must be unique: "${String(key.value)}" ${at(lines, key.range?.[0])}`);
        else seen.add(String(key.value));
      }
    },
  });
  return problems;
}
