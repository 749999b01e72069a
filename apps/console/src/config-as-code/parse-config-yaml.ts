import { isScalar, LineCounter, parseDocument, visit, type Document } from 'yaml';
import type { FieldError } from '@baton/domain';
import { readConfigFile, type ConfigFile } from './config-file';
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
  // Keys are not checked by the library (uniqueKeys): it compares each key with every earlier one
  // of its mapping — 16,000 keys took 2 s, 1 MB of them 83 s. repeatedKeys does it in one pass.
  const lines = new LineCounter();
  const document = parseDocument(text, { uniqueKeys: false, lineCounter: lines });
  const invalid = document.errors.length > 0 ? document.errors.map((e) => e.message.split('\n')[0]) : repeatedKeys(document, lines);
  if (invalid.length > 0) return { errors: invalid.map((message) => ({ field: 'file', reason: `is not valid YAML: ${message}` })) };
  try {
    // No aliases: a file of nested aliases would expand exponentially.
    return { raw: document.toJS({ maxAliasCount: 0 }) };
  } catch (error) {
    return { errors: [{ field: 'file', reason: `cannot be read: ${(error as Error).message}` }] };
  }
}

/** Each key that repeats an earlier one of its mapping or is not a scalar — what a JavaScript object cannot hold apart — with its place. */
function repeatedKeys(document: Document, lines: LineCounter): string[] {
  const problems: string[] = [];
  const at = (offset: number | undefined) => {
    const { line, col } = lines.linePos(offset ?? 0);
    return `at line ${line}, column ${col}`;
  };
  visit(document, {
    Map(_, map) {
      const seen = new Set<string>();
      for (const { key } of map.items) {
        if (!isScalar(key)) problems.push(`Map keys must be plain values ${at((key as { range?: number[] } | null)?.range?.[0])}`);
        else if (seen.has(String(key.value))) problems.push(`Map keys must be unique: "${String(key.value)}" ${at(key.range?.[0])}`);
        else seen.add(String(key.value));
      }
    },
  });
  return problems;
}
