import { isDeepStrictEqual } from 'node:util';
import { withTaskDefaults, type TaskInput } from '@baton/domain';
import { canonical } from '../tasks/canonical-definition';
import { fileTask, type FileTask } from '../tasks/file-task';

/** What a file must say of every task. */
const ALWAYS: ReadonlyArray<keyof FileTask> = ['name', 'executorApp', 'handler', 'trigger'];

/**
 * A task as an export writes it: the fields its file reading would fill in the same (its
 * defaults, for its trigger) left out. Written whole, a task was 55 YAML entries and 1.3 KB (its
 * 14 alarm types, its retry and fan-out at their defaults…), so an export of 1,850 tasks passed
 * the 100,000 entries a plan reads and one of ~3,000 the 4 MB it takes: a tenant's own export was
 * refused by its own plan. Only when reading the shorter form gives back exactly this task (a
 * default that follows another field would not): else the task is written whole.
 */
export function taskWithoutDefaults(task: FileTask, tenantId: string): Partial<FileTask> {
  const reread = (input: Partial<FileTask>) => fileTask(canonical(withTaskDefaults(input as TaskInput, tenantId)));
  const bare = reread(Object.fromEntries(ALWAYS.map((key) => [key, task[key]])) as Partial<FileTask>);
  const short = Object.fromEntries(Object.entries(task).filter(([key, value]) => ALWAYS.includes(key as keyof FileTask) || !isDeepStrictEqual(value, bare[key as keyof FileTask]))) as Partial<FileTask>;
  return isDeepStrictEqual(reread(short), task) ? short : task;
}
