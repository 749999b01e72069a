/** One change made through the console API, as GET /api/audit answers it. */
export interface AuditRecord {
  id: number;
  at: number;
  tenantId: string | null;
  actor: {
    kind: 'user' | 'apiKey' | 'anonymous' | 'inboundWebhook' | 'engine';
    /** Username, `api-key:<name>`, or the name a failed login gave. */
    name: string;
    userId: number | null;
    apiKeyId: number | null;
    address: string | null;
  };
  /** `<object>.<verb>`: `task.update`, `auth.login-failed`… */
  action: string;
  objectType: string;
  objectId: string | null;
  /** The object before and after the change, secrets redacted. */
  before: unknown;
  after: unknown;
}

/** What a tasks-as-code apply changes: the kinds of object, and what is done to one. */
export type ConfigChangeKind = 'retention' | 'calendar' | 'webhook' | 'task' | 'dependency';
export type ConfigChangeAction = 'create' | 'update' | 'delete';

/** A field an apply set, with its values (secret-named paths shown as `[redacted]`); an absent side was not set. */
export interface ConfigAppliedField {
  field: string;
  before?: unknown;
  after?: unknown;
}

/** One change of an apply, with its values: each field it set; a deletion, the object as it was (`before`). */
export interface ConfigAppliedChange {
  kind: ConfigChangeKind;
  /** The object's name (`parent → child` for a dependency, `tenant` for retention). */
  name: string;
  action: ConfigChangeAction;
  fields: ConfigAppliedField[];
  /** A deletion's object as it was, redacted as a DELETE's record has it. */
  before?: unknown;
}

/** One change of an apply whose values did not fit in the record: the fields it set, by name. */
export interface ConfigAppliedNames {
  kind: ConfigChangeKind;
  name: string;
  action: ConfigChangeAction;
  fields: string[];
  valuesLeftOut: true;
}

/** The `after` of a `config.apply` audit record. */
export interface ConfigApplyRecord {
  prune: boolean;
  /** Per kind, how many were created, updated and deleted: whole, however long the list. */
  counts: Partial<Record<ConfigChangeKind, Partial<Record<ConfigChangeAction, number>>>>;
  /** The changes in the apply's order, as many as fit in an audit value: with their values where those fit too. */
  changes: Array<ConfigAppliedChange | ConfigAppliedNames>;
  /** Changes past what fits (absent when none). */
  changesLeftOut?: number;
}
