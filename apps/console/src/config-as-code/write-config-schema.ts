import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CONFIG_FILE_SCHEMA } from './config-file.schema';

/** `npm run docs:schema`: writes docs/tasks-as-code.schema.json from the schema the console serves. */
const target = resolve(__dirname, '../../../../docs/tasks-as-code.schema.json');
writeFileSync(target, `${JSON.stringify(CONFIG_FILE_SCHEMA, null, 2)}\n`);
console.log(`wrote ${target}`);
