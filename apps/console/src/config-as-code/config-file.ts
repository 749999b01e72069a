import {
  canonicalTimeZone,
  displayNameProblem,
  redact,
  REDACTED,
  DEPENDENCY_CONDITIONS,
  readApprovalGate,
  SEVERITIES,
  validateCalendar,
  validateTask,
  withTaskDefaults,
  type ApprovalGate,
  type DependencyCondition,
  type FieldError,
  type Severity,
  type TaskInput,
  type WebhookEventType,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_NAME_MAX_LENGTH,
} from '@baton/domain';
import { stringify } from 'yaml';
import { canonical } from '../tasks/canonical-definition';
import { fileTask, type FileTask } from '../tasks/file-task';
import { taskWithoutDefaults } from './task-without-defaults';

/**
 * Tasks as code: one YAML file holds a tenant's tasks, dependencies, calendars, webhooks and
 * retention, everything named (no ids) and none of Baton's own secrets (webhook signing secrets
 * stay in Baton); the tasks' params are the tenant's data, written as they are (a viewer's export
 * redacts their secret-named values). The
 * order is stable (each list sorted by name, each object's keys in one order), so a file exported
 * twice from the same state is the same byte for byte, and a Git diff shows real changes only.
 */
export const CONFIG_FILE_VERSION = 1;

export interface FileCalendar {
  name: string;
  timeZone: string;
  dates: string[];
}

export interface FileWebhook {
  name: string;
  url: string;
  /** Null: every alarm type. */
  alarmTypes: WebhookEventType[] | null;
  minSeverity: Severity;
}

export interface FileDependency {
  parent: string;
  child: string;
  condition: DependencyCondition;
  /** The edge's approval step; null (left out of the file): none. */
  approval: ApprovalGate | null;
}

/** The tenant's retention policy; null fields take the cluster's ceiling. */
export interface FileRetention {
  runsMs: number | null;
  logsMs: number | null;
  alarmsMs: number | null;
  minRunsKept: number | null;
}

export interface ConfigFile {
  version: typeof CONFIG_FILE_VERSION;
  /** Absent from a file: the tenant's retention is left alone. */
  retention: FileRetention | null;
  calendars: FileCalendar[];
  webhooks: FileWebhook[];
  tasks: FileTask[];
  dependencies: FileDependency[];
}

const TOP_KEYS = ['version', 'retention', 'calendars', 'webhooks', 'tasks', 'dependencies'];
const RETENTION_KEYS = ['runsMs', 'logsMs', 'alarmsMs', 'minRunsKept'] as const;

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const byEdge = (a: FileDependency, b: FileDependency) => byName({ name: `${a.parent}\u0000${a.child}` }, { name: `${b.parent}\u0000${b.child}` });

/** What an export shows of what the principal may not list (each true by default: an admin's export). */
export interface ExportShown {
  /** False: the webhooks are left out (their URLs are credentials). */
  webhooks: boolean;
  /** False: the tasks' secret-named values are redacted (redact, @baton/domain), as GET /api/tasks shows them to a viewer. */
  secretValues: boolean;
}

/**
 * The file's text: each list sorted, each object's keys in the file's order. What `shown` leaves
 * out or redacts (a principal who may not list it) the header says.
 */
export function writeConfigFile(file: ConfigFile, tenantId: string, shown: ExportShown = { webhooks: true, secretValues: true }): string {
  const ordered = {
    version: file.version,
    ...(file.retention ? { retention: Object.fromEntries(RETENTION_KEYS.map((k) => [k, file.retention![k]])) } : {}),
    calendars: [...file.calendars].sort(byName).map((c) => ({ name: c.name, timeZone: c.timeZone, dates: [...c.dates].sort() })),
    ...(shown.webhooks ? { webhooks: [...file.webhooks].sort(byName).map((w) => ({ name: w.name, url: w.url, alarmTypes: w.alarmTypes, minSeverity: w.minSeverity })) } : {}),
    tasks: [...file.tasks].sort(byName).map((task) => taskWithoutDefaults(shown.secretValues ? task : (redact(task) as FileTask), tenantId)),
    dependencies: [...file.dependencies].sort(byEdge).map((d) => ({
      parent: d.parent,
      child: d.child,
      condition: d.condition,
      ...(d.approval ? { approval: { role: d.approval.role, users: d.approval.users, timeoutMs: d.approval.timeoutMs, onTimeout: d.approval.onTimeout } } : {}),
    })),
  };
  const header = `# Baton tasks as code: tenant "${tenantId}". Check with \`baton plan -f <file>\`, apply with \`baton apply -f <file>\`.\n# Schema: /api/config/schema (docs/tasks-as-code.schema.json)\n${shown.webhooks ? '' : '# Webhooks: not shown (a TENANT_ADMIN\'s export lists them); applied with --prune, this file would delete them.\n'}${shown.secretValues ? '' : `# Secret-named values (passwords, tokens, keys…): shown as ${REDACTED} (a TENANT_ADMIN's export shows them).\n`}`;
  return header + stringify(ordered, { lineWidth: 0, aliasDuplicateObjects: false });
}

