import type { EntityManager } from 'typeorm';
import { chunks, execute, num } from '../sql';

export interface RunLogLine {
  at: number;
  level: string;
  message: string;
}

/**
 * Appends a callback's log lines to run_logs, keeping at most `maxPerRun` lines per run:
 *
 *   SELECT COUNT(*) AS n FROM run_logs WHERE run_id = ?           (ix_run_logs_run: an index range)
 *   INSERT INTO run_logs (tenant_id, run_id, attempt, at, level, message) VALUES (…), (…)
 *
 * The cap bounds what one chatty (or hostile) handler can write into a shared database; the
 * lines beyond it are dropped and one line says how many. Lines are already truncated by the
 * caller. Returns the number of lines stored (the marker included).
 */
export async function appendRunLogs(
  manager: EntityManager,
  input: { tenantId: string; runId: number; attempt: number; lines: readonly RunLogLine[]; maxPerRun: number; now: number },
): Promise<number> {
  if (input.lines.length === 0) return 0;
  const { rows } = await execute<{ n: number | string }>(manager, 'SELECT COUNT(*) AS n FROM run_logs WHERE run_id = ?', [input.runId]);
  const room = Math.max(0, input.maxPerRun - num(rows[0]?.n ?? 0));
  if (room === 0) return 0;
  let lines: RunLogLine[] = [...input.lines];
  if (lines.length > room) {
    const dropped = lines.length - (room - 1);
    lines = lines.slice(0, room - 1);
    lines.push({ at: input.now, level: 'warn', message: `[baton] ${dropped} log line(s) dropped: the run reached its cap of ${input.maxPerRun} lines` });
  }
  for (const chunk of chunks(lines)) {
    await execute(
      manager,
      `INSERT INTO run_logs (tenant_id, run_id, attempt, at, level, message) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
      chunk.flatMap((l) => [input.tenantId, input.runId, input.attempt, l.at, l.level, l.message]),
    );
  }
  return lines.length;
}
