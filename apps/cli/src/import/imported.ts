import type { DependencyCondition, Trigger } from '@baton/domain';

/** A task as the tasks-as-code file takes it (fields left out take Baton's defaults). */
export type ImportedTask = Record<string, unknown> & { name: string; trigger: Trigger };

/** One item of the source scheduler (a Quartz trigger or job, an XXL-JOB job): the task it became, if any, and everything not carried, with the reason. */
export interface ImportEntry {
  source: string;
  task: string | null;
  notes: string[];
}

/** What an importer read, as the tasks-as-code file's calendars, tasks and dependencies, and the entry of every source item. */
export interface Imported {
  calendars: Array<{ name: string; timeZone: string; dates: string[] }>;
  tasks: ImportedTask[];
  dependencies: Array<{ parent: string; child: string; condition: DependencyCondition }>;
  entries: ImportEntry[];
  /** What holds for the whole import, not one item (a difference every task has): said once, after the entries. */
  notes: string[];
}

/**
 * Task names from a source's names: Baton's name alphabet (other characters become `-`), at
 * most NAME_MAX_LENGTH − 4 characters so that a `-2` … suffix keeps two that collide apart. An
 * item the file being replaced names (`kept`: importedFrom → name, keptNames) keeps that name, so
 * a name an import gave once — or one changed in the file by hand — stays while the item does,
 * whatever else changed around it (a Quartz job that gained a trigger); those names are never
 * given to another item.
 */
export class TaskNames {
  private readonly taken: Set<string>;

  constructor(
    private readonly maxLength: number,
    private readonly kept: ReadonlyMap<string, string> = new Map(),
  ) {
    this.taken = new Set(kept.values());
  }

  /** The task name of the item imported from `source` (its importedFrom): the kept one, else one made of `parts` (the entry's `notes` say when the two differ). */
  nameOf(source: string, parts: string[], notes: string[]): string {
    const made = sanitizeName(parts.join('.')).slice(0, this.maxLength - 4);
    const kept = this.kept.get(source);
    if (kept === undefined) return this.unique(made);
    if (kept !== made) notes.push(`named ${kept} as in the file this import replaces (-o); imported alone it would be ${made}`);
    return kept;
  }

  private unique(base: string): string {
    let name = base;
    for (let i = 2; this.taken.has(name); i++) name = `${base}-${i}`;
    this.taken.add(name);
    return name;
  }
}

/** A name in Baton's alphabet (A-Z a-z 0-9 . _ -): each run of other characters becomes one `-`. */
export function sanitizeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '-') || 'job';
}
