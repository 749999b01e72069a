import { ALARM_TYPES, SEVERITIES, type Alarm, type StoredAlarm } from '@baton/domain';

/**
 * The alarm as it travels: the JSON body of a message on the topic `<prefix><tenantId>`
 * (default prefix `baton.alarms.`), the payload of the console's socket.io `alarm` event, and
 * what the executor SDK publishes in direct mode. One shape for every producer and consumer;
 * documented as a JSON Schema in ALARM_MESSAGE_JSON_SCHEMA and libs/messaging/README.md.
 *
 * `id` is stable: an alarm published twice (a relay that crashed between publishing and
 * marking, a retried executor callback) carries the same id both times, so consumers drop
 * repeats by it. Engine alarms use the alarm row's `uid`; executor alarms a UUID made by the SDK
 * (the engine records the row under that same uid). The alarm's own fields are the domain's
 * Alarm (`tenantId` always equals the tenant of the topic; `count` is the count when published).
 */
export interface AlarmMessage extends Alarm {
  /** Always ALARM_SCHEMA (`baton.alarm/1`); a consumer ignores schemas it does not know. */
  schema: typeof ALARM_SCHEMA;
  /** Stable, unique id of the alarm (a UUID, at most 64 characters): drop repeats by it. */
  id: string;
  /** Who published it: `engine` (the outbox relay) or `executor` (the SDK, direct to the broker). */
  source: AlarmSource;
}

export type AlarmSource = 'engine' | 'executor';

export const ALARM_SCHEMA = 'baton.alarm/1';

/**
 * A stored alarm's stable id, its `id` on the topic and in socket.io events: the row's uid, or
 * `row-<id>` for rows written before uids existed. Here, not in @baton/domain: the executor SDK's
 * package compiles this file and takes only the domain's types.ts.
 */
export function stableAlarmId(row: Pick<StoredAlarm, 'id' | 'uid'>): string {
  return row.uid ?? `row-${row.id}`;
}

/** The default topic prefix: alarms of tenant `acme` go to `baton.alarms.acme`. */
export const DEFAULT_ALARM_TOPIC_PREFIX = 'baton.alarms.';

/** Most characters of `message` (alarms.message is VARCHAR(1000)). */
export const ALARM_MESSAGE_MAX_CHARS = 1000;

/** Most characters of `id` (alarms.uid is VARCHAR(64)). */
export const ALARM_ID_MAX_CHARS = 64;

/** What an alarm id may look like: a UUID, or any id of letters, digits, `.`, `_`, `:`, `-`. */
export const ALARM_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;

/** An acknowledgement, broadcast to the other console processes on `<ack prefix><tenantId>`. */
export interface AlarmAckMessage {
  schema: typeof ALARM_ACK_SCHEMA;
  /** The acknowledged alarm's stable id (AlarmMessage.id). */
  id: string;
  /** Its row id (the REST API's alarm id). */
  alarmId: number;
  tenantId: string;
  ackedAt: number;
  ackedBy: string;
  /** The console process that took the ack (it has told its own sockets already). */
  origin: string;
}

export const ALARM_ACK_SCHEMA = 'baton.alarm-ack/1';

/** The ack topic prefix that goes with an alarm topic prefix: `baton.alarms.` → `baton.alarms-acks.`. */
export function defaultAckTopicPrefix(alarmTopicPrefix: string): string {
  return `${alarmTopicPrefix.replace(/\.+$/, '')}-acks.`;
}

/**
 * Checks a topic prefix: ActiveMQ's wildcards work on `.`-separated segments, and the consoles
 * subscribe to `<prefix>>` (every tenant), so the prefix must end with a dot.
 */
export function checkTopicPrefix(prefix: string, what = 'alarm topic prefix'): string {
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.$/.test(prefix)) {
    throw new Error(`${what} must be dot-separated words ending with a dot, e.g. "baton.alarms." (got "${prefix}")`);
  }
  return prefix;
}

/** `baton.alarms.` + `acme` → `baton.alarms.acme`. */
export function alarmTopic(prefix: string, tenantId: string): string {
  return `${prefix}${tenantId}`;
}

