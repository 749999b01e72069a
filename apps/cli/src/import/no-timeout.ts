import { MAX_INT32 } from '@baton/domain';

/**
 * The timeoutMs of a task whose job had no timeout (every Quartz job; an XXL-JOB job of
 * executor_timeout 0): Baton's longest. Left out, the task would take Baton's default (5 minutes)
 * and a run longer than that, fine before the move, would end TIMED_OUT after it.
 */
export const NO_TIMEOUT_MS = MAX_INT32;

/** NO_TIMEOUT_MS as the import's notes and docs say it. */
export const NO_TIMEOUT_TEXT = `${NO_TIMEOUT_MS.toLocaleString('en-US')} ms (${(NO_TIMEOUT_MS / 86_400_000).toFixed(1)} days), Baton's longest`;
