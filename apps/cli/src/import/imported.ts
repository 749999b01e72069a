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
 * most NAME_MAX_LENGTH − 4 characters so that a `-2` … suffix keeps two that collide apart.
 */
export class TaskNames {
  private readonly taken = new Set<string>();

  constructor(private readonly maxLength: number) {}

  unique(parts: string[]): string {
    const base = sanitizeName(parts.join('.')).slice(0, this.maxLength - 4);
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