/** The tenant of a topic name (`baton.alarms.acme` → `acme`), or null when it is not under the prefix. */
export function tenantOfTopic(prefix: string, topic: string): string | null {
  const name = topic.startsWith('/topic/') ? topic.slice('/topic/'.length) : topic;
  if (!name.startsWith(prefix)) return null;
  const tenant = name.slice(prefix.length);
  return tenant.length > 0 ? tenant : null;
}

/** The fields an alarm message is made of (a row of `alarms`, or an executor's alarm). */
export type AlarmFields = Omit<AlarmMessage, 'schema'>;

/** The message for an alarm, truncated to the schema's limits. */
export function buildAlarmMessage(fields: AlarmFields): AlarmMessage {
  return {
    schema: ALARM_SCHEMA,
    id: fields.id,
    tenantId: fields.tenantId,
    type: fields.type,
    severity: fields.severity,
    taskId: fields.taskId,
    runId: fields.runId,
    executorId: fields.executorId,
    message: truncateChars(fields.message, ALARM_MESSAGE_MAX_CHARS),
    data: fields.data ?? null,
    count: Math.max(1, fields.count),
    raisedAt: fields.raisedAt,
    source: fields.source,
  };
}

/**
 * The message of a stored alarm (the engine's outbox relay and webhook sender, the console's
 * catch-up from the database): the row's stable id, published by the engine.
 */
export function alarmMessageOf(row: StoredAlarm): AlarmMessage {
  return buildAlarmMessage({ ...row, id: stableAlarmId(row), source: 'engine' });
}

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

const TYPES: ReadonlySet<string> = new Set(ALARM_TYPES);
const LEVELS: ReadonlySet<string> = new Set(SEVERITIES);

/**
 * Checks that a received payload is an AlarmMessage (what arrives on a topic may come from
 * anything that can publish there). The problem names the first bad field.
 */
export function checkAlarmMessage(value: unknown): Checked<AlarmMessage> {
  if (!isObject(value)) return bad('the body is not a JSON object');
  const v = value;
  if (v.schema !== ALARM_SCHEMA) return bad(`schema must be "${ALARM_SCHEMA}"`);
  if (typeof v.id !== 'string' || !ALARM_ID_PATTERN.test(v.id)) return bad('id must be a string of 1-64 letters, digits, . _ : -');
  if (typeof v.tenantId !== 'string' || v.tenantId.length === 0) return bad('tenantId must be a non-empty string');
  if (typeof v.type !== 'string' || !TYPES.has(v.type)) return bad(`type must be one of ${ALARM_TYPES.join(', ')}`);
  if (typeof v.severity !== 'string' || !LEVELS.has(v.severity)) return bad(`severity must be one of ${SEVERITIES.join(', ')}`);
  for (const key of ['taskId', 'runId', 'executorId'] as const) {
    if (v[key] !== null && !isPositiveInt(v[key])) return bad(`${key} must be a positive integer or null`);
  }
  if (typeof v.message !== 'string') return bad('message must be a string');
  if (!('data' in v)) return bad('data is required (null when none)');
  if (!isPositiveInt(v.count)) return bad('count must be an integer ≥ 1');
  if (!Number.isInteger(v.raisedAt) || (v.raisedAt as number) < 0) return bad('raisedAt must be epoch milliseconds');
  if (v.source !== 'engine' && v.source !== 'executor') return bad('source must be "engine" or "executor"');
  return { ok: true, value: value as unknown as AlarmMessage };
}

