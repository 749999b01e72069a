import type { EntityManager } from 'typeorm';
import type { EngineNodeRow } from './register-engine-node';
import { execute, num } from '../sql';

interface Raw {
  id: string;
  groups: string;
  host: string;
  pid: number;
  url: string;
  slots: number;
  started_at: number | string;
  heartbeat_at: number | string;
  state: 'UP' | 'DOWN';
  wake_key: string | null;
}

function toRow(r: Raw): EngineNodeRow {
  return {
    id: r.id,
    groups: r.groups.split(',').filter(Boolean),
    host: r.host,
    pid: num(r.pid),
    url: r.url,
    slots: num(r.slots),
    startedAt: num(r.started_at),
    heartbeatAt: num(r.heartbeat_at),
    state: r.state,
    wakeKey: r.wake_key ?? null,
  };
}

const COLUMNS = 'id, `groups`, host, pid, url, slots, started_at, heartbeat_at, state, wake_key';

/**
 * Nodes that claim to be UP; `heartbeatBefore` keeps only those silent since before that instant
 * (the dead ones). engine_nodes holds one row per engine process ever started — tiny next to
 * runs — so a plain scan is fine and no index is kept for it.
 */
export async function findUpEngineNodes(manager: EntityManager, options: { heartbeatBefore?: number } = {}): Promise<EngineNodeRow[]> {
  const stale = options.heartbeatBefore !== undefined;
  const { rows } = await execute<Raw>(
    manager,
    `SELECT ${COLUMNS} FROM engine_nodes
      WHERE state = 'UP' ${stale ? 'AND heartbeat_at < ?' : ''}
      ORDER BY heartbeat_at, id`,
    stale ? [options.heartbeatBefore] : [],
  );
  return rows.map(toRow);
}

/** One node's row, or null. */
export async function findEngineNode(manager: EntityManager, id: string): Promise<EngineNodeRow | null> {
  const { rows } = await execute<Raw>(manager, `SELECT ${COLUMNS} FROM engine_nodes WHERE id = ?`, [id]);
  return rows.length ? toRow(rows[0]) : null;
}
