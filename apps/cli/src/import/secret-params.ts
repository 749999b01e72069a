import { isSecretName } from '@baton/domain';
import type { Imported } from './imported';

/**
 * Names each imported task whose params hold a secret-named value (Baton's one rule, isSecretName:
 * `password`, `apiToken`, `key`, …) in its entry, and says once for the import that the file holds
 * them in clear. An import writes params as the source held them — a JobDataMap's `password`, an
 * XXL-JOB parameter string `token=…` — and a file in Git is read by more people than the source
 * database was; the console redacts them for viewers, the file cannot.
 */
export function noteSecretParams(imported: Imported): void {
  const byName = new Map(imported.tasks.map((task) => [task.name, task]));
  let tasks = 0;
  for (const entry of imported.entries) {
    const names = entry.task === null ? [] : secretNamesIn(byName.get(entry.task)?.params);
    if (names.length === 0) continue;
    tasks++;
    entry.notes.push(`secret-named params written in clear: ${names.join(', ')}`);
  }
  if (tasks > 0) {
    imported.notes.push(
      `Secrets: ${tasks} task(s) have secret-named params (password, token, key…), written in this file in clear as the source held them (each entry names them). ` +
        'Keep the file where those values may be read, or move them out of the params (into the executor\'s own configuration) before it goes into Git.',
    );
  }
}

/** The secret-named keys of params, at any depth; of a parameter string (XXL-JOB's, `password=…`), its secret-named words. */
function secretNamesIn(params: unknown): string[] {
  if (typeof params === 'string') return [...new Set((params.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []).filter(isSecretName))];
  const names = new Set<string>();
  const visit = (value: unknown): void => {
    if (value === null || typeof value !== 'object') return;
    for (const [name, field] of Object.entries(value)) {
      if (isSecretName(name)) names.add(name);
      else visit(field);
    }
  };
  visit(params);
  return [...names];
}
