/** One field that differs between two versions of a task: its dotted path (`trigger.expression`, `params.region`) and both values. */
export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The fields that differ between two JSON values, objects walked down to their leaves (arrays
 * compared whole: a list of dates or alarm types reads better as one change), sorted by path.
 * A field present on one side only shows `undefined` on the other. Identical inputs give [].
 */
export function diffFields(before: unknown, after: unknown, prefix = ''): FieldChange[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => diffFields(before[key], after[key], prefix === '' ? key : `${prefix}.${key}`));
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  return [{ field: prefix === '' ? '(value)' : prefix, before, after }];
}
