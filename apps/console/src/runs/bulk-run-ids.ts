import { badRequest } from '../common/api-error';
import { MAX_BULK_RUNS } from './dto/run.dto';

/**
 * A bulk request's run ids, or a 400 naming each id at fault by its place (`ids[2]: must be a run
 * id …`): class-validator's `each` rules named only `ids` ("each value in ids must be an integer
 * number"), leaving the caller to find which of 500.
 */
export function bulkRunIds(ids: unknown): number[] {
  if (ids === undefined || ids === null) throw badRequest([{ field: 'ids', reason: 'is required' }]);
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > MAX_BULK_RUNS) throw badRequest([{ field: 'ids', reason: `must be an array of 1 to ${MAX_BULK_RUNS} run ids` }]);
  const bad = ids.flatMap((id: unknown, i) => (typeof id === 'number' && Number.isSafeInteger(id) && id >= 1 ? [] : [{ field: `ids[${i}]`, reason: `must be a run id (an integer from 1 to ${Number.MAX_SAFE_INTEGER})` }]));
  if (bad.length > 0) throw badRequest(bad);
  return ids as number[];
}
