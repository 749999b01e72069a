import { AUDIT_VALUE_MAX_BYTES } from '@baton/persistence';
import type { PlannedChange } from './config-plan';

/** One change as the record lists it: the fields it set, by name. */
interface AuditedChange {
  kind: PlannedChange['kind'];
  name: string;
  action: PlannedChange['action'];
  fields: string[];
}

/** An apply's audit record (its `after`). */
export interface ApplyAudit {
  prune: boolean;
  /** Per kind, how many were created, updated and deleted: whole, however long the list. */
  counts: Partial<Record<PlannedChange['kind'], Partial<Record<PlannedChange['action'], number>>>>;
  /** The changes, in the plan's order, as many as fit in an audit value. */
  changes: AuditedChange[];
  /** Changes past what fits (absent when none). */
  changesLeftOut?: number;
}

/** Room kept for the rest of the record (prune, counts, changesLeftOut). */
const HEAD_BYTES = 4_000;

/**
 * What a config.apply record says: its counts, and its changes as many as fit in an audit value
 * (AUDIT_VALUE_MAX_BYTES). The whole list of an apply of ~170 tasks or more passed that bound,
 * and the record kept `{truncated: true, bytes}` — nothing of what the apply changed. The fields
 * are named, not valued: a field's old and new values would need redacting by their path.
 */
export function applyAudit(prune: boolean, changes: readonly PlannedChange[]): ApplyAudit {
  const counts: ApplyAudit['counts'] = {};
  for (const c of changes) {
    const ofKind = (counts[c.kind] ??= {});
    ofKind[c.action] = (ofKind[c.action] ?? 0) + 1;
  }
  const listed: AuditedChange[] = [];
  let bytes = HEAD_BYTES;
  for (const c of changes) {
    const entry: AuditedChange = { kind: c.kind, name: c.name, action: c.action, fields: c.fields.map((f) => f.field) };
    bytes += Buffer.byteLength(JSON.stringify(entry), 'utf8') + 1;
    if (bytes > AUDIT_VALUE_MAX_BYTES) break;
    listed.push(entry);
  }
  return { prune, counts, changes: listed, ...(listed.length < changes.length ? { changesLeftOut: changes.length - listed.length } : {}) };
}
