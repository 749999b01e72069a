/** The worker thread of YamlReadThread: parses each text it is sent (parseConfigYaml) and answers the result. */
import { parentPort } from 'node:worker_threads';
import { parseConfigYaml } from './parse-config-yaml';

parentPort!.on('message', (text: string) => parentPort!.postMessage(parseConfigYaml(text)));
