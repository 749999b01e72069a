import { paramsProblem } from '@baton/domain';

/**
 * Why a task's params cannot be imported (larger than Baton's MAX_PARAMS_BYTES as JSON, say), or
 * null. Checked at import, where the item is listed as not imported: written to the file, the
 * task would have the whole file refused at plan and apply (all or nothing), every other one with it.
 */
export function paramsLimitProblem(params: unknown): string | null {
  if (params === undefined) return null;
  const problem = paramsProblem(params);
  return problem === null ? null : `params ${problem.reason} (a task's params; plan and apply would refuse the whole file with it)`;
}
