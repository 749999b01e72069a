import { hostname } from 'node:os';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, Clock } from '@baton/domain';
import {
  findEngineNode,
  findUpEngineNodes,
  heartbeatEngineNode,
  inTransaction,
  insertMissingEngineGroup,
  markEngineNodeDown,
  registerEngineNode,
} from '@baton/persistence';
import type { EngineNodeRow } from '@baton/persistence';
import { NodeLiveness } from '../common/node-liveness';
import { WokenRows } from '../common/woken-rows';
import { ENGINE_CONFIG, EngineConfig } from '../config/engine-config';
import { EngineAlreadyRunningError } from './engine-already-running-error';
import { LivenessLock } from './liveness-lock';
import { provablyDead } from './process-liveness';

/**
 * This node's row in engine_nodes: registered UP at start, heartbeat every heartbeatMs (the
 * survivors' evidence that it lives), DOWN on graceful shutdown.
 */
@Injectable()
export class EngineNodeService {
  private readonly logger = new Logger('EngineNode');
  private registered: EngineNodeRow | null = null;
  private lastHeartbeatAt: number | null = null;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    readonly lock: LivenessLock,
    private readonly liveness: NodeLiveness,
    /** Whose key the node registers (engine_nodes.wake_key); absent (a test's node), it registers none and is woken by run ids only. */
    @Optional() private readonly woken?: WokenRows,
  ) {}

  /** Whether this node holds a liveness lock others can watch (MySQL/MariaDB, and not turned off). */
  get livenessLocked(): boolean {
    return this.lock.session !== null;
  }

  get row(): EngineNodeRow | null {
    return this.registered;
  }

  get heartbeatAt(): number | null {
    return this.lastHeartbeatAt;
  }

  /** Its last heartbeat is too old to be sure it is still UP (back from a stall: NodeLiveness). */
  get lapsed(): boolean {
    return this.liveness.lapsed;
  }

  get embedded(): boolean {
    const type = this.dataSource.options.type;
    return type === 'better-sqlite3' || type === 'sqlite';
  }

  /**
   * Registers this node UP. Refuses (EngineAlreadyRunningError) when its id is held by another
   * live process, and — embedded mode, SQLite — when any other engine is UP with a fresh
   * heartbeat: SQLite has no row locks for engines to share runs with, so one engine only.
   * The check and the registration share one transaction (serialised on SQLite).
   * Returns other UP nodes that are provably dead (same host, process gone): the caller takes
   * them over at once.
   * On MySQL/MariaDB the node first takes its liveness lock (LivenessLock), so that survivors
   * never see it UP without it; a lock another session holds means this node id is alive elsewhere.
   */
  async register(url: string): Promise<EngineNodeRow[]> {
    await this.ensureGroups();
    const me = this.config.nodeId;
    if (this.config.livenessPollMs > 0 && !(await this.lock.acquire())) {
      const other = await findEngineNode(this.dataSource.manager, me);
      if (other) throw new EngineAlreadyRunningError(other, this.clock.now() - other.heartbeatAt, 'same-id');
      throw new Error(`Node id "${me}" is in use: its liveness lock is held by another database session. Give each engine its own BATON_ENGINE_ID.`);
    }
    return inTransaction(this.dataSource, async (em) => {
      const now = this.clock.now();
      const fresh = (n: EngineNodeRow) => n.state === 'UP' && now - n.heartbeatAt < this.config.engineDeadAfterMs && !provablyDead(n);
      const mine = await findEngineNode(em, me);
      if (mine && fresh(mine) && (mine.pid !== process.pid || mine.host !== hostname())) {
        throw new EngineAlreadyRunningError(mine, now - mine.heartbeatAt, 'same-id');
      }
      const others = (await findUpEngineNodes(em)).filter((n) => n.id !== me);
      if (this.embedded) {
        const live = others.find(fresh);
        if (live) throw new EngineAlreadyRunningError(live, now - live.heartbeatAt, 'embedded');
      }
      const row: EngineNodeRow = {
        id: me,
        groups: this.config.groups,
        host: hostname(),
        pid: process.pid,
        url,
        slots: this.config.slots,
        startedAt: now,
        heartbeatAt: now,
        state: 'UP',
        wakeKey: this.woken?.key ?? null,
      };
      await registerEngineNode(em, row);
      this.registered = row;
      this.proven(now);
      return others.filter((n) => provablyDead(n));
    });
  }

  /**
   * Creates the engine groups this node serves that do not exist yet, so a fresh cluster is
   * ready for tenants once its engines are up. Existing groups are left as they are (an
   * operator's description stays). One short transaction per group, in name order, each safe
   * against another engine creating the same group at the same moment.
   */
  private async ensureGroups(): Promise<void> {
    for (const name of [...this.config.groups].sort()) {
      const group = { name, description: `created by engine ${this.config.nodeId}`, createdAt: this.clock.now() };
      const created = await inTransaction(this.dataSource, (em) => insertMissingEngineGroup(em, group));
      if (created) this.logger.log(`engine group "${name}" did not exist: created it`);
    }
  }

  /**
   * Heartbeat. If a survivor declared this node dead meanwhile (its heartbeats were late: a
   * stalled process, a lost database), it re-registers: the survivor has already released its
   * runs, and what this node still holds in memory fails its guarded dispatch (claimed_by changed).
   * The row states the time it is written, not the time the write was prepared: a write that
   * waited longer than a heartbeat period (a black-holed connection, a frozen process) is done
   * again, and a re-registration takes the time anew — survivors would otherwise find the row
   * already too old and declare the node DOWN a second time just after it came back.
   */
  async heartbeat(): Promise<void> {
    const row = this.registered;
    if (!row) return;
    const write = (at: number) => inTransaction(this.dataSource, (em) => heartbeatEngineNode(em, row.id, at));
    let now = this.clock.now();
    let alive = await write(now);
    if (alive && this.clock.now() - now >= this.config.heartbeatMs) {
      now = this.clock.now();
      alive = await write(now);
    }
    if (!alive) {
      this.logger.error(`node ${row.id} was declared DOWN by another engine (heartbeats too late?); its runs were taken over — registering UP again`);
      now = this.clock.now();
      await inTransaction(this.dataSource, (em) => registerEngineNode(em, { ...row, startedAt: row.startedAt, heartbeatAt: now }));
    }
    this.proven(now);
  }

  private proven(at: number): void {
    this.lastHeartbeatAt = at;
    this.liveness.proven(at);
  }

  /** Graceful shutdown: DOWN at once, so survivors need not wait engineDeadAfterMs to know; then the liveness lock goes. */
  async markDown(): Promise<void> {
    const row = this.registered;
    if (row) {
      await inTransaction(this.dataSource, (em) => markEngineNodeDown(em, row.id));
      this.registered = null;
    }
    await this.lock.release();
  }
}
