import { describe, expect, it } from 'vitest';
import { quartzPartlyMatched, xxlJobPartlyMatched } from './nothing-matched';

describe('names of --app / --job-group that matched nothing, when others did', () => {
  const tables = { groups: [{ id: 1, appName: 'sample' }, { id: 2, appName: 'billing' }, { id: 3, appName: 'idle' }], jobs: [{ jobGroup: 1 }, { jobGroup: 1 }, { jobGroup: 2 }] };

  it('XXL-JOB: each --app without jobs named once (a group with none included), with the groups the tables hold', () => {
    expect(xxlJobPartlyMatched(tables, 'xxl_job_', ['billing', 'nope', 'idle', 'nope'])).toBe(
      '--app "nope", "idle" matched no executor group with jobs; the executor groups (app_name) in xxl_job_group: sample (2 jobs), billing (1 job), idle (0 jobs). The other --app names are imported.',
    );
    expect(xxlJobPartlyMatched(tables, 'xxl_job_', ['billing', 'sample'])).toBeNull();
    expect(xxlJobPartlyMatched(tables, 'xxl_job_', null)).toBeNull();
  });

  it('Quartz: each --job-group without jobs named, with the scheduler\'s job groups', () => {
    const store = { jobs: [{ group: 'DEFAULT' }, { group: 'reports' }] };
    expect(quartzPartlyMatched(store, 'Legacy', ['reports', 'Reports'])).toBe('--job-group "Reports" matched no job group of scheduler "Legacy"; its job groups: DEFAULT (1 job), reports (1 job). The other --job-group names are imported.');
    expect(quartzPartlyMatched(store, 'Legacy', ['reports'])).toBeNull();
    expect(quartzPartlyMatched(store, 'Legacy', null)).toBeNull();
  });
});
