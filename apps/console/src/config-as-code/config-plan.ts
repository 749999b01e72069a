import { diffFields, findCycle, type DependencyEdge, type FieldChange, type FieldError } from '@baton/domain';
import { scheduleChanged } from '../tasks/schedule';
import { definitionOf, type FileTask } from '../tasks/file-task';
import type { ConfigFile, FileDependency } from './config-file';
import type { ConfigChangeAction, ConfigChangeKind } from '../api-types';

export type ChangeKind = ConfigChangeKind;
export type ChangeAction = ConfigChangeAction;

/** One change a file makes to a tenant. */
export interface PlannedChange {
  kind: ChangeKind;
  /** The object's name (`parent → child` for a dependency, `tenant` for retention). */
  name: string;
  action: ChangeAction;
  /** Field by field (dotted paths); a creation lists every field, a deletion none. */
  fields: FieldChange[];
  /** A task whose fire times change: its next ones before and after (epoch ms). */
  nextFireTimes?: { before: number[]; after: number[] };
}

/** The next fire times of a task definition, as it is now (`before`) or as the file would make it (`after`); planChanges without it lists the changes alone. */
export type FireTimes = (task: FileTask, side: 'before' | 'after') => number[];

export const edgeName = (d: Pick<FileDependency, 'parent' | 'child'>) => `${d.parent} → ${d.child}`;

/**
 * What applying `desired` to a tenant now in `current` changes: creations and updates of what
 * the file names, deletions (only with `prune`) of what it does not. Order: retention,
 * calendars, webhooks, tasks, dependencies, each by name — the order apply follows.
 */
export function planChanges(current: ConfigFile, desired: ConfigFile, prune: boolean, fireTimes: FireTimes | null): PlannedChange[] {
  const changes: PlannedChange[] = [];
  if (desired.retention) {
    const fields = diffFields(current.retention ?? { runsMs: null, logsMs: null, alarmsMs: null, minRunsKept: null }, desired.retention);
    if (fields.length > 0) changes.push({ kind: 'retention', name: 'tenant', action: 'update', fields });
  }
  changes.push(...diffNamed('calendar', current.calendars, desired.calendars, prune, (c) => c.name));
  changes.push(...diffNamed('webhook', current.webhooks, desired.webhooks, prune, (w) => w.name));
  const nowTasks = new Map(current.tasks.map((t) => [t.name, t]));
  const wantedTasks = new Map(desired.tasks.map((t) => [t.name, t]));
  for (const change of diffNamed('task', current.tasks, desired.tasks, prune, (t) => t.name)) {
    const before = nowTasks.get(change.name);
    const after = wantedTasks.get(change.name);
    if (!fireTimes) {
      changes.push(change);
      continue;
    }
    if (change.action === 'create' || (change.action === 'update' && before && after && scheduleChanged(definitionOf(before, ''), definitionOf(after, '')))) {
      change.nextFireTimes = { before: before ? fireTimes(before, 'before') : [], after: fireTimes(after!, 'after') };
    }
    changes.push(change);
  }
  changes.push(...diffNamed('dependency', current.dependencies, desired.dependencies, prune, edgeName));
  return changes;
}

/** Why a file cannot be applied to a tenant now in `current`: names it gives that the tenant would not have, or the cycle its dependencies would close and the edge (`dependencies[i]`) that closes it. */
export type FileRefusal = { errors: FieldError[] } | { cycle: string[]; field: string };

/**
 * What an apply of `desired` would refuse for what the file names rather than for what a field
 * holds: a task's calendar, a dependency's tasks — in the file, or the tenant's (none but the
 * file's with `prune`, which deletes the others) —, a task it creates imported from the same item
 * as another task the tenant would keep (importedTwice), and a dependency cycle in the tenant's
 * edges after it. Plan and apply both ask, so a file `baton plan` passes is one `baton apply` takes.
 */
