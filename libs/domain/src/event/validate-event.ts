import { MAX_PARAMS_BYTES } from '../types';
import type { FieldError } from '../validation/field-error';
import { isPlainObject } from '../validation/field-error';
import { isExistsTest } from './event-match';
import { jsonPathProblem } from './json-path';

/**
 * An event's name: 1 to 100 characters of A-Z a-z 0-9 `. _ - :`, starting with a letter or digit
 * (`order.paid`, `customer:updated`, `billing.invoice-sent`). Names are matched exactly (case too).
 */
export const MAX_EVENT_NAME_LENGTH = 100;
export const EVENT_NAME_PATTERN = new RegExp(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,${MAX_EVENT_NAME_LENGTH - 1}}$`);
export const EVENT_NAME_RULE = `must be 1 to ${MAX_EVENT_NAME_LENGTH} characters of A-Z a-z 0-9 . _ - : starting with a letter or digit`;
/** Largest payload, serialised as JSON: a payload may become a run's params whole, so it has their bound. */
export const MAX_EVENT_PAYLOAD_BYTES = MAX_PARAMS_BYTES;
/** Most entries of an EVENT trigger's filter, and of its params projection. */
export const MAX_EVENT_FILTER_ENTRIES = 20;
/** Longest name of a param an EVENT trigger's projection fills. */
export const MAX_PROJECTED_PARAM_NAME = 100;

/** Why `name` is not an event name, or null. */
export function eventNameProblem(name: unknown): string | null {
  return typeof name === 'string' && EVENT_NAME_PATTERN.test(name) ? null : EVENT_NAME_RULE;
}

/** Every problem of an EVENT trigger's own fields (`event`, `filter`, `params`), named under `trigger.`. */
export function eventTriggerProblems(trigger: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  const name = eventNameProblem(trigger.event);
  if (name) errors.push({ field: 'trigger.event', reason: name });
  const filter = trigger.filter;
  if (filter !== undefined) {
    if (!isPlainObject(filter)) errors.push({ field: 'trigger.filter', reason: 'must be an object of JSON path: value or { "exists": true|false }' });
    else {
      if (Object.keys(filter).length > MAX_EVENT_FILTER_ENTRIES) errors.push({ field: 'trigger.filter', reason: `must have at most ${MAX_EVENT_FILTER_ENTRIES} entries` });
      for (const [path, want] of Object.entries(filter)) {
        const pathProblem = jsonPathProblem(path);
        if (pathProblem) errors.push({ field: `trigger.filter.${path}`, reason: `is not a path: ${pathProblem}` });
        else if (!isScalar(want) && !isExistsTest(want)) errors.push({ field: `trigger.filter.${path}`, reason: 'must be a string, number, boolean, null or { "exists": true|false }' });
      }
    }
  }
  const params = trigger.params;
  if (params !== undefined && params !== null) {
    if (!isPlainObject(params) || Object.keys(params).length === 0) errors.push({ field: 'trigger.params', reason: 'must be null (the whole payload) or an object of param name: JSON path' });
    else {
      if (Object.keys(params).length > MAX_EVENT_FILTER_ENTRIES) errors.push({ field: 'trigger.params', reason: `must have at most ${MAX_EVENT_FILTER_ENTRIES} entries` });
      for (const [param, path] of Object.entries(params)) {
        // A run's param is named: an empty name (`{"": "a"}`) would give the handler a param no schema can describe.
        if (param.length === 0 || param.length > MAX_PROJECTED_PARAM_NAME) {
          errors.push({ field: 'trigger.params', reason: `each param name must be 1 to ${MAX_PROJECTED_PARAM_NAME} characters` });
          continue;
        }
        const pathProblem = jsonPathProblem(path);
        if (pathProblem) errors.push({ field: `trigger.params.${param}`, reason: pathProblem });
      }
    }
  }
  return errors;
}

function isScalar(value: unknown): boolean {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}
