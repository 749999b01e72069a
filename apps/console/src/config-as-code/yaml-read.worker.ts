/** The worker thread of YamlReadThread: reads each file it is sent (readConfigText) and answers the result. */
import { parentPort } from 'node:worker_threads';
import { readConfigText } from './parse-config-yaml';

parentPort!.on('message', ({ text, tenantId }: { text: string; tenantId: string }) => parentPort!.postMessage(readConfigText(text, tenantId)));
