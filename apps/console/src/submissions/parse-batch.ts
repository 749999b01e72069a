import type { FieldError } from '@baton/domain';
import { ownValueErrors } from './own-values';
import { MAX_BATCH_SUBMISSIONS, type Submission } from './submission';

const FIELDS = new Set(['taskId', 'params', 'flowParams', 'idempotencyKey']);

/**
 * The body of POST /api/runs/batch as submissions, or every problem of its shape at once, each
 * naming its item (`runs[3].taskId`). What a submission's params, flow params and key must be
 * is checked with the run (SubmissionsService), as for a trigger — and here too when the body is
 * refused whole, so that its answer names them beside the shape's problems.
 *
 * What the answer to a body refused whole cannot name: an unknown task, and params that do not
 * fit their handler's schema. Both need the tenant's tasks and executors, read in the tenant's
 * lane with its writes; a body that is not a batch never reaches the database (a stream of
 * malformed requests costs no read), so they are named in the answer to the corrected body. Nor
 * a field beside `runs` and `atomic`: the validation pipe refuses it before the body gets here,
 * as it refuses any DTO's unknown field.
 */
export function parseBatch(body: { runs?: unknown; atomic?: unknown }): { submissions: Submission[]; atomic: boolean } | { errors: FieldError[] } {
  const errors: FieldError[] = [];
  if (body.atomic !== undefined && typeof body.atomic !== 'boolean') errors.push({ field: 'atomic', reason: 'must be a boolean' });
  const runs = body.runs;
  if (!Array.isArray(runs) || runs.length === 0 || runs.length > MAX_BATCH_SUBMISSIONS) {
    errors.push({ field: 'runs', reason: `must be an array of 1 to ${MAX_BATCH_SUBMISSIONS} submissions` });
    return { errors };
  }
  const items = runs.map((item: unknown, i) => {
    const at = `runs[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return { errors: [{ field: at, reason: 'must be an object' }], submission: null };
    const fields = item as Record<string, unknown>;
    const shape: FieldError[] = [];
    for (const key of Object.keys(fields)) if (!FIELDS.has(key)) shape.push({ field: `${at}.${key}`, reason: 'is not a field of a submission' });
    const { taskId, params, flowParams, idempotencyKey } = fields;
    if (typeof taskId !== 'number' || !Number.isSafeInteger(taskId) || taskId < 1) shape.push({ field: `${at}.taskId`, reason: 'must be a task id (a positive integer)' });
    if (idempotencyKey !== undefined && typeof idempotencyKey !== 'string') shape.push({ field: `${at}.idempotencyKey`, reason: 'must be a string' });
    return { errors: shape, submission: { taskId: taskId as number, params, flowParams, idempotencyKey: idempotencyKey as string | undefined } };
  });
  if (errors.length === 0 && items.every((item) => item.errors.length === 0)) return { submissions: items.map((item) => item.submission!), atomic: body.atomic === true };
  for (const [i, { errors: shape, submission }] of items.entries()) {
    errors.push(...shape);
    // A key that is not a string is named above already.
    if (submission) errors.push(...ownValueErrors({ ...submission, idempotencyKey: typeof submission.idempotencyKey === 'string' ? submission.idempotencyKey : undefined }, `runs[${i}].`).all);
  }
  return { errors };
}