/**
 * Reads a file (its YAML parsed: parseConfigYaml) as a tenant's desired state: every problem at
 * once, each naming its place (`tasks[3].trigger.expression`), or the file with defaults filled in
 * and cron spellings made canonical — the form Baton stores, so an unchanged task diffs as unchanged.
 */
export function readConfigFile(raw: unknown, tenantId: string): { file: ConfigFile; errors: [] } | { file: null; errors: FieldError[] } {
  if (!isObject(raw)) return { file: null, errors: [{ field: 'file', reason: 'must be a YAML mapping with version, tasks, …' }] };
  const errors: FieldError[] = [];
  for (const key of Object.keys(raw)) if (!TOP_KEYS.includes(key)) errors.push({ field: key, reason: `unknown key (expected ${TOP_KEYS.join(', ')})` });
  if (raw.version !== CONFIG_FILE_VERSION) errors.push({ field: 'version', reason: `must be ${CONFIG_FILE_VERSION}` });
  const list = (key: string): unknown[] => {
    const value = raw[key];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) return refuse(errors, { field: key, reason: 'must be a list' });
    return value;
  };
  const retention = readRetention(raw.retention, errors);
  // Each list read once: a key that is not a list is one error.
  const [calendarItems, webhookItems, taskItems, dependencyItems] = [list('calendars'), list('webhooks'), list('tasks'), list('dependencies')];
  const calendars = calendarItems.flatMap((c, i) => readCalendar(c, `calendars[${i}]`, errors));
  const webhooks = webhookItems.flatMap((w, i) => readWebhook(w, `webhooks[${i}]`, errors));
  const tasks = taskItems.flatMap((t, i) => readTask(t, `tasks[${i}]`, tenantId, errors));
  const dependencies = dependencyItems.flatMap((d, i) => readDependency(d, `dependencies[${i}]`, errors));
  // By the items as written, so a repeat is named by its own place in the file.
  const nameOf = (item: unknown) => (isObject(item) && typeof item.name === 'string' ? item.name : null);
  unique(calendarItems.map(nameOf), 'calendars', errors);
  // A webhook's name is stored trimmed (as POST /api/webhooks stores it): "hook" and "hook " are one channel.
  unique(webhookItems.map((w) => nameOf(w)?.trim() ?? null), 'webhooks', errors);
  unique(taskItems.map(nameOf), 'tasks', errors);
  unique(dependencyItems.map((d) => (isObject(d) ? `${String(d.parent)} → ${String(d.child)}` : null)), 'dependencies', errors);
  if (errors.length > 0) return { file: null, errors };
  return { file: { version: CONFIG_FILE_VERSION, retention, calendars, webhooks, tasks, dependencies }, errors: [] };
}

/** Adds `problems` to `errors`; answers nothing read. */
function refuse(errors: FieldError[], ...problems: FieldError[]): [] {
  errors.push(...problems);
  return [];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unique(names: Array<string | null>, list: string, errors: FieldError[]): void {
  const seen = new Map<string, number>();
  names.forEach((name, i) => {
    if (name === null) return;
    const first = seen.get(name);
    if (first !== undefined) errors.push({ field: `${list}[${i}]`, reason: `"${name}" is also ${list}[${first}]` });
    else seen.set(name, i);
  });
}

function unknownKeys(value: Record<string, unknown>, allowed: readonly string[], at: string, errors: FieldError[]): void {
  for (const key of Object.keys(value)) if (!allowed.includes(key)) errors.push({ field: `${at}.${key}`, reason: 'unknown field (not allowed)' });
}

function readRetention(value: unknown, errors: FieldError[]): FileRetention | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) {
    errors.push({ field: 'retention', reason: 'must be a mapping of runsMs, logsMs, alarmsMs, minRunsKept' });
    return null;
  }
  unknownKeys(value, RETENTION_KEYS, 'retention', errors);
  // Ranges are the retention ceiling's business: the service checks them against the cluster's.
  return Object.fromEntries(RETENTION_KEYS.map((k) => [k, value[k] ?? null])) as unknown as FileRetention;
}

