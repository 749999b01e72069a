import type { EntityManager } from 'typeorm';
import { execute } from '../sql';

export interface EngineNodeRow {
  id: string;
  /** Engine groups served. */
  groups: string[];
  host: string;
  pid: number;
  url: string;
  slots: number;
  startedAt: number;
  heartbeatAt: number;
  state: 'UP' | 'DOWN';
  /** The key the console signs this node's wake-up rows with (engine_nodes.wake_key; a secret); null: it takes run ids only. */
  wakeKey: string | null;
}

/**
 * Puts this engine's row in engine_nodes, UP, heartbeat now. An UPDATE first, then an INSERT
 * when no row matched: a node id can come back (BATON_ENGINE_ID fixed across restarts), and
 * the portable upsert is this pair (the caller runs it in a transaction and has checked, under
 * the same transaction, that the id is not held by a live process).
 */
export async function registerEngineNode(manager: EntityManager, node: Omit<EngineNodeRow, 'state' | 'wakeKey'> & { wakeKey?: string | null }): Promise<void> {
  const groups = node.groups.join(',');
  const updated = await execute(
    manager,
    `UPDATE engine_nodes
        SET \`groups\` = ?, host = ?, pid = ?, url = ?, slots = ?, started_at = ?, heartbeat_at = ?, state = 'UP', wake_key = ?
      WHERE id = ?`,
    [groups, node.host, node.pid, node.url, node.slots, node.startedAt, node.heartbeatAt, node.wakeKey ?? null, node.id],
  );
  if (updated.affected > 0) return;
  await execute(
    manager,
    `INSERT INTO engine_nodes (id, \`groups\`, host, pid, url, slots, started_at, heartbeat_at, state, wake_key)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'UP', ?)`,
    [node.id, groups, node.host, node.pid, node.url, node.slots, node.startedAt, node.heartbeatAt, node.wakeKey ?? null],
  );
}
