import { redact, redactChange } from '@baton/domain';
import { AUDIT_VALUE_MAX_BYTES } from '@baton/persistence';
import type { ConfigAppliedChange, ConfigAppliedNames, ConfigApplyRecord } from '../api-types';
import type { ConfigFile } from './config-file';
import { edgeName, type PlannedChange } from './config-plan';

/** Room kept for the rest of the record (prune, counts, changesLeftOut). */
const HEAD_BYTES = 4_000;

/** An entry's share of the record: its JSON and the comma after it. */
const bytesOf = (entry: unknown) => Buffer.byteLength(JSON.stringify(entry), 'utf8') + 1;

/**
 * What a config.apply record says (its `after`): its counts, whole; its changes, in the plan's
 * order, as many as fit in an audit value (AUDIT_VALUE_MAX_BYTES; `changesLeftOut` the rest), each
 * with its fields' values before and after (redacted by the field's path: `params.dbPassword` is
 * `[redacted]`) and a deletion with the object as it was (`current`'s, redacted as a DELETE's
 * `before`), so that an auditor can tell what the apply changed. The list is made first of the
 * changes' field names, and values are added where room is left: a change whose values are too
 * big (a task's params of 50 KB) is listed by its field names (`valuesLeftOut`), never costing
 * another change its place. Measured as stored: the values go through redact as the record does.
 */
export function applyAudit(prune: boolean, changes: readonly PlannedChange[], current: ConfigFile): ConfigApplyRecord {
  const counts: ConfigApplyRecord['counts'] = {};
  for (const c of changes) {
    const ofKind = (counts[c.kind] ??= {});
    ofKind[c.action] = (ofKind[c.action] ?? 0) + 1;
  }
  const listed: Array<ConfigAppliedChange | ConfigAppliedNames> = [];
  const sizes: number[] = [];
  let room = AUDIT_VALUE_MAX_BYTES - HEAD_BYTES;
  for (const c of changes) {
    const names: ConfigAppliedNames = { kind: c.kind, name: c.name, action: c.action, fields: c.fields.map((f) => f.field), valuesLeftOut: true };
    const size = bytesOf(names);
    if (size > room) break;
    listed.push(names);
    sizes.push(size);
    room -= size;
  }
  const deleted = deletedObjects(current);
  for (const [i, c] of changes.slice(0, listed.length).entries()) {
    const valued = redact(withValues(c, deleted)) as ConfigAppliedChange;
    const more = bytesOf(valued) - sizes[i];
    if (more > room) continue;
    listed[i] = valued;
    room -= more;
  }
  return { prune, counts, changes: listed, ...(listed.length < changes.length ? { changesLeftOut: changes.length - listed.length } : {}) };
}

/** A change with its fields' values, redacted by path; a deletion with its object as it was. */
function withValues(c: PlannedChange, deleted: (kind: PlannedChange['kind'], name: string) => unknown): ConfigAppliedChange {
  const fields = c.fields.map((f) => redactChange(f));
  if (c.action !== 'delete') return { kind: c.kind, name: c.name, action: c.action, fields };
  return { kind: c.kind, name: c.name, action: c.action, fields, before: redact(deleted(c.kind, c.name)) };
}

/** The tenant's objects by kind and name (what a deletion deleted), indexed on first use. */
function deletedObjects(current: ConfigFile): (kind: PlannedChange['kind'], name: string) => unknown {
  const lists: Record<PlannedChange['kind'], () => ReadonlyArray<[string, unknown]>> = {
    retention: () => (current.retention ? [['tenant', current.retention]] : []),
    calendar: () => current.calendars.map((c) => [c.name, c]),
    webhook: () => current.webhooks.map((w) => [w.name, w]),
    task: () => current.tasks.map((t) => [t.name, t]),
    dependency: () => current.dependencies.map((d) => [edgeName(d), d]),
  };
  const indexes = new Map<PlannedChange['kind'], Map<string, unknown>>();
  return (kind, name) => {
    let index = indexes.get(kind);
    if (!index) indexes.set(kind, (index = new Map(lists[kind]())));
    return index.get(name) ?? null;
  };
}
