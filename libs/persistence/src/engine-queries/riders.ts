import type { EntityManager, QueryRunner } from 'typeorm';
import type { QueryResult } from 'typeorm/query-runner/QueryResult';
import { execute, executeWrite } from './sql';

/**
 * Terminology: a **rider** is a statement of a MySQL/MariaDB transaction that is not sent alone
 * but in the packet of the transaction's next statement (mysql2's `multipleStatements`: the
 * server runs a packet's statements in order and answers them together):
 * - the transaction's opening (`START TRANSACTION`, its isolation level) rides with its first
 *   statement;
 * - a **deferred** write, whose answer nobody waits for (an audit record), rides with the COMMIT;
 * - a statement sent **ahead** (a share lock whose rows are judged a moment later) rides with the
 *   next statement, or goes alone at the next turn of the event loop if none comes.
 *
 * The statements run in the order they were issued, on the transaction's one connection, exactly
 * as if each had been sent alone: only the round trips are fewer. Why: on this project's
 * 2-core machines a round trip costs both ends CPU (~0.18 ms a side at a trickle, measured for
 * docs/BENCHMARKS.md) and, when the machine is busy, milliseconds of waiting; a trigger's
 * transaction was 5 round trips (START, share lock, runs INSERT, audit INSERT, COMMIT) and is 2.
 *
 * The server stops a packet at its first failing statement and does not say which one it was: every
 * statement of the packet that waits for an answer rejects with the error. So a statement sent
 * ahead must only precede statements whose failure fails the transaction (a submission's runs
 * INSERT), and a deferred write rides only with the COMMIT: a statement issued while one waits
 * sends it first, in a packet of its own. A packet that carried either and failed fails the
 * transaction: every later statement and the COMMIT throw its error (the transaction is rolled
 * back, as if the write had thrown where it was issued).
 *
 * It lives beside sql.ts, on the floor every query folder sends its statements through, so that an
 * engine query may ride as a console query does (nest/transaction.ts opens the transactions).
 */
export class Riders {
  private queue: Rider[] = [];
  /**
   * The failure of a packet that carried a deferred write or a statement sent ahead: every later
   * statement and the COMMIT throw it. After a deadlock InnoDB has rolled the transaction back,
   * and a statement sent after that would commit on its own.
   */
  private failed: unknown = null;
  /** Whether a statement other than the opening was issued: a transaction that issued none sends nothing. */
  private touched = false;
  /** Whether the opening has reached the server (so a rollback must be sent). */
  private opened = false;
  private readonly send: (sql: string, params: unknown[]) => Promise<QueryResult>;

  constructor(runner: QueryRunner, opening: readonly string[]) {
    const original = runner.query.bind(runner);
    this.send = (sql, params) => original(sql, params, true) as Promise<QueryResult>;
    for (const sql of opening) this.queue.push({ sql, params: [], kind: 'opening' });
    runner.query = ((sql: string, params?: unknown[], structured?: boolean) => this.query(sql, params ?? [], structured === true)) as QueryRunner['query'];
  }

  /** A write whose answer nobody waits for: it rides with the transaction's COMMIT (or goes just before a statement issued first). */
  defer(sql: string, params: unknown[]): void {
    this.touched = true;
    this.queue.push({ sql, params, kind: 'deferred' });
  }

  /** A statement whose answer is awaited later: it rides with the next statement, or goes alone at the next turn of the event loop. */
  ahead(sql: string, params: unknown[]): Promise<QueryResult> {
    this.touched = true;
    return new Promise((resolve, reject) => {
      const rider: Rider = { sql, params, kind: 'ahead', settle: { resolve, reject } };
      this.queue.push(rider);
      setImmediate(() => {
        if (this.queue.includes(rider)) void this.sendRiders(this.take());
      });
    });
  }

  /** Commits, with the riders left; nothing at all when the transaction issued no statement. Throws a deferred write's failure. */
  async commit(): Promise<void> {
    if (this.failed !== null) throw this.failed;
    if (!this.touched && !this.opened) {
      this.queue = [];
      return;
    }
    await this.query('COMMIT', [], true);
  }

  /** Rolls back (riders not yet sent are dropped: the ones waiting reject); nothing to send when the opening never left. */
  async rollback(): Promise<void> {
    for (const rider of this.queue) rider.settle?.reject(new Error('the transaction was rolled back before this statement was sent'));
    this.queue = [];
    if (this.opened) await this.send('ROLLBACK', []);
  }

  /**
   * A statement of the transaction, with the riders queued before it. A packet's failure does not
   * say which of its statements failed, so a deferred write rides only with the COMMIT (whose
   * packet failing fails the transaction anyway); before any other statement the riders go in a
   * packet of their own.
   */
  private async query(sql: string, params: unknown[], structured: boolean): Promise<unknown> {
    const commit = sql === 'COMMIT';
    if (!commit) this.touched = true;
    let riders = this.take();
    if (!commit && riders.some((r) => r.kind === 'deferred')) {
      await this.sendRiders(riders);
      riders = [];
    }
    if (this.failed !== null) throw this.failed;
    if (riders.length === 0) return unwrap(await this.send(sql, params), structured);
    let raws: unknown[];
    try {
      raws = (await this.send([...riders.map((r) => r.sql), sql].join(';\n'), [...riders.flatMap((r) => r.params), ...params])).raw as unknown[];
    } catch (err) {
      for (const rider of riders) rider.settle?.reject(err);
      if (riders.some((r) => r.kind !== 'opening')) this.failed ??= err;
      throw err;
    }
    riders.forEach((rider, i) => rider.settle?.resolve(resultOf(raws[i])));
    return unwrap(resultOf(raws[riders.length]), structured);
  }

