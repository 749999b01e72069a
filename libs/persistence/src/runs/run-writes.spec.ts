import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUN_TRANSITIONS } from '@baton/domain';
import '../engine-queries';
import '../console-queries';
import '../approval-queries';
import { declaredRunWrites, illegalEdges, runWrite, stateIn } from './run-writes';

/** Query files that write runs: every one that touches `state` builds its guard from a declared write. */
const QUERY_DIRS = ['../engine-queries', '../console-queries', '../approval-queries'].map((d) => join(__dirname, d));
// Recursive: the console's queries are in a folder per aggregate.
const queryFiles = QUERY_DIRS.flatMap((dir) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts')).map((f) => ({ name: f, text: readFileSync(join(dir, f), 'utf8') })));
/** The SQL of each `UPDATE runs …` template literal of a file. */
const updatesOf = (text: string) => [...text.matchAll(/`(UPDATE runs\b[^`]*)`/g)].map((m) => m[1]);

describe('run writes and the run state machine (issue 11 item 8)', () => {
  // The product's writes, copied before any test declares bad ones of its own (runWrite adds to the same list).
  const writes = [...declaredRunWrites()];

  it('every declared move is an edge of RUN_TRANSITIONS', () => {
    expect(writes.length).toBeGreaterThanOrEqual(17);
    expect(illegalEdges(writes)).toEqual([]);
  });

  it('an undeclared edge is caught: a move out of a terminal state, backwards, or a self-move not declared as an attempt change', () => {
    const bad = [
      runWrite('reopen', ['SUCCEEDED'], 'PENDING'),
      runWrite('unaccept', ['ACCEPTED'], 'DISPATCHED'),
      runWrite('stayWaiting', ['RETRY_WAIT'], 'RETRY_WAIT'),
      runWrite('retryInPlace', ['RETRY_WAIT'], 'RETRY_WAIT', { attemptChangeFrom: ['RETRY_WAIT'] }),
    ];
    expect(illegalEdges(bad)).toEqual(['reopen: SUCCEEDED → PENDING', 'unaccept: ACCEPTED → DISPATCHED', 'stayWaiting: RETRY_WAIT → RETRY_WAIT']);
  });

  it('every UPDATE of runs that names a state guards it with a declared write (no hand-written state list)', () => {
    const offenders: string[] = [];
    let guarded = 0;
    for (const file of queryFiles) {
      for (const sql of updatesOf(file.text)) {
        if (!/\bstate\b|stateIn\(/.test(sql)) continue; // leases, flow ids: no state involved
        const where = sql.slice(sql.search(/\bWHERE\b/));
        if (/\bstate\s*(=|IN)\s*\(?\s*['?]/i.test(where) || !where.includes('${stateIn(')) offenders.push(`${file.name}: ${sql.replace(/\s+/g, ' ').slice(0, 140)}`);
        else guarded++;
      }
    }
    expect(offenders).toEqual([]);
    expect(guarded).toBeGreaterThanOrEqual(17);
  });

  it('every state a declared write moves runs to or from is one of the machine', () => {
    const states = Object.keys(RUN_TRANSITIONS);
    for (const w of writes) for (const s of [...w.from, ...(w.to === 'same' ? [] : w.to)]) expect(states, w.name).toContain(s);
  });

  it('a caller may narrow a write guard, never widen it', () => {
    const w = runWrite('example', ['CLAIMED', 'DISPATCHED'], 'PENDING');
    expect(stateIn(w)).toBe("state IN ('CLAIMED', 'DISPATCHED')");
    expect(stateIn(w, ['DISPATCHED'])).toBe("state IN ('DISPATCHED')");
    expect(() => stateIn(w, ['ACCEPTED'])).toThrow(/ACCEPTED is not a state it is declared to move runs from/);
    expect(() => stateIn(w, ["DISPATCHED') OR ('1" as never])).toThrow(/not a state/);
    expect(() => stateIn(w, [])).toThrow(/no state/);
  });
});
