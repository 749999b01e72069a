/**
 * Names that appear in URLs, topics and logs (task, task group, executor app, calendar):
 * ASCII letters, digits, dot, underscore and hyphen, so they never need escaping.
 */
export const NAME_PATTERN = /^[A-Za-z0-9._-]+$/;

/** Matches the varchar(100) columns the names are stored in. */
export const NAME_MAX_LENGTH = 100;

/**
 * Why `value`, not a non-empty string, is refused: missing (absent, null, empty), or there but of
 * another type — `name: 5` in a YAML file is a number, and "is required" would send its author
 * looking for a field that is right in front of them.
 */
export function requiredTextProblem(value: unknown): string {
  return value === undefined || value === null || value === '' ? 'is required' : 'must be a string';
}

/** The reason for a refused name, or null when the name is fine. */
export function nameProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0) return requiredTextProblem(value);
  if (value.length > NAME_MAX_LENGTH) return `must be at most ${NAME_MAX_LENGTH} characters`;
  if (!NAME_PATTERN.test(value)) return 'may contain only A-Z a-z 0-9 . _ -';
  return null;
}

/** Whether `text` has a C0 or C1 control character or DEL: what breaks a log line, an audit record or a terminal. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

/**
 * The reason for a refused display name — free text a person reads (a tenant's name, a webhook
 * channel's), any characters but control ones (a NUL, a newline, an escape sequence), not blank,
 * at most `maxLength` characters — or null when it is fine.
 */
export function displayNameProblem(value: unknown, maxLength: number): string | null {
  if (typeof value !== 'string' || value.length === 0) return requiredTextProblem(value);
  if (value.trim().length === 0) return 'must not be blank';
  if (value.length > maxLength) return `must be at most ${maxLength} characters`;
  if (hasControlCharacter(value)) return 'must not contain control characters (a NUL, a newline, a tab, an escape)';
  return null;
}
