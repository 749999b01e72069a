import { ALARM_TYPES, API_KEY_PRINCIPAL_PREFIX, APPROVAL_OUTCOMES, APPROVER_ROLES, CONCURRENCY_POLICIES, DEPENDENCY_CONDITIONS, MAX_APPROVAL_TIMEOUT_MS, MAX_API_KEY_NAME_LENGTH, MAX_APPROVAL_USERS, MAX_USERNAME_LENGTH, MIN_APPROVAL_TIMEOUT_MS, FAN_OUT_FAIL_WHEN, FAN_OUT_MODES, MISFIRE_POLICIES, REPEATED_TIME_POLICIES, SEVERITIES, SKIPPED_TIME_POLICIES, START_LATE_POLICIES, WEBHOOK_EVENT_TYPES, KEY_ON_LIMIT, MAX_DEBOUNCE_WAIT_MS, MAX_KEY_GROUP_LENGTH, MAX_KEY_LIMIT, MAX_KEY_RATE, MIN_KEY_RATE, MAX_THROTTLE_LIMIT, MAX_WINDOW_MS, MIN_WINDOW_MS, THROTTLE_KEEP, JSON_PATH_PATTERN, MAX_JSON_PATH_LENGTH, MAX_IMPORTED_FROM_LENGTH } from '@baton/domain';
import { CONFIG_FILE_VERSION } from './config-file';

const nullable = (schema: object) => ({ oneOf: [schema, { type: 'null' }] });
const int = { type: 'integer' };
const ms = { type: 'integer', minimum: 0, description: 'milliseconds' };
const name = { type: 'string', pattern: '^[A-Za-z0-9._-]{1,100}$' };
/** A key bound's `key`: a JSON path of the run's params, as the domain checks it (jsonPathProblem). */
const keyPath = { type: 'string', pattern: JSON_PATH_PATTERN.source, minLength: 1, maxLength: MAX_JSON_PATH_LENGTH, description: "JSON path of the run's params (customerId)" };
const keyGroup = nullable({ type: 'string', pattern: `^[A-Za-z0-9._-]{1,${MAX_KEY_GROUP_LENGTH}}$`, description: 'a key group of the tenant: the tasks naming it share their keys' });

const trigger = {
  oneOf: [
    { type: 'object', required: ['kind'], additionalProperties: false, properties: { kind: { const: 'MANUAL' } } },
    { type: 'object', required: ['kind', 'intervalMs'], additionalProperties: false, properties: { kind: { const: 'FIXED_RATE' }, intervalMs: { type: 'integer', minimum: 100 } } },
    { type: 'object', required: ['kind', 'delayMs'], additionalProperties: false, properties: { kind: { const: 'FIXED_DELAY' }, delayMs: { type: 'integer', minimum: 100 } } },
    { type: 'object', required: ['kind', 'expression', 'timeZone'], additionalProperties: false, properties: { kind: { const: 'CRON' }, expression: { type: 'string', description: '6 fields (seconds first) or 5' }, timeZone: { type: 'string', description: 'IANA time zone, e.g. Europe/Berlin' }, repeatedTime: { enum: [...REPEATED_TIME_POLICIES], description: 'a local time the clocks repeat: ONCE_LATER (default, as Quartz), ONCE_EARLIER or TWICE' }, skippedTime: { enum: [...SKIPPED_TIME_POLICIES], description: 'a local time the clocks skip: SKIP (default, as Quartz) or FIRE_LATE (at the first instant after the gap)' } } },
    { type: 'object', required: ['kind', 'at'], additionalProperties: false, properties: { kind: { const: 'ONCE' }, at: { type: 'integer', minimum: 0, description: 'epoch ms' } } },
    {
      type: 'object',
      required: ['kind', 'event'],
      additionalProperties: false,
      properties: {
        kind: { const: 'EVENT' },
        event: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$', description: 'the name of the events that start the task' },
        filter: {
          type: 'object',
          maxProperties: 20,
          description: 'JSON path (customer.tier) → the value there (string, number, boolean, null) or { exists: true|false }; every entry must hold. Default {}',
          additionalProperties: { oneOf: [{ type: ['string', 'number', 'boolean', 'null'] }, { type: 'object', required: ['exists'], additionalProperties: false, properties: { exists: { type: 'boolean' } } }] },
        },
        params: nullable({ type: 'object', minProperties: 1, maxProperties: 20, additionalProperties: { type: 'string' }, description: "the run's params: param name → JSON path of the payload. Default null: the whole payload" }),
      },
    },
  ],
};