function readCalendar(value: unknown, at: string, errors: FieldError[]): FileCalendar[] {
  const problems = validateCalendar(value).map((e) => ({ field: e.field === '' ? at : `${at}.${e.field}`, reason: e.reason }));
  if (isObject(value)) unknownKeys(value, ['name', 'timeZone', 'dates'], at, problems);
  if (problems.length > 0) return refuse(errors, ...problems);
  const c = value as { name: string; timeZone: string; dates: string[] };
  return [{ name: c.name, timeZone: canonicalTimeZone(c.timeZone) as string, dates: [...new Set(c.dates)].sort() }];
}

function readWebhook(value: unknown, at: string, errors: FieldError[]): FileWebhook[] {
  if (!isObject(value)) return refuse(errors, { field: at, reason: 'must be a mapping' });
  const problems: FieldError[] = [];
  unknownKeys(value, ['name', 'url', 'alarmTypes', 'minSeverity'], at, problems);
  const { name, url } = value;
  const nameRefused = displayNameProblem(name, WEBHOOK_NAME_MAX_LENGTH);
  if (nameRefused !== null) problems.push({ field: `${at}.name`, reason: nameRefused });
  if (typeof url !== 'string') problems.push({ field: `${at}.url`, reason: 'must be an http(s) URL' });
  const types = value.alarmTypes ?? null;
  if (types !== null && (!Array.isArray(types) || types.length === 0 || types.some((t) => !(WEBHOOK_EVENT_TYPES as readonly unknown[]).includes(t)))) {
    problems.push({ field: `${at}.alarmTypes`, reason: `must be null or a non-empty list of ${WEBHOOK_EVENT_TYPES.join(', ')}` });
  }
  const minSeverity = value.minSeverity ?? 'WARNING';
  if (!(SEVERITIES as readonly unknown[]).includes(minSeverity)) problems.push({ field: `${at}.minSeverity`, reason: `must be one of ${SEVERITIES.join(', ')}` });
  if (problems.length > 0) return refuse(errors, ...problems);
  return [{ name: (name as string).trim(), url: url as string, alarmTypes: types === null ? null : [...new Set(types as WebhookEventType[])], minSeverity: minSeverity as Severity }];
}

function readTask(value: unknown, at: string, tenantId: string, errors: FieldError[]): FileTask[] {
  const problems = validateTask(value as TaskInput);
  // The tenant is the caller's, as in POST /api/tasks, which refuses the field the same way (it was ignored).
  if (isObject(value) && 'tenantId' in value) problems.push({ field: 'tenantId', reason: 'unknown field (not allowed)' });
  if (problems.length > 0) return refuse(errors, ...problems.map((e) => ({ field: e.field ? `${at}.${e.field}` : at, reason: e.reason })));
  return [fileTask(canonical(withTaskDefaults(value as TaskInput, tenantId)))];
}

function readDependency(value: unknown, at: string, errors: FieldError[]): FileDependency[] {
  if (!isObject(value)) return refuse(errors, { field: at, reason: 'must be a mapping of parent, child, condition, approval' });
  const problems: FieldError[] = [];
  unknownKeys(value, ['parent', 'child', 'condition', 'approval'], at, problems);
  for (const end of ['parent', 'child'] as const) if (typeof value[end] !== 'string' || value[end] === '') problems.push({ field: `${at}.${end}`, reason: 'must name a task' });
  const condition = value.condition ?? 'ON_SUCCESS';
  if (!(DEPENDENCY_CONDITIONS as readonly unknown[]).includes(condition)) problems.push({ field: `${at}.condition`, reason: `must be one of ${DEPENDENCY_CONDITIONS.join(', ')}` });
  const approval = value.approval === undefined || value.approval === null ? null : readApprovalGate(value.approval);
  if (approval?.gate === null) problems.push(...approval.errors.map((e) => ({ field: e.field ? `${at}.approval.${e.field}` : `${at}.approval`, reason: e.reason })));
  if (problems.length > 0) return refuse(errors, ...problems);
  return [{ parent: value.parent as string, child: value.child as string, condition: condition as DependencyCondition, approval: approval?.gate ?? null }];
}
