import { diffFields, type FieldChange } from '@baton/domain/task/task-diff';

/** What a record changed, field by field (the domain's diff, as the API's task versions use). */
export function changesOf(before: unknown, after: unknown): FieldChange[] {
  return diffFields(before ?? {}, after ?? {});
}

/** A value as a change list shows it: JSON, shortened. */
export function shown(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}
