import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { createConnection, type Connection } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { acquireLivenessLock, dialectOf } from '@baton/persistence';
import { ENGINE_CONFIG, EngineConfig } from '../config/engine-config';

/** After losing its session (database restart, network), the lock is taken again after this, doubling up to RECONNECT_MAX_MS. */
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 5_000;

/**
 * This engine's liveness lock (engine-liveness-locks.ts): a named lock held on a database
 * connection of its own — outside the pool, which recycles connections — from before the node
 * registers UP until after it is marked DOWN. MySQL/MariaDB only; on SQLite `supported` is false
 * and survivors go by heartbeats alone.
 *
 * When the session ends without the process ending (database restart, a network cut), the lock
 * is gone and survivors may take this node over; the lock is taken again as soon as the database
 * answers, and the node's heartbeat re-registers it if it was declared DOWN meanwhile.
 */
@Injectable()
export class LivenessLock implements OnApplicationShutdown {
  private readonly logger = new Logger('LivenessLock');
  private connection: Connection | null = null;
  private sessionValue: number | null = null;
  private sessions = 0;
  private stopped = true;
  private retry: NodeJS.Timeout | null = null;

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

  /**
   * Takes the lock; false when another live session holds it (an engine with this node id runs
   * elsewhere). Resolves true at once where locks are not supported.
   */
  async acquire(): Promise<boolean> {
    if (!this.supported) return true;
    this.stopped = false;
    const connection = await this.connect();
    if (!(await acquireLivenessLock(connection, this.config.nodeId))) {
      await connection.end().catch(() => undefined);
      return false;
    }
    this.hold(connection);
    return true;
  }

  /** Ends the session, which frees the lock: once the node is marked DOWN. Idempotent. */
  async release(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    const connection = this.connection;
    this.connection = null;
    this.sessionValue = null;
    await connection?.end().catch(() => connection.destroy());
  }

  /** A host that closes without a graceful engine stop still ends the session. */
  onApplicationShutdown(): Promise<void> {
    return this.release();
  }

  private async connect(): Promise<Connection> {
    const url = (this.dataSource.options as { url?: string }).url;
    if (!url) throw new Error('liveness lock: the data source has no url to open a connection of its own with');
    return createConnection({ uri: url, enableKeepAlive: true, keepAliveInitialDelay: 1_000 });
  }

  private hold(connection: Connection): void {
    this.connection = connection;
    this.sessionValue = ++this.sessions;
    const lost = (err?: Error) => {
      if (this.connection !== connection) return;
      this.connection = null;
      this.sessionValue = null;
      if (this.stopped) return;
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
      const connection = await this.connect();
      if (this.stopped || !(await acquireLivenessLock(connection, this.config.nodeId))) {
        await connection.end().catch(() => undefined);
        if (!this.stopped) this.logger.error('liveness lock held by another session: is a second engine running with this node id?', { nodeId: this.config.nodeId });
        if (!this.stopped) this.scheduleRetake(RECONNECT_MAX_MS);
        return;
      }
      this.hold(connection);
      this.logger.log('liveness lock taken again', { nodeId: this.config.nodeId });
    } catch {
      this.scheduleRetake(Math.min(RECONNECT_MAX_MS, lastDelayMs * 2));
    }
  }
}
