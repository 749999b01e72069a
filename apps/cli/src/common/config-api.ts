import { describeFieldErrors, type FieldError } from '@baton/protocol';
import type { PlannedChange } from '../../../console/src/config-as-code/config-plan';
import { ConsoleApiError } from './console-api-error';

/** The console the tasks-as-code commands talk to (BATON_API_URL, BATON_API_KEY). */
export interface ConsoleApi {
  url: string;
  apiKey: string;
}

async function call(api: ConsoleApi, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(new URL(path, api.url), {
      method,
      headers: { 'X-API-Key': api.apiKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new ConsoleApiError(`cannot reach the console at ${api.url} (${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}): set BATON_API_URL`);
  }
  if (!res.ok) throw new ConsoleApiError(`${method} ${path}: ${res.status}\n${describeRefusal(await res.text())}`, res.status);
  return res;
}

/**
 * A refusal's body as a terminal reads it: its message, then each field at fault on a line of its
 * own — the message left out when it is only those fields again (a 400's `field: reason; …`), so
 * each is printed once. Not an ErrorBody: the text as it came.
 */
export function describeRefusal(text: string): string {
  let body: { message?: string; errors?: FieldError[] } | null;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return text;
  }
  if (typeof body !== 'object' || body === null) return text;
  const errors = body.errors ?? [];
  const message = body.message ?? text;
  const fields = errors.map((e) => `  ${e.field}: ${e.reason}`);
  return (errors.length > 0 && message === describeFieldErrors(errors) ? fields : [message, ...fields]).join('\n');
}

export async function exportFile(api: ConsoleApi): Promise<string> {
  return (await call(api, 'GET', '/api/config/export')).text();
}

export async function planOrApply(api: ConsoleApi, route: 'plan' | 'apply', file: string, prune: boolean): Promise<PlannedChange[]> {
  const answer = (await (await call(api, 'POST', `/api/config/${route}`, { file, prune })).json()) as { changes: PlannedChange[] };
  return answer.changes;
}

const SIGN = { create: '+', update: '~', delete: '-' } as const;
const show = (value: unknown) => (value === undefined ? '(none)' : JSON.stringify(value));
const times = (list: number[]) => (list.length ? list.map((t) => new Date(t).toISOString()).join(', ') : '(none)');

/** The changes as a terminal reads them: one line per object, its fields indented, then the count. */
export function describeChanges(changes: readonly PlannedChange[]): string {
  if (changes.length === 0) return 'No changes: the tenant matches the file.';
  const lines: string[] = [];
  for (const change of changes) {
    lines.push(`${SIGN[change.action]} ${change.kind} "${change.name}" (${change.action})`);
    if (change.action === 'update') for (const f of change.fields) lines.push(`    ${f.field}: ${show(f.before)} → ${show(f.after)}`);
    if (change.nextFireTimes) lines.push(`    next fire times: ${times(change.nextFireTimes.before)} → ${times(change.nextFireTimes.after)}`);
  }
  const count = (action: PlannedChange['action']) => changes.filter((c) => c.action === action).length;
  lines.push('', `${count('create')} to create, ${count('update')} to update, ${count('delete')} to delete.`);
  return lines.join('\n');
}
