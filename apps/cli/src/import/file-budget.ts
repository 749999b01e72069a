import { TASKS_AS_CODE_JSON_LIMIT } from '../../../console/src/config-as-code/tasks-as-code-body';
import { yamlBudgetProblem } from '../../../console/src/config-as-code/yaml-budget';

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** body-parser's reading of a limit such as '4mb' (bytes' 1024 multiples): the number its 413 names. */
export function limitBytes(limit: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)$/i.exec(limit);
  if (!match) throw new RangeError(`body limit "${limit}" is not <number><b|kb|mb|gb>`);
  return Math.floor(Number(match[1]) * UNITS[match[2].toLowerCase()]);
}

/**
 * Why the console will refuse the file before reading it (`baton plan` and `apply` get a 413, or
 * the YAML budget's refusal), or null: the import writes it anyway (its header is still the
 * inventory), and the caller says how to split it. The limits are the console's own constants.
 */
export function overBudget(document: string): string | null {
  const limit = limitBytes(TASKS_AS_CODE_JSON_LIMIT);
  // plan and apply send the file inside JSON ({ file, prune }): its escapes count against the limit.
  const body = Buffer.byteLength(JSON.stringify({ file: document, prune: false }));
  if (body > limit) return `it is ${(body / 1024 ** 2).toFixed(1)} MB as plan and apply send it, over the console's tasks-as-code body limit of ${TASKS_AS_CODE_JSON_LIMIT} (${limit} bytes): they will be refused with 413`;
  const problem = yamlBudgetProblem(document);
  return problem === null ? null : `it ${problem.replace(/: split it.*$/, '')}, over the console's tasks-as-code budget: plan and apply will refuse it`;
}
