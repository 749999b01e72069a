/**
 * The worker thread of ParamsCheckThread: runs each request's jobs on ParamsSchemas, telling the
 * watchdog in shared memory (workerData) which job and stage it is at, and answers their verdicts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { clockMs, Progress, TOO_COSTLY, type CheckRequest, type Verdict, type WorkerData } from './params-check-thread';
import { ParamsSchemas, STAGE } from './params-schemas';
import { ownThreadId, threadCpuNs } from './thread-cpu';

const { requestMs } = workerData as WorkerData;
const progress = new Progress((workerData as WorkerData).progress);
const schemas = new ParamsSchemas();
const tid = ownThreadId();
progress.identify(tid);

/** This thread's CPU time in ms (thread-cpu.ts), or the wall clock where that cannot be read. */
const workMs = (): number => {
  const cpu = threadCpuNs(tid);
  return cpu === null ? clockMs() : Number(cpu) / 1e6;
};

parentPort!.on('message', ({ schemas: texts, jobs }: CheckRequest) => {
  const started = workMs();
  let spent = false;
  const verdicts = jobs.map((job, i): Verdict => {
    // Untimed until a stage starts: the previous job's stage must not be charged for this one.
    progress.enter(i, STAGE.idle);
    // Between jobs the worker can time itself: past the budget, the job at hand is refused and the
    // rest of the request left unchecked (it is refused anyway). Not before the first: the thread's
    // CPU time is read at the scheduler's tick, so a reading may carry a few ms spent before it.
    if (spent) return { errors: [] };
    if (i > 0 && workMs() - started > requestMs) {
      spent = true;
      return { refused: `${TOO_COSTLY}: checking this request's params took longer than ${requestMs} ms in all; save fewer tasks at a time` };
    }
    const schema = texts[job.schema];
    return schemas.run(job.check ? { schema, params: job.params } : { schema }, (stage) => progress.enter(i, stage));
  });
  progress.enter(-1, STAGE.idle);
  parentPort!.postMessage(verdicts);
});
