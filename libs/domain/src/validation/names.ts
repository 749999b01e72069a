/**
 * Names that appear in URLs, topics and logs (task, task group, executor app, calendar):
 * ASCII letters, digits, dot, underscore and hyphen, so they never need escaping.
 */
export const NAME_PATTERN = /^[A-Za-z0-9._-]+$/;

/** Matches the varchar(100) columns the names are stored in. */
export const NAME_MAX_LENGTH = 100;

/** The reason for a refused name, or null when the name is fine. */
export function nameProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0) return 'is required';
  if (value.length > NAME_MAX_LENGTH) return `must be at most ${NAME_MAX_LENGTH} characters`;
  if (!NAME_PATTERN.test(value)) return 'may contain only A-Z a-z 0-9 . _ -';
  return null;
}
