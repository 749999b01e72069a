/**
 * The worker thread of ConfigThread: reads each file it is sent (readConfigText) and answers the
 * result, writes an export's text (writeConfigFile), or plans (planOf) and answers the changes as
 * JSON text — the answer goes out as it is:
 * a string crosses to the event loop as one copy, where the changes as objects (5,000 of them are
 * 7 MB of JSON) were rebuilt there and written out again.
 */
import { parentPort } from 'node:worker_threads';
import type { ConfigJob } from './config-thread';
import { writeConfigFile } from './config-file';
import { readConfigText } from './parse-config-yaml';
import { planOf } from './plan-input';

function answer(job: ConfigJob): unknown {
  if (job.kind === 'read') return readConfigText(job.text, job.tenantId);
  if (job.kind === 'write') return writeConfigFile(job.file, job.tenantId, job.shown);
  return JSON.stringify(planOf(job.input));
}

parentPort!.on('message', (job: ConfigJob) => parentPort!.postMessage(answer(job)));
