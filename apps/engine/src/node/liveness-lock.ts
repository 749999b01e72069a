import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { createConnection, type Connection } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { acquireLivenessLock, dialectOf, findFreeLivenessLocks, livenessLockServer } from '@baton/persistence';
import { ENGINE_CONFIG, EngineConfig } from '../config/engine-config';

/**
 * After losing its session (database restart, network, a Galera failover), the lock is taken
 * again after this, doubling up to RECONNECT_MAX_MS while the database does not answer: a
 * failover behind a proxy takes a second or two, and claiming waits for the lock.
 */
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 1_000;
/** While another session holds this node id's lock (a second engine with the same id). */
const HELD_ELSEWHERE_RETRY_MS = 5_000;

/**
 * This engine's liveness lock (engine-liveness-locks.ts): a named lock held on a database
 * connection of its own — outside the pool, which recycles connections — from before the node
 * registers UP until after it is marked DOWN. MySQL/MariaDB only; on SQLite `supported` is false
 * and survivors go by heartbeats alone.
 *
 * When the session ends without the process ending (database restart, a network cut, the proxy
 * moving every connection to another Galera node), the lock is gone and survivors may take this
 * node over; the lock is taken again as soon as the database answers, and the node's heartbeat
 * re-registers it if it was declared DOWN meanwhile. Listeners (onChange) hear of both: the
 * engine stops claiming while the lock is lost (WriterFollower).
 */
@Injectable()
export class LivenessLock implements OnApplicationShutdown {
  private readonly logger = new Logger('LivenessLock');
  private connection: Connection | null = null;
  private sessionValue: number | null = null;
  private sessions = 0;
  private stopped = true;
  private retry: NodeJS.Timeout | null = null;
  private serverValue: string | null = null;
  private readonly listeners = new Set<(held: boolean) => void>();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
  ) {}

  get supported(): boolean {
    return dialectOf(this.dataSource.manager) === 'mysql';
  }

  /**
   * Which of this process's sessions holds the lock now (1, 2, … a new one after each loss), or
   * null when it is not held. What another node's lock looked like is worth something only
   * within one session of ours: after a database restart every session is new.
   */
  get session(): number | null {
    return this.sessionValue;
  }

  /** The server the lock is held on (host:port as it names itself), or null when not held. */
  get server(): string | null {
    return this.serverValue;
  }

  /** Calls `listener(true)` each time the lock is taken again after a loss, `listener(false)` each time it is lost. Returns the unsubscribe. */
  onChange(listener: (held: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Of `nodeIds`, those whose liveness lock is free on the server this lock is held on — asked on
   * this lock's own session, so never of another Galera node, where every lock looks free. Null
   * when the lock is not held now.
   */
  async freeAmong(nodeIds: readonly string[]): Promise<string[] | null> {
    const connection = this.connection;
    if (!connection) return null;
    const free = await findFreeLivenessLocks(connection, nodeIds);
    return this.connection === connection ? free : null;
  }

  /**
   * Takes the lock; false when another live session holds it (an engine with this node id runs
   * elsewhere). Resolves true at once where locks are not supported.
   */
  async acquire(): Promise<boolean> {
    if (!this.supported) return true;
    this.stopped = false;
    const { connection, server } = await this.connect();
    if (!(await acquireLivenessLock(connection, this.config.nodeId))) {
      await connection.end().catch(() => undefined);
      return false;
    }
    this.hold(connection, server);
    return true;
  }

  /** Ends the session, which frees the lock: once the node is marked DOWN. Idempotent. */
  async release(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    const connection = this.connection;
    this.connection = null;
    this.sessionValue = null;
    this.serverValue = null;
    await connection?.end().catch(() => connection.destroy());
  }

  /** A host that closes without a graceful engine stop still ends the session. */
  onApplicationShutdown(): Promise<void> {
    return this.release();
  }

  /** A connection of its own, and the server it reached. */
  private async connect(): Promise<{ connection: Connection; server: string }> {
    const url = (this.dataSource.options as { url?: string }).url;
    if (!url) throw new Error('liveness lock: the data source has no url to open a connection of its own with');
    const connection = await createConnection({ uri: url, enableKeepAlive: true, keepAliveInitialDelay: 1_000 });
    try {
      return { connection, server: await livenessLockServer(connection) };
    } catch (err) {
      connection.destroy();
      throw err;
    }
  }

  private hold(connection: Connection, server: string): void {
    this.connection = connection;
    this.serverValue = server;
    this.sessionValue = ++this.sessions;
    const lost = (err?: Error) => {
      if (this.connection !== connection) return;
      this.connection = null;
      this.sessionValue = null;
      this.serverValue = null;
      if (this.stopped) return;
      this.notify(false);
      this.logger.warn(`liveness lock lost with its database session${err ? ` (${err.message})` : ''}: taking it again`, { nodeId: this.config.nodeId });
      this.scheduleRetake(RECONNECT_MIN_MS);
    };
    connection.on('error', lost);
    connection.on('end', () => lost());
  }

  private scheduleRetake(delayMs: number): void {
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.retake(delayMs);
    }, delayMs);
    this.retry.unref();
  }

  private async retake(lastDelayMs: number): Promise<void> {
    if (this.stopped) return;
    try {
      const { connection, server } = await this.connect();
      if (this.stopped || !(await acquireLivenessLock(connection, this.config.nodeId))) {
        await connection.end().catch(() => undefined);
        if (!this.stopped) this.logger.error('liveness lock held by another session: is a second engine running with this node id?', { nodeId: this.config.nodeId });
        if (!this.stopped) this.scheduleRetake(HELD_ELSEWHERE_RETRY_MS);
        return;
      }
      this.hold(connection, server);
      this.logger.log(`liveness lock taken again on ${this.serverValue}`, { nodeId: this.config.nodeId });
      this.notify(true);
    } catch {
      this.scheduleRetake(Math.min(RECONNECT_MAX_MS, lastDelayMs * 2));
    }
  }

  private notify(held: boolean): void {
    for (const listener of this.listeners) listener(held);
  }
}
