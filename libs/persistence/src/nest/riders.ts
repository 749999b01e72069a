import type { EntityManager, QueryRunner } from 'typeorm';
import type { QueryResult } from 'typeorm/query-runner/QueryResult';
import { execute } from '../engine-queries/sql';

/**
 * Terminology: a **rider** is a statement of a MySQL/MariaDB transaction that is not sent alone
 * but in the packet of the transaction's next statement (mysql2's `multipleStatements`: the
 * server runs a packet's statements in order and answers them together):
 * - the transaction's opening (`START TRANSACTION`, its isolation level) rides with its first
 *   statement;
 * - a **deferred** write, whose answer nobody waits for (an audit record), rides with the next
 *   statement or with the COMMIT;
 * - a statement sent **ahead** (a share lock whose rows are judged a moment later) rides with the
 *   next statement, or goes alone at the next turn of the event loop if none comes.
 *
 * The statements run in the order they were issued, on the transaction's one connection, exactly
 * as if each had been sent alone: only the round trips are fewer. Why: on this project's
 * 2-core machines a round trip costs both ends CPU (~0.18 ms a side at a trickle, measured for
 * docs/BENCHMARKS.md) and, when the machine is busy, milliseconds of waiting; a trigger's
 * transaction was 5 round trips (START, share lock, runs INSERT, audit INSERT, COMMIT) and is 2.
 *
 * A rider that fails fails the packet: the statement it rode with rejects with its error, and so
 * does every rider of the packet waiting for an answer; a deferred write's failure is kept, and
 * the transaction's COMMIT throws it (the transaction is rolled back, as if the write had thrown
 * where it was issued).
 */
export class Riders {
  private queue: Rider[] = [];
  /** A failed packet's error that no waiting caller has seen (a deferred write's): the commit throws it. */
  private unseen: unknown = null;
  /** Whether a statement other than the opening was issued: a transaction that issued none sends nothing. */
  private touched = false;
  /** Whether the opening has reached the server (so a rollback must be sent). */
  private opened = false;
  private readonly send: (sql: string, params: unknown[]) => Promise<QueryResult>;

  constructor(
    private readonly runner: QueryRunner,
    opening: readonly string[],
  ) {
    const original = runner.query.bind(runner);
    this.send = (sql, params) => original(sql, params, true) as Promise<QueryResult>;
    for (const sql of opening) this.queue.push({ sql, params: [], opening: true });
    runner.query = ((sql: string, params?: unknown[], structured?: boolean) => this.query(sql, params ?? [], structured === true)) as QueryRunner['query'];
  }

  /** A write whose answer nobody waits for: it rides with the transaction's next statement or its COMMIT. */
  defer(sql: string, params: unknown[]): void {
    this.touched = true;
    this.queue.push({ sql, params });
  }

  /** A statement whose answer is awaited later: it rides with the next statement, or goes alone at the next turn of the event loop. */
  ahead(sql: string, params: unknown[]): Promise<QueryResult> {
    this.touched = true;
    return new Promise((resolve, reject) => {
      const rider: Rider = { sql, params, settle: { resolve, reject } };
      this.queue.push(rider);
      setImmediate(() => {
        if (this.queue.includes(rider)) this.flush();
      });
    });
  }

  /** Commits, with the riders left; nothing at all when the transaction issued no statement. */
  async commit(): Promise<void> {
    if (!this.touched && !this.opened) {
      this.queue = [];
      return;
    }
    await this.query('COMMIT', [], true);
    if (this.unseen !== null) throw this.unseen;
  }

  /** Rolls back (riders not yet sent are dropped: the ones waiting reject); nothing to send when the opening never left. */
  async rollback(): Promise<void> {
    const dropped = this.queue;
    this.queue = [];
    for (const rider of dropped) rider.settle?.reject(new Error('the transaction was rolled back before this statement was sent'));
    if (this.opened) await this.send('ROLLBACK', []);
  }

  private flush(): void {
    const last = this.queue.pop();
    if (!last) return;
    this.query(last.sql, last.params, true).then(
      (result) => last.settle?.resolve(result as QueryResult),
      (err: unknown) => {
        if (last.settle) last.settle.reject(err);
        else this.unseen ??= err;
      },
    );
  }

  private async query(sql: string, params: unknown[], structured: boolean): Promise<unknown> {
    if (sql !== 'COMMIT') this.touched = true;
    const riders = this.queue;
    this.queue = [];
    if (riders.some((r) => r.opening)) this.opened = true;
    if (riders.length === 0) return unwrap(await this.send(sql, params), structured);
    let raws: unknown[];
    try {
      const result = await this.send([...riders.map((r) => r.sql), sql].join(';\n'), [...riders.flatMap((r) => r.params), ...params]);
      raws = result.raw as unknown[];
    } catch (err) {
      for (const rider of riders) rider.settle?.reject(err);
      if (riders.some((r) => !r.settle && !r.opening)) this.unseen ??= err;
      throw err;
    }
    riders.forEach((rider, i) => rider.settle?.resolve(resultOf(raws[i])));
    return unwrap(resultOf(raws[riders.length]), structured);
  }
}

interface Rider {
  sql: string;
  params: unknown[];
  /** The opening of the transaction (START TRANSACTION, its isolation level). */
  opening?: boolean;
  settle?: { resolve: (result: QueryResult) => void; reject: (err: unknown) => void };
}

/** The riders of each transaction inTransaction runs on MySQL, by its EntityManager. */
const ridersOf = new WeakMap<EntityManager, Riders>();

/** Registers the riders of a transaction's manager (inTransaction), or forgets them (null). */
export function useRiders(manager: EntityManager, riders: Riders | null): void {
  if (riders) ridersOf.set(manager, riders);
  else ridersOf.delete(manager);
}

/**
 * A write whose answer nobody needs, sent with the transaction's next statement or its COMMIT
 * (Riders). Outside a transaction of inTransaction on MySQL (SQLite, an autocommitted manager) it
 * is sent at once.
 */
export async function deferStatement(manager: EntityManager, sql: string, params: unknown[]): Promise<void> {
  const riders = ridersOf.get(manager);
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
  const riders = ridersOf.get(manager);
  if (riders) return ((await riders.ahead(sql, params)).records ?? []) as Array<Record<string, unknown>>;
  return (await execute(manager, sql, params)).rows;
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
