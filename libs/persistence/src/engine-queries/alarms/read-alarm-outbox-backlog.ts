import type { EntityManager } from 'typeorm';
import { execute, num, numOrNull } from '../sql';

/** Unpublished alarms counted up to here: past it the gauge says "at least this many". */
export const OUTBOX_BACKLOG_CAP = 10_000;

/** The alarm outbox's backlog: alarms not yet published, and when the oldest of them was raised. */
export interface AlarmOutboxBacklog {
  /** Up to OUTBOX_BACKLOG_CAP. */
  pending: number;
  /** raised_at of the oldest pending alarm (epoch ms); null when none is pending. */
  oldestRaisedAt: number | null;
}

/**
 * The outbox's backlog, for the engine's metrics (TenantLoadSampler, every BATON_LOAD_SAMPLE_MS):
 *
 *   SELECT COUNT(*), MIN(raised_at) FROM (SELECT raised_at FROM alarms WHERE published_at IS NULL ORDER BY id LIMIT 10000) o
 *
 * A walk of ix_alarms_outbox (published_at, id) capped at OUTBOX_BACKLOG_CAP rows, as the relay's
 * own read (findOutboxTenants): empty or a few rows when the broker is there, bounded when it has
 * been away long. Ids follow the raising order, so the oldest is among the first rows.
 */
export async function readAlarmOutboxBacklog(manager: EntityManager): Promise<AlarmOutboxBacklog> {
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT COUNT(*) AS pending, MIN(raised_at) AS oldest FROM (SELECT raised_at FROM alarms WHERE published_at IS NULL ORDER BY id LIMIT ${OUTBOX_BACKLOG_CAP}) o`,
  );
  return { pending: num(rows[0]?.pending ?? 0), oldestRaisedAt: numOrNull(rows[0]?.oldest) };
}
