/** Longest key scope: `g:` and a group name of MAX_KEY_GROUP_LENGTH (the runs.key_scope and run_keys.key_scope columns are varchar(66)). */
export const MAX_KEY_SCOPE_LENGTH = 66;

/**
 * Whose places and tokens a bound's key values are counted in, within its tenant: the task's own
 * (`t:<taskId>`), or, when the bound names a key `group`, the group's (`g:<group>`), shared by every
 * task of the tenant that names it. Stored beside the key value (runs.key_scope, run_keys.key_scope)
 * and always beside the tenant: two tenants' groups of one name never meet.
 */
export function keyScope(taskId: number, group?: string): string {
  return group ? `g:${group}` : `t:${taskId}`;
}

/** The task whose own key scope this is (`t:<taskId>`); null for a group's (`g:<group>`). */
export function scopeTask(scope: string): number | null {
  return scope.startsWith('t:') ? Number(scope.slice(2)) : null;
}

/** A key as messages name it: `key 'c-1'`, or `key 'c-1' of group 'customer-sync'`. */
export function keyLabel(scope: string, key: string): string {
  return scope.startsWith('g:') ? `key '${key}' of group '${scope.slice(2)}'` : `key '${key}'`;
}
