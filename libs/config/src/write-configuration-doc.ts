import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CONFIGURATION_DOC_PATH, renderConfigurationDoc } from './configuration-doc';

// `npm run docs:config`: rewrites docs/CONFIGURATION.md from the schema.
const target = resolve(__dirname, '../../..', CONFIGURATION_DOC_PATH);
writeFileSync(target, renderConfigurationDoc());
process.stdout.write(`wrote ${CONFIGURATION_DOC_PATH}\n`);
