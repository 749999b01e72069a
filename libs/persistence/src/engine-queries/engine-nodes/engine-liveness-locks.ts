import { num } from '../sql';

/**
 * An engine's liveness bound to its database session (MySQL/MariaDB; embedded SQLite runs one
 * engine and has no such locks). Each engine holds a named lock on a connection of its own for
 * as long as it lives:
 *
 *   SELECT GET_LOCK(<name of (database, node id)>, 0)
 *
 * The server frees a named lock the moment the session holding it ends — and a killed process's
 * TCP connection is closed by its kernel at once — so a survivor asking
 *
 *   SELECT IS_FREE_LOCK(<name of a>), IS_FREE_LOCK(<name of b>), …
 *
 * learns of a crash within its polling period, where the heartbeat needs engineDeadAfterMs
 * (8 s by default) of silence. The heartbeat stays for what a lock cannot see: a process that
 * lives but stalls, or a network partition that leaves its TCP session half-open.
 */

/**
 * The lock's name, in SQL: named locks are server-wide, so the database's name is part of it
 * (two Baton databases on one server, or parallel test databases, may reuse node ids), and the
 * whole is hashed because MySQL and MariaDB cap names at 64 characters.
 */
const LOCK_NAME = "CONCAT('baton.', LEFT(SHA2(CONCAT(DATABASE(), '/', ?), 256), 40))";

/**
 * Named locks are local to one server — on a Galera cluster, to one node: a lock held on node 1
 * is free on node 2. So an engine asks about the others' locks on the very session that holds
 * its own (findFreeLivenessLocks), and claims only while its pool reaches the server its lock is
 * on (livenessLockServer).
 */

/** A connection to hold the lock on: anything that runs a query (a mysql2 connection, or a manager). */
export interface LockSession {
  query(sql: string, values: unknown[]): Promise<unknown>;
}

/**
 * Takes this node's lock without waiting. True when held: taken now, or already held by this
 * very session (GET_LOCK is re-entrant within a session). False when another session holds it —
 * a live process with the same node id.
 */
export async function acquireLivenessLock(session: LockSession, nodeId: string): Promise<boolean> {
  const result = await session.query(`SELECT GET_LOCK(${LOCK_NAME}, 0) AS got`, [nodeId]);
  return num(firstRow(result)?.got ?? 0) === 1;
}

/**
 * Of `nodeIds`, those whose lock nobody holds on the server `session` is connected to: their
 * process (or at least its database session) is gone. One round trip for all of them. Ask on the
 * session that holds this node's own lock: another server's answer says nothing about the locks
 * taken where this node's lock lives.
 */
export async function findFreeLivenessLocks(session: LockSession, nodeIds: readonly string[]): Promise<string[]> {
  if (nodeIds.length === 0) return [];
  const columns = nodeIds.map((_, i) => `IS_FREE_LOCK(${LOCK_NAME}) AS f${i}`).join(', ');
  const row = firstRow(await session.query(`SELECT ${columns}`, [...nodeIds])) ?? {};
  return nodeIds.filter((_, i) => num(row[`f${i}`] as number) === 1);
}

/**
 * Which server `session` is connected to, as that server names itself (host:port): behind a
 * proxy, the only way to tell whether two connections reached the same Galera node.
 */
export async function livenessLockServer(session: LockSession): Promise<string> {
  const row = firstRow(await session.query("SELECT CONCAT(@@hostname, ':', @@port) AS server", []));
  return String(row?.server ?? '');
}

function firstRow(result: unknown): Record<string, unknown> | undefined {
  // mysql2's promise API answers [rows, fields]; a TypeORM manager answers rows.
  const rows = Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result;
  return Array.isArray(rows) ? (rows[0] as Record<string, unknown> | undefined) : undefined;
}
