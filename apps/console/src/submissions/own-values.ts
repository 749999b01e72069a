import { paramsProblem, type FieldError } from '@baton/domain';
import { IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_KEY_RULE, type Submission } from './submission';

/**
 * What is wrong with a submission's own values, judged without its task: the shape of its params
 * (size, depth, reserved keys) and flow params, the form of its idempotency key; each naming its
 * field under `prefix` (`runs[3].`), the key by `keyField` where it came from (a trigger's
 * header). `params` apart: params of a wrong shape are not checked against their handler's schema.
 */
export function ownValueErrors(
  submission: Pick<Submission, 'params' | 'flowParams' | 'idempotencyKey'>,
  prefix: string,
  keyField = `${prefix}idempotencyKey`,
): { params: FieldError | null; all: FieldError[] } {
  const params = submission.params === undefined ? null : paramsProblem(submission.params, `${prefix}params`);
  const flowParams = submission.flowParams === undefined ? null : paramsProblem(submission.flowParams, `${prefix}flowParams`);
  const key = submission.idempotencyKey;
  const keyProblem = key !== undefined && (typeof key !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(key)) ? { field: keyField, reason: IDEMPOTENCY_KEY_RULE } : null;
  return { params, all: [params, flowParams, keyProblem].filter((e): e is FieldError => e !== null) };
}

/** The reason naming a submission's task the tenant has not (or no longer has). */
export const NOT_A_TASK = 'is not a task of this tenant';