/** Checks that a received payload is an AlarmAckMessage. */
export function checkAlarmAck(value: unknown): Checked<AlarmAckMessage> {
  if (!isObject(value)) return bad('the body is not a JSON object');
  const v = value;
  if (v.schema !== ALARM_ACK_SCHEMA) return bad(`schema must be "${ALARM_ACK_SCHEMA}"`);
  if (typeof v.id !== 'string' || !ALARM_ID_PATTERN.test(v.id)) return bad('id must be an alarm id');
  if (!isPositiveInt(v.alarmId)) return bad('alarmId must be a positive integer');
  if (typeof v.tenantId !== 'string' || v.tenantId.length === 0) return bad('tenantId must be a non-empty string');
  if (!Number.isInteger(v.ackedAt)) return bad('ackedAt must be epoch milliseconds');
  if (typeof v.ackedBy !== 'string') return bad('ackedBy must be a string');
  if (typeof v.origin !== 'string') return bad('origin must be a string');
  return { ok: true, value: value as unknown as AlarmAckMessage };
}

function bad<T>(problem: string): Checked<T> {
  return { ok: false, problem };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPositiveInt(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}

function truncateChars(text: string, maxChars: number): string {
  const chars = Array.from(text);
  if (chars.length <= maxChars) return text;
  return chars.slice(0, Math.max(0, maxChars - 1)).join('') + '…';
}

/**
 * The alarm message as a JSON Schema (draft 2020-12): what a consumer that is not Baton's code
 * (a Java or Python service subscribed to the topic) can validate against.
 */
export const ALARM_MESSAGE_JSON_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://baton.dev/schemas/baton.alarm-1.json',
  title: 'Baton alarm (baton.alarm/1)',
  description:
    'One alarm on the topic <prefix><tenantId> (default prefix "baton.alarms."). STOMP headers: content-type ' +
    'application/json;charset=utf-8, baton-alarm-id (= id), baton-tenant (= tenantId). Consumers drop repeats by id.',
  type: 'object',
  additionalProperties: false,
  required: ['schema', 'id', 'tenantId', 'type', 'severity', 'taskId', 'runId', 'executorId', 'message', 'data', 'count', 'raisedAt', 'source'],
  properties: {
    schema: { const: ALARM_SCHEMA },
    id: { type: 'string', pattern: ALARM_ID_PATTERN.source, description: 'Stable unique id; the same on every delivery of this alarm.' },
    tenantId: { type: 'string', minLength: 1, description: 'Equals the tenant of the topic.' },
    type: {
      enum: [...ALARM_TYPES],
      description:
        'START_LATE: not dispatched by its start deadline. TIMEOUT: ran past its timeout (WARNING when retried, CRITICAL when final). ' +
        'FAILED: failed after the last retry. RETRYING: an attempt failed, a retry is scheduled (INFO). EXECUTOR_DOWN / EXECUTOR_UP: ' +
        'an executor stopped / resumed heartbeating. ENGINE_DOWN: an engine node died and its runs were taken over. DISPATCH_REJECTED: ' +
        'every executor refused the run. TASK_PAUSED: the task paused itself after failed runs in a row. BACKLOG_LATE: the tenant\'s oldest due run ' +
        'has waited longer than its threshold (no task). RUN_STARTED_EARLY: the handler started more than 20 ms before the run\'s instant (a defect: ' +
        'a clock or a re-send). CLOCK_SKEW: an engine\'s clock is off the database\'s by more than its bound (no task; it stops claiming beyond the larger bound). APPROVAL_REQUESTED: a run waits for a person\'s approval ' +
        '(data: role, users, deadlineAt, onTimeout; WARNING; never collapsed). BUSINESS: raised by a handler with ctx.alarm().',
    },
    severity: { enum: [...SEVERITIES] },
    taskId: { type: ['integer', 'null'], minimum: 1 },
    runId: { type: ['integer', 'null'], minimum: 1 },
    executorId: { type: ['integer', 'null'], minimum: 1 },
    message: { type: 'string', maxLength: ALARM_MESSAGE_MAX_CHARS },
    data: { description: 'Free-form JSON details, or null.' },
    count: { type: 'integer', minimum: 1, description: "Repeats collapsed into this alarm within the task's silence window, when published." },
    raisedAt: { type: 'integer', minimum: 0, description: 'Epoch milliseconds, UTC.' },
    source: { enum: ['engine', 'executor'], description: 'engine: the outbox relay; executor: the SDK, direct to the broker.' },
  },
} as const;
