import { describe, expect, it } from 'vitest';
import { importReport, itemList } from './import-document';
import type { Imported } from './imported';

const imported = (entries: Imported['entries']): Imported => ({ calendars: [], tasks: entries.filter((e) => e.task !== null).map((e) => ({ name: e.task!, trigger: { kind: 'MANUAL' } })), dependencies: [], entries, notes: ['Every task: said once.'] });

describe('importReport', () => {
  it('says a note several items share once, after the items, with the items it holds for; an item\'s own notes stay under it', () => {
    const route = "route FIRST: Baton routes by the engine's BATON_ROUTING; nearest FAILOVER";
    const glue = 'not imported: a GLUE job (GLUE_SHELL): make it a handler first';
    const report = importReport(
      imported([
        { source: 'job 1', task: 'a-1', notes: [route, 'not carried: description "one"'] },
        { source: 'job 2', task: 'a-2', notes: [route] },
        { source: 'job 3', task: null, notes: [glue] },
        { source: 'job 4', task: 'a-4', notes: [route] },
        { source: 'job 5', task: null, notes: [glue] },
        { source: 'job 6', task: 'a-6', notes: [] },
      ]),
      'job',
    );
    expect(report).toEqual([
      'job 1 → task a-1',
      '    not carried: description "one"',
      'job 2 → task a-2',
      'job 3 → NOT IMPORTED',
      'job 4 → task a-4',
      'job 5 → NOT IMPORTED',
      'job 6 → task a-6',
      '',
      'Said of several jobs (each note, then the items it holds for):',
      route,
      '    jobs 1, 2, 4',
      glue,
      '    jobs 3, 5',
      '4 task(s) and 0 calendar(s) imported; 2 job(s) not imported.',
      '',
      'Every task: said once.',
    ]);
  });

  it('lists items by kind, runs of whole numbers as a-b', () => {
    expect(itemList(['job 1', 'job 2', 'job 3', 'job 5', 'job 6', 'job 9', 'job 10', 'job 11', 'job 12'])).toBe('jobs 1-3, 5, 6, 9-12');
    expect(itemList(['trigger DEFAULT.a', 'trigger reports.b c', 'job DEFAULT.by-hand'])).toBe('triggers DEFAULT.a, reports.b c; jobs DEFAULT.by-hand');
  });
});
