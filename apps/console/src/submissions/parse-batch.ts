import type { FieldError } from '@baton/domain';
import { MAX_BATCH_SUBMISSIONS, type Submission } from './submission';

const FIELDS = new Set(['taskId', 'params', 'flowParams', 'idempotencyKey']);

/**
 * The body of POST /api/runs/batch as submissions, or every problem of its shape at once, each
 * naming its item (`runs[3].taskId`). What a submission's params, flow params and key must be
 * is checked with the run (SubmissionsService), as for a trigger.
 */
export function parseBatch(body: { runs?: unknown; atomic?: unknown }): { submissions: Submission[]; atomic: boolean } | { errors: FieldError[] } {
  const errors: FieldError[] = [];
  if (body.atomic !== undefined && typeof body.atomic !== 'boolean') errors.push({ field: 'atomic', reason: 'must be a boolean' });
  const runs = body.runs;
  if (!Array.isArray(runs) || runs.length === 0 || runs.length > MAX_BATCH_SUBMISSIONS) {
    errors.push({ field: 'runs', reason: `must be an array of 1 to ${MAX_BATCH_SUBMISSIONS} submissions` });
    return { errors };
  }
  const submissions: Submission[] = [];
  runs.forEach((item: unknown, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return void errors.push({ field: `runs[${i}]`, reason: 'must be an object' });
    const fields = item as Record<string, unknown>;
    for (const key of Object.keys(fields)) if (!FIELDS.has(key)) errors.push({ field: `runs[${i}].${key}`, reason: 'is not a field of a submission' });
    const { taskId, params, flowParams, idempotencyKey } = fields;
    if (typeof taskId !== 'number' || !Number.isSafeInteger(taskId) || taskId < 1) errors.push({ field: `runs[${i}].taskId`, reason: 'must be a task id (a positive integer)' });
    if (idempotencyKey !== undefined && typeof idempotencyKey !== 'string') errors.push({ field: `runs[${i}].idempotencyKey`, reason: 'must be a string' });
    submissions.push({ taskId: taskId as number, params, flowParams, idempotencyKey: idempotencyKey as string | undefined });
  });
  return errors.length > 0 ? { errors } : { submissions, atomic: body.atomic === true };
}
