import type { LogLine } from '../messages';
import type { XxlLogResult } from './messages';

/** Most lines of an executor's log taken into a run (the engine caps a run's lines too). */
export const MAX_XXL_LOG_LINES = 200;

/**
 * The run's log lines of an XXL-JOB log (/log's logContent: the job's log file, `<br>` marks
 * xxl-job-core writes between its own sections kept as line breaks), level `info`, stamped
 * `at` (the log file carries its own times in each line). The last MAX_XXL_LOG_LINES non-empty lines.
 */
export function xxlLogLines(result: XxlLogResult | null | undefined, at: number): LogLine[] {
  const text = typeof result?.logContent === 'string' ? result.logContent : '';
  const lines = text
    .split(/\r?\n|<br\s*\/?>/i)
    .map((line) => line.trimEnd())
    .filter((line) => line.trim().length > 0);
  return lines.slice(-MAX_XXL_LOG_LINES).map((message) => ({ at, level: 'info', message }));
}
