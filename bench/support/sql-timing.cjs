/* eslint-disable @typescript-eslint/no-require-imports */
/* global require, process */
'use strict';
/**
 * Preloaded into engine processes by `npm run bench -- scale` (NODE_OPTIONS=-r …): the engine has
 * no per-statement timing of its own, and the bench must not change engine code. Wraps mysql2's
 * `query` (what TypeORM calls for every statement) and adds each statement's round trip —
 * sent → answer handed back, as the engine waits for it — to its digest (the SQL with placeholder
 * lists folded); SET TRANSACTION / START TRANSACTION / COMMIT are keyed with their
 * transaction's first statement (`COMMIT «SELECT … FROM tasks …»`). On SIGUSR2 (or $BENCH_SQL_TIMING_SIGNAL: the console
 * shuts down on SIGUSR2) the cumulative `{ digest: [count, ms] }` is written to
 * $BENCH_SQL_TIMING_FILE; the bench diffs two snapshots (bench/support/sql-timing.ts).
 */
const fs = require('node:fs');

const CONTROL = /^(SET TRANSACTION|START TRANSACTION|COMMIT|ROLLBACK)/;

const file = process.env.BENCH_SQL_TIMING_FILE;
// Worker threads inherit NODE_OPTIONS, but may not listen for signals: main thread only.
if (file && require('node:worker_threads').isMainThread) {
  const base = Object.getPrototypeOf(require('mysql2').Connection.prototype);
  const query = base.query;
  const stats = new Map();
  const add = (key, ms) => {
    const s = stats.get(key) || [0, 0];
    s[0] += 1;
    s[1] += ms;
    stats.set(key, s);
  };
  base.query = function (sql, values, cb) {
    const text = typeof sql === 'string' ? sql : sql && sql.sql;
    if (typeof cb !== 'function' || typeof text !== 'string') return query.call(this, sql, values, cb);
    const txn = this.benchTxn || (this.benchTxn = { label: null, control: [] });
    // A packet of several statements (persistence's riders: a transaction's opening, a share lock
    // sent ahead, an audit INSERT deferred to the COMMIT) is one round trip: keyed whole.
    const packet = /;\n/.test(text);
    const key = digest(text);
    const t0 = process.hrtime.bigint();
    return query.call(this, sql, values, function (...args) {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (packet) {
        add(key, ms);
        // A packet opening a transaction names it for the COMMIT sent alone after it.
        if (CONTROL.test(key)) txn.label = key.replace(/^(SET TRANSACTION[^;]*; )?START TRANSACTION; /, '');
      } else if (!CONTROL.test(key)) {
        if (txn.control.length && !txn.label) txn.label = key;
        add(key, ms);
      } else if (/^(COMMIT|ROLLBACK)/.test(key)) {
        // A transaction's own round trips belong to the loop that ran it: its first statement says which.
        for (const [k, t] of [...txn.control, [key, ms]]) add(`${k} «${txn.label || 'empty'}»`, t);
        txn.control = [];
        txn.label = null;
      } else txn.control.push([key, ms]);
      return cb.apply(this, args);
    });
  };
  process.on(process.env.BENCH_SQL_TIMING_SIGNAL || 'SIGUSR2', () => fs.writeFileSync(file, JSON.stringify(Object.fromEntries(stats))));
}

/** One line, `?, ?, ?` → `?…`, repeated `(…)` tuples and `WHEN ? THEN ?` arms folded, cut at 600 characters (the planner's column list alone is 250). */
function digest(sql) {
  return sql
    .replace(/\s+/g, ' ')
    .replace(/\?(\s*,\s*\?)+/g, '?…')
    .replace(/(\([^()]*\))(\s*,\s*\([^()]*\))+/g, '$1, …')
    .replace(/(WHEN \? THEN \? )+/g, 'WHEN ? THEN ? … ')
    .trim()
    .slice(0, 600);
}
