/**
 * The SET part a cancel writes beside its finished_at (`now`): a run sent ahead has its dispatched
 * and accepted times at its instant (the executor starts it then), so cancelled before that
 * instant it showed a handover in the future and its end before it. The instant never came: those
 * stamps become the cancel's time, by which the run had surely been handed over. Earlier stamps,
 * and none (NULL), stay as they are. Parameters: `stampsByCancelParams(now)`.
 */
export const STAMPS_BY_CANCEL =
  'dispatched_at = CASE WHEN dispatched_at > ? THEN ? ELSE dispatched_at END, accepted_at = CASE WHEN accepted_at > ? THEN ? ELSE accepted_at END';

export function stampsByCancelParams(now: number): number[] {
  return [now, now, now, now];
}
