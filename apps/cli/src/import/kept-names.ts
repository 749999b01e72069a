import { parse } from 'yaml';

/**
 * The task names of a tasks-as-code file by their importedFrom (the file an import is about to
 * replace): TaskNames keeps them, so re-importing into the same file keeps every task's name.
 * Empty for YAML that is no such file (it is replaced all the same); null for a text that is not YAML.
 */
export function keptNames(text: string): Map<string, string> | null {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    return null;
  }
  const tasks = (doc as { tasks?: unknown } | null)?.tasks;
  const names = new Map<string, string>();
  if (!Array.isArray(tasks)) return names;
  for (const task of tasks as Array<{ name?: unknown; importedFrom?: unknown } | null>) {
    if (typeof task?.name === 'string' && typeof task.importedFrom === 'string') names.set(task.importedFrom, task.name);
  }
  return names;
}
