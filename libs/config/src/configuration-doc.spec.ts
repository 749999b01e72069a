import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIGURATION_DOC_COMMAND, CONFIGURATION_DOC_PATH, renderConfigurationDoc } from './configuration-doc';

describe(CONFIGURATION_DOC_PATH, () => {
  it('is what the schema generates', () => {
    const onDisk = readFileSync(resolve(__dirname, '../../..', CONFIGURATION_DOC_PATH), 'utf8');
    // On a difference the assertion shows it; the fix is one command.
    expect(onDisk, `${CONFIGURATION_DOC_PATH} differs from libs/config/src/schema.ts: run \`${CONFIGURATION_DOC_COMMAND}\` and commit it`).toBe(renderConfigurationDoc());
  });

  it('documents every variable under each process that reads it', () => {
    const doc = renderConfigurationDoc();
    const engine = doc.slice(doc.indexOf('## Engine node'), doc.indexOf('## Executor'));
    expect(engine).toContain('| `BATON_ENGINE_SLOTS` | integer ≥ 1 | `64` |');
    expect(engine).not.toContain('BATON_CONSOLE_PORT');
    const console = doc.slice(doc.indexOf('## Console'), doc.indexOf('## Engine node'));
    expect(console).toContain('| `BATON_DB_URL` | url | **required** |');
  });
});