/**
 * The JSON Schema of the tasks-as-code file, for editors (YAML language servers read it from a
 * `# yaml-language-server: $schema=…` line). The console's own checks (readConfigFile, the
 * domain's validateTask) stay the authority: they also check what a schema cannot (cron syntax,
 * time zones, names that exist, cycles). Served at GET /api/config/schema; committed as
 * docs/tasks-as-code.schema.json (a spec keeps the two equal).
 */
export const CONFIG_FILE_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://baton.dev/schemas/tasks-as-code.schema.json',
  title: 'Baton tasks as code',
  type: 'object',
  required: ['version'],
  additionalProperties: false,
  properties: {
    version: { const: CONFIG_FILE_VERSION },
    retention: {
      type: 'object',
      additionalProperties: false,
      description: "The tenant's history retention; null fields take the cluster's ceiling. Absent: left alone",
      properties: { runsMs: nullable(ms), logsMs: nullable(ms), alarmsMs: nullable(ms), minRunsKept: nullable(int) },
    },
    calendars: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'timeZone', 'dates'],
        additionalProperties: false,
        properties: { name, timeZone: { type: 'string' }, dates: { type: 'array', items: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' } } },
      },
    },
    webhooks: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'url'],
        additionalProperties: false,
        description: 'An alarm webhook; its signing secret is never in the file (Baton makes it; rotate it in the console)',
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 100 },
          url: { type: 'string', format: 'uri' },
          alarmTypes: nullable({ type: 'array', minItems: 1, items: { enum: [...WEBHOOK_EVENT_TYPES] } }),
          minSeverity: { enum: [...SEVERITIES], default: 'WARNING' },
        },
      },
    },
    tasks: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'executorApp', 'handler', 'trigger'],
        additionalProperties: false,
        properties: {
          name,
          group: { ...name, default: 'default' },
          executorApp: { type: 'string' },
          handler: { type: 'string' },
          params: { description: "Handler params: any JSON value, ≤ 64 000 bytes. Written as they are: an admin's export and an import hold secret-named values (password, apiToken…) in clear", default: {} },
          trigger,
          startAt: nullable(int),
          endAt: nullable(int),
          maxFires: nullable({ type: 'integer', minimum: 1 }),
          misfirePolicy: { enum: [...MISFIRE_POLICIES], default: 'FIRE_ONCE_NOW' },
          misfireThresholdMs: ms,
          priority: { type: 'integer', minimum: -100, maximum: 100, default: 0 },
          concurrencyPolicy: { enum: [...CONCURRENCY_POLICIES], default: 'ALLOW' },
          timeoutMs: ms,
          startDeadlineMs: ms,
          onStartLate: { enum: [...START_LATE_POLICIES], default: 'ALARM', description: 'a run not sent within startDeadlineMs: ALARM (START_LATE, it waits on) or GIVE_UP (it ends FAILED)' },
          retry: { type: 'object', additionalProperties: false, properties: { maxAttempts: { type: 'integer', minimum: 1 }, backoffBaseMs: ms, backoffMaxMs: ms, jitter: { type: 'number', minimum: 0, maximum: 1 } } },
          calendarName: nullable({ type: 'string' }),
          alarms: { type: 'object', additionalProperties: false, properties: { types: { type: 'array', items: { enum: [...ALARM_TYPES] } }, silenceMs: ms } },
          paused: { type: 'boolean', default: false },
          pauseAfterFailures: nullable({ type: 'integer', minimum: 1 }),
          importedFrom: nullable({ type: 'string', minLength: 1, maxLength: MAX_IMPORTED_FROM_LENGTH, description: 'the item of another scheduler the task was imported from (baton import writes it); a file creating a task of the same one as a task kept beside it is refused (it would fire twice)' }),
          fanOut: { type: 'object', additionalProperties: false, properties: { mode: { enum: [...FAN_OUT_MODES] }, shards: nullable({ type: 'integer', minimum: 1, maximum: 1000 }), failWhen: { enum: [...FAN_OUT_FAIL_WHEN] } } },
          concurrency: nullable({
            type: 'object',
            required: ['key', 'limit'],
            additionalProperties: false,
            properties: { key: keyPath, limit: { type: 'integer', minimum: 1, maximum: MAX_KEY_LIMIT }, onLimit: { enum: [...KEY_ON_LIMIT] }, group: keyGroup },
          }),
          rateLimit: nullable({
            type: 'object',
            required: ['key', 'perSecond'],
            additionalProperties: false,
            properties: { key: keyPath, perSecond: { type: 'number', minimum: MIN_KEY_RATE, maximum: MAX_KEY_RATE }, burst: { type: 'integer', minimum: 1, maximum: MAX_KEY_RATE }, group: keyGroup },
          }),
          debounce: nullable({
            type: 'object',
            required: ['key', 'quietMs'],
            additionalProperties: false,
            properties: {
              key: keyPath,
              quietMs: { type: 'integer', minimum: MIN_WINDOW_MS, maximum: MAX_WINDOW_MS },
              maxWaitMs: { type: 'integer', minimum: MIN_WINDOW_MS, maximum: MAX_DEBOUNCE_WAIT_MS, description: 'at least quietMs; default 10 × quietMs' },
            },
          }),
          throttle: nullable({
            type: 'object',
            required: ['key', 'limit', 'periodMs'],
            additionalProperties: false,
            properties: {
              key: keyPath,
              limit: { type: 'integer', minimum: 1, maximum: MAX_THROTTLE_LIMIT },
              periodMs: { type: 'integer', minimum: MIN_WINDOW_MS, maximum: MAX_WINDOW_MS },
              keep: { enum: [...THROTTLE_KEEP], default: 'LAST' },
            },
          }),
        },
      },
    },
    dependencies: {
      type: 'array',
      items: {
        type: 'object',
        required: ['parent', 'child'],
        additionalProperties: false,
        properties: {
          parent: { type: 'string' },
          child: { type: 'string' },
          condition: { enum: [...DEPENDENCY_CONDITIONS], default: 'ON_SUCCESS' },
          approval: nullable({
            type: 'object',
            additionalProperties: false,
            description: "An approval step: the child's run waits for a decision of `role` (or above) or of one of `users`, or `onTimeout` after `timeoutMs`",
            properties: {
              role: nullable({ enum: [...APPROVER_ROLES] }),
              users: {
                type: 'array',
                maxItems: MAX_APPROVAL_USERS,
                items: { type: 'string', minLength: 1, maxLength: API_KEY_PRINCIPAL_PREFIX.length + MAX_API_KEY_NAME_LENGTH, description: `a username (1 to ${MAX_USERNAME_LENGTH} characters) or ${API_KEY_PRINCIPAL_PREFIX}<an API key's name of 1 to ${MAX_API_KEY_NAME_LENGTH} characters>` },
                default: [],
              },
              timeoutMs: { type: 'integer', minimum: MIN_APPROVAL_TIMEOUT_MS, maximum: MAX_APPROVAL_TIMEOUT_MS, default: 86_400_000 },
              onTimeout: { enum: [...APPROVAL_OUTCOMES], default: 'REJECT' },
            },
          }),
        },
      },
    },
  },
} as const;
