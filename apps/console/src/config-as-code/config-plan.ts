import { diffFields, type FieldChange } from '@baton/domain';
import { scheduleChanged } from '../tasks/schedule';
import type { FileTask } from '../tasks/file-task';
import type { ConfigFile, FileDependency } from './config-file';

export type ChangeKind = 'retention' | 'calendar' | 'webhook' | 'task' | 'dependency';
export type ChangeAction = 'create' | 'update' | 'delete';

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
    if (change.action === 'create' || (change.action === 'update' && before && after && scheduleChanged({ ...before, tenantId: '' }, { ...after, tenantId: '' }))) {
      change.nextFireTimes = { before: before ? fireTimes(before, 'before') : [], after: fireTimes(after!, 'after') };
    }
    changes.push(change);
  }
  changes.push(...diffNamed('dependency', current.dependencies, desired.dependencies, prune, edgeName));
  return changes;
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
