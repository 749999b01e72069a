/**
 * The worker thread of ConfigThread: reads each file it is sent (readConfigText) and answers the
 * result, or plans (planOf) and answers the changes as JSON text — the answer goes out as it is
 * (a string crosses to the event loop as one copy; 5,000 changes as objects took it 0.3 s to
 * take in and again to write out).
 */
import { parentPort } from 'node:worker_threads';
import type { ConfigJob } from './config-thread';
import { readConfigText } from './parse-config-yaml';
import { planOf } from './plan-input';

parentPort!.on('message', (job: ConfigJob) => parentPort!.postMessage(job.kind === 'read' ? readConfigText(job.text, job.tenantId) : JSON.stringify(planOf(job.input))));
