/** The worker thread of ConfigThread: reads each file it is sent (readConfigText), or plans (planOf), and answers the result. */
import { parentPort } from 'node:worker_threads';
import type { ConfigJob } from './config-thread';
import { readConfigText } from './parse-config-yaml';
import { planOf } from './plan-input';

parentPort!.on('message', (job: ConfigJob) => parentPort!.postMessage(job.kind === 'read' ? readConfigText(job.text, job.tenantId) : planOf(job.input)));
