import type { EntityManager } from 'typeorm';
import type { ExecutorWire } from '@baton/domain';
import { isUniqueViolation } from '../../errors';
import { execute, num } from '../sql';

export interface ExecutorHeartbeatInput {
  tenantId: string;
  app: string;
  url: string;
  capacity: number;
  /** Queue places beyond the pool (0: not said). */
  queueLimit: number;
  inFlight: number;
  /** The executor protocol it speaks (the heartbeat's protocolVersion; 1 when it does not say). */
  protocolVersion: number;
  /** The handler names it offers. */
  handlers: readonly string[];
  /** JSON schemas of some handlers' params, by name (the heartbeat's handlerSchemas); undefined: none. */
  handlerSchemas?: Record<string, unknown>;
  /** The tenant secret version that verified this heartbeat (see ExecutorEntity.secretVersion). */
  secretVersion: number;
  /** How engines speak to it (default `baton`): `xxl-job` for an executor registered through the XXL-JOB admin API. */
  wire?: ExecutorWire;
  now: number;
}

/**
 * Registers an executor or refreshes it (an upsert on uq_executors_tenant_app_url), and says
 * whether it came back from DOWN:
 *
 *   SELECT id FROM executors WHERE tenant_id = ? AND app = ? AND url = ?
 *   -- none:   INSERT INTO executors (…) VALUES (…, 'UP', now, now, secret_version, handlers, handler_schemas, wire)
 *   -- exists: UPDATE executors SET state = 'UP', capacity = ?, …, heartbeat_at = <later of it and now>, … WHERE id = ? AND state = 'DOWN' AND stopped_at IS NULL
 *   --         (0 rows) UPDATE executors SET state = 'UP', stopped_at = NULL, capacity = ?, …, heartbeat_at = <later of it and now>, … WHERE id = ?
 *   SELECT hand_backs FROM executors WHERE id = ?
 *
 * Why so: the DOWN → UP move is a guarded update, so when an executor that was declared down
 * heartbeats to several engines at once, exactly one of them sees it move and writes the
 * EXECUTOR_UP alarm (in the caller's transaction). Two engines registering a new executor at
 * the same moment: the second INSERT hits the unique key and falls back to the update path.
 * An executor that stopped gracefully (stopped_at set) was not lost: its restart is no
 * EXECUTOR_UP, it comes back by the second update.
 * A portable upsert in two statements, as in register-engine-node.ts.
 * `handBacks` is read after the row's write, so under the row lock it took: a hand-back of its
 * runs sent ahead (bumpExecutorHandBacks, which reads heartbeat_at under the same lock) either
 * committed first — and this heartbeat's ack tells the executor so — or waits for this heartbeat
 * and counts it in the heartbeat_at it reads. Either way no ack leaves that lets the executor start
 * a run an engine handed back (docs/EXECUTOR-PROTOCOL.md, "Runs sent ahead and contact").
 * heartbeat_at never goes back (CASE, not GREATEST: SQLite has none): the heartbeat an engine
 * with a slow database link took seconds ago may land after a later one another engine took —
 * with its `now` it would make the executor look silent, and survivors mark it DOWN (measured:
 * EXECUTOR_DOWN and EXECUTOR_UP twice while one engine's database traffic was delayed 2 s).
 */
/** heartbeat_at set to `now` (two parameters), unless it is already later. */
const LATER_HEARTBEAT = 'heartbeat_at = CASE WHEN heartbeat_at > ? THEN heartbeat_at ELSE ? END';

export async function recordExecutorHeartbeat(manager: EntityManager, input: ExecutorHeartbeatInput): Promise<{ executorId: number; cameBack: boolean; handBacks: number }> {
  const written = await writeHeartbeat(manager, input);
  const { rows } = await execute<{ hand_backs: number | string }>(manager, 'SELECT hand_backs FROM executors WHERE id = ?', [written.executorId]);
  return { ...written, handBacks: rows.length ? num(rows[0].hand_backs) : 0 };
}

async function writeHeartbeat(manager: EntityManager, input: ExecutorHeartbeatInput): Promise<{ executorId: number; cameBack: boolean }> {
  const schemas = input.handlerSchemas === undefined ? null : JSON.stringify(input.handlerSchemas);
  const wire = input.wire ?? 'baton';
  const find = async (): Promise<number | null> => {
    const { rows } = await execute<{ id: number | string }>(manager, 'SELECT id FROM executors WHERE tenant_id = ? AND app = ? AND url = ?', [
      input.tenantId,
      input.app,
      input.url,
    ]);
    return rows.length ? num(rows[0].id) : null;
  };
  let id = await find();
  if (id === null) {
    try {
      await execute(
        manager,
        `INSERT INTO executors (tenant_id, app, url, capacity, queue_limit, in_flight, protocol_version, state, registered_at, heartbeat_at, secret_version, handlers, handler_schemas, wire)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'UP', ?, ?, ?, ?, ?, ?)`,
        [input.tenantId, input.app, input.url, input.capacity, input.queueLimit, input.inFlight, input.protocolVersion, input.now, input.now, input.secretVersion, JSON.stringify(input.handlers), schemas, wire],
      );
      const inserted = await find();
      if (inserted === null) throw new Error('executor row vanished right after its insert');
      return { executorId: inserted, cameBack: false };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      id = await find();
      if (id === null) throw err;
    }
  }
  const revived = await execute(
    manager,
    `UPDATE executors SET state = 'UP', capacity = ?, queue_limit = ?, in_flight = ?, protocol_version = ?, ${LATER_HEARTBEAT}, secret_version = ?, handlers = ?, handler_schemas = ?, wire = ? WHERE id = ? AND state = 'DOWN' AND stopped_at IS NULL`,
    [input.capacity, input.queueLimit, input.inFlight, input.protocolVersion, input.now, input.now, input.secretVersion, JSON.stringify(input.handlers), schemas, wire, id],
  );
  if (revived.affected > 0) return { executorId: id, cameBack: true };
  // Also brings back, quietly, an executor that stopped gracefully (markExecutorStopped): a restart, not an outage ending.
  await execute(manager, `UPDATE executors SET state = 'UP', stopped_at = NULL, capacity = ?, queue_limit = ?, in_flight = ?, protocol_version = ?, ${LATER_HEARTBEAT}, secret_version = ?, handlers = ?, handler_schemas = ?, wire = ? WHERE id = ?`, [
    input.capacity,
    input.queueLimit,
    input.inFlight,
    input.protocolVersion,
    input.now,
    input.now,
    input.secretVersion,
    JSON.stringify(input.handlers),
    schemas,
    wire,
    id,
  ]);
  return { executorId: id, cameBack: false };
}