  /** Riders sent in a packet of their own: each answered, or the packet's failure kept (`failed`). Never throws. */
  private async sendRiders(riders: readonly Rider[]): Promise<void> {
    if (riders.length === 0) return;
    let raws: unknown[];
    try {
      const result = await this.send(riders.map((r) => r.sql).join(';\n'), riders.flatMap((r) => r.params));
      raws = riders.length === 1 ? [result.raw] : (result.raw as unknown[]);
    } catch (err) {
      for (const rider of riders) rider.settle?.reject(err);
      this.failed ??= err;
      return;
    }
    riders.forEach((rider, i) => rider.settle?.resolve(resultOf(raws[i])));
  }

  /** The queued riders, taken to be sent. */
  private take(): Rider[] {
    const riders = this.queue;
    this.queue = [];
    if (riders.some((r) => r.kind === 'opening')) this.opened = true;
    return riders;
  }
}

interface Rider {
  sql: string;
  params: unknown[];
  /** The transaction's opening (START TRANSACTION, its isolation level), a deferred write, or a statement sent ahead. */
  kind: 'opening' | 'deferred' | 'ahead';
  settle?: { resolve: (result: QueryResult) => void; reject: (err: unknown) => void };
}

/** The riders of each transaction inTransaction runs on MySQL, by its EntityManager. */
const ridersByManager = new WeakMap<EntityManager, Riders>();

/** The riders of a transaction's manager (a MySQL transaction of inTransaction), or undefined. */
export function ridersOf(manager: EntityManager): Riders | undefined {
  return ridersByManager.get(manager);
}

/** Registers the riders of a transaction's manager (inTransaction), or forgets them (null). */
export function useRiders(manager: EntityManager, riders: Riders | null): void {
  if (riders) ridersByManager.set(manager, riders);
  else ridersByManager.delete(manager);
}

/**
 * A write whose answer nobody needs, sent with the transaction's COMMIT, or just before a
 * statement issued first (Riders). Its failure fails the transaction at its COMMIT. Outside a transaction of inTransaction on MySQL (SQLite, an autocommitted manager) it
 * is sent at once.
 */
export async function deferStatement(manager: EntityManager, sql: string, params: unknown[]): Promise<void> {
  const riders = ridersOf(manager);
  if (riders) return riders.defer(sql, params);
  await execute(manager, sql, params);
}

/**
 * A statement whose rows are needed a moment later, sent with the transaction's next statement
 * (Riders): the caller issues its next statements before awaiting this one's rows (and handles
 * its rejection meanwhile: a failing packet rejects it too). Outside a transaction of
 * inTransaction on MySQL it is sent at once, in no set order with the statements issued before its
 * answer is awaited: only for rows those cannot change there (a SQLite transaction runs alone).
 */
export async function sendAhead(manager: EntityManager, sql: string, params: unknown[]): Promise<Array<Record<string, unknown>>> {
  const riders = ridersOf(manager);
  if (riders) return ((await riders.ahead(sql, params)).records ?? []) as Array<Record<string, unknown>>;
  return (await execute(manager, sql, params)).rows;
}

/**
 * As sendAhead, for a write whose OK packet (insertId, affectedRows) is needed a moment later: it
 * rides with the transaction's next statement. Outside a transaction of inTransaction on MySQL it
 * is sent at once (SQLite: the answer is last_insert_rowid()).
 */
export async function sendWriteAhead(manager: EntityManager, sql: string, params: unknown[]): Promise<unknown> {
  const riders = ridersOf(manager);
  if (riders) return (await riders.ahead(sql, params)).raw;
  return executeWrite(manager, sql, params);
}

/**
 * As sendWriteAhead, for an UPDATE whose count of rows moved is needed a moment later (SQLite
 * too: the count TypeORM's runner reports).
 */
export async function sendUpdateAhead(manager: EntityManager, sql: string, params: unknown[]): Promise<number> {
  const riders = ridersOf(manager);
  if (riders) return (await riders.ahead(sql, params)).affected ?? 0;
  return (await execute(manager, sql, params)).affected;
}

/** One statement's answer of a packet, as TypeORM's MySQL runner shapes a single statement's. */
function resultOf(raw: unknown): QueryResult {
  const result = { raw, records: Array.isArray(raw) ? raw : [] } as QueryResult;
  if (raw && typeof raw === 'object' && 'affectedRows' in raw) result.affected = Number((raw as { affectedRows: unknown }).affectedRows);
  return result;
}

function unwrap(result: QueryResult, structured: boolean): unknown {
  return structured ? result : result.raw;
}