export function fileRefusal(current: ConfigFile, desired: ConfigFile, prune: boolean): FileRefusal | null {
  const kept = <T extends { name: string }>(mine: readonly T[], theirs: readonly T[]) => new Set([...mine, ...(prune ? [] : theirs)].map((x) => x.name));
  const where = prune ? 'in the file; --prune deletes the tenant\'s others' : 'in the file or the tenant';
  const calendars = kept(desired.calendars, current.calendars);
  const tasks = kept(desired.tasks, current.tasks);
  const errors: FieldError[] = [];
  desired.tasks.forEach((task, i) => {
    if (task.calendarName !== null && !calendars.has(task.calendarName)) errors.push({ field: `tasks[${i}].calendarName`, reason: `no calendar named "${task.calendarName}" (${where})` });
  });
  desired.dependencies.forEach((d, i) => {
    for (const end of ['parent', 'child'] as const) if (!tasks.has(d[end])) errors.push({ field: `dependencies[${i}].${end}`, reason: `no task named "${d[end]}" (${where})` });
  });
  errors.push(...importedTwice(current, desired, prune));
  if (errors.length > 0) return { errors };
  const wanted = new Set(desired.dependencies.map(edgeName));
  // The edges the tenant keeps besides the file's: none with prune.
  const edges: DependencyEdge[] = prune ? [] : current.dependencies.filter((d) => !wanted.has(edgeName(d)));
  for (const [i, edge] of desired.dependencies.entries()) {
    const cycle = findCycle(edges, edge);
    if (cycle) return { cycle, field: `dependencies[${i}]` };
    edges.push(edge);
  }
  return null;
}

/**
 * Each task the file creates whose importedFrom another task of the tenant after the apply has:
 * a re-import that named a job's task otherwise (an XXL-JOB handler mapped differently, a Quartz
 * job that gained a trigger) would make a second task of the job beside the first, and the job
 * would fire twice. Both tasks are named, and how to keep one.
 */
function importedTwice(current: ConfigFile, desired: ConfigFile, prune: boolean): FieldError[] {
  const named = new Set(desired.tasks.map((t) => t.name));
  const existing = new Set(current.tasks.map((t) => t.name));
  const kept = new Map<string, string>();
  if (!prune) for (const task of current.tasks) if (task.importedFrom !== undefined && !named.has(task.name)) kept.set(task.importedFrom, task.name);
  const inFile = new Map<string, number[]>();
  desired.tasks.forEach((task, i) => {
    if (task.importedFrom !== undefined) inFile.set(task.importedFrom, [...(inFile.get(task.importedFrom) ?? []), i]);
  });
  const errors: FieldError[] = [];
  desired.tasks.forEach((task, i) => {
    const source = task.importedFrom;
    if (source === undefined || existing.has(task.name)) return;
    const field = `tasks[${i}].importedFrom`;
    const keptTask = kept.get(source);
    if (keptTask !== undefined) {
      errors.push({ field, reason: `task "${task.name}" would be created imported from "${source}", as the tenant's task "${keptTask}" is, which this file does not name: both would fire. Name it "${keptTask}" in the file to update that task, or delete "${keptTask}" (apply --prune deletes the tasks a file does not name)` });
    }
    for (const j of inFile.get(source)!) {
      if (j !== i) errors.push({ field, reason: `task "${task.name}" would be created imported from "${source}", as tasks[${j}] "${desired.tasks[j].name}" is: both would fire; keep one` });
    }
  });
  return errors;
}

function diffNamed<T>(kind: ChangeKind, current: readonly T[], desired: readonly T[], prune: boolean, nameOf: (item: T) => string): PlannedChange[] {
  const now = new Map(current.map((item) => [nameOf(item), item]));
  const wanted = new Map(desired.map((item) => [nameOf(item), item]));
  const changes: PlannedChange[] = [];
  for (const name of [...new Set([...now.keys(), ...wanted.keys()])].sort()) {
    const before = now.get(name);
    const after = wanted.get(name);
    if (before === undefined && after !== undefined) changes.push({ kind, name, action: 'create', fields: diffFields({}, after) });
    else if (before !== undefined && after !== undefined) {
      const fields = diffFields(before, after);
      if (fields.length > 0) changes.push({ kind, name, action: 'update', fields });
    } else if (prune) changes.push({ kind, name, action: 'delete', fields: [] });
  }
  return changes;
}
