import { CycleError } from '@baton/domain';
import { conflict, type ApiError } from '../common/api-error';

/**
 * 409 DEPENDENCY_CYCLE: `cycle` (the task names along it, the first repeated at the end) and the
 * field of the edge that closes it (`childTaskId` of POST /api/dependencies, `dependencies[4]` of a
 * tasks-as-code file), so a client or the CLI shows which of the edges it sent to drop.
 */
export function cycleRefusal(cycle: readonly string[], field: string): ApiError {
  const error = new CycleError(cycle);
  return conflict(error.message, [{ field, reason: `closes the cycle ${cycle.join(' → ')}` }], { code: error.code, cycle: [...cycle] });
}
