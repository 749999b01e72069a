import { describe, expect, it } from 'vitest';
import { readConfigFile, type ConfigFile } from './config-file';
import { fileRefusal } from './config-plan';

const file = (tasks: Array<Record<string, unknown>>): ConfigFile => {
  const read = readConfigFile({ version: 1, tasks: tasks.map((t) => ({ executorApp: 'legacy', handler: 'report', trigger: { kind: 'MANUAL' }, ...t })) }, 'acme');
  if (read.file === null) throw new Error(JSON.stringify(read.errors));
  return read.file;
};
const JOB_1 = 'xxl-job:xxl_job/xxl_job_ job 1';

describe('fileRefusal: a task created imported from the same item as another task', () => {
  const tenant = file([{ name: 'build-report-1', importedFrom: JOB_1 }, { name: 'by-hand' }]);

  it('is refused when the tenant keeps a task of that item the file does not name, both named, with how to keep one', () => {
    expect(fileRefusal(tenant, file([{ name: 'demoJobHandler-1', importedFrom: JOB_1 }]), false)).toEqual({
      errors: [
        {
          field: 'tasks[0].importedFrom',
          reason: `task "demoJobHandler-1" would be created imported from "${JOB_1}", as the tenant's task "build-report-1" is, which this file does not name: both would fire. Name it "build-report-1" in the file to update that task, or delete "build-report-1" (apply --prune deletes the tasks a file does not name)`,
        },
      ],
    });
  });

  it('is refused when two tasks of the file have it; one of them created is enough', () => {
    expect(fileRefusal(file([]), file([{ name: 'a', importedFrom: JOB_1 }, { name: 'b', importedFrom: JOB_1 }]), false)).toEqual({
      errors: [
        { field: 'tasks[0].importedFrom', reason: `task "a" would be created imported from "${JOB_1}", as tasks[1] "b" is: both would fire; keep one` },
        { field: 'tasks[1].importedFrom', reason: `task "b" would be created imported from "${JOB_1}", as tasks[0] "a" is: both would fire; keep one` },
      ],
    });
  });

  it('is taken when the other task goes (--prune), is the one updated, or is moved to another item; and for tasks not imported', () => {
    expect(fileRefusal(tenant, file([{ name: 'demoJobHandler-1', importedFrom: JOB_1 }]), true)).toBeNull();
    expect(fileRefusal(tenant, file([{ name: 'build-report-1', importedFrom: JOB_1, handler: 'build' }]), false)).toBeNull();
    expect(fileRefusal(tenant, file([{ name: 'build-report-1', importedFrom: 'xxl-job:xxl_job/xxl_job_ job 9' }, { name: 'demoJobHandler-1', importedFrom: JOB_1 }]), false)).toBeNull();
    expect(fileRefusal(tenant, file([{ name: 'demoJobHandler-2', importedFrom: 'xxl-job:xxl_job/xxl_job_ job 2' }, { name: 'by-hand-2' }]), false)).toBeNull();
  });
});
