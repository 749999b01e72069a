import { BATON_PROCESSES, type BatonProcess, type ConfigVariable } from './config-variable';
import { AUXILIARY_VARIABLES, variablesOf } from './schema';

/** Where the generated reference lives, and the command that rewrites it. */
export const CONFIGURATION_DOC_PATH = 'docs/CONFIGURATION.md';
export const CONFIGURATION_DOC_COMMAND = 'npm run docs:config';

const TITLES: Record<BatonProcess, string> = {
  embedded: 'Embedded mode (`npm start`, `baton embedded`)',
  console: 'Console (`baton console`, cluster mode)',
  engine: 'Engine node (`baton engine`, cluster mode)',
  executor: 'Executor (`executorOptionsFromEnv()` of the executor SDK, and the demo executor)',
  cli: 'CLI (`baton migrate`, `npm run migration:run`)',
};

/** docs/CONFIGURATION.md, generated from the schema (libs/config/src/schema.ts). */
export function renderConfigurationDoc(): string {
  const lines = [
    '# Configuration',
    '',
    `<!-- Generated from libs/config/src/schema.ts by \`${CONFIGURATION_DOC_COMMAND}\`: edit the schema, not this file. -->`,
    '',
    'Every Baton process is configured by `BATON_*` environment variables, listed here by process.',
    'Each process checks its variables when it starts: a bad value stops it with one line naming the',
    'variable, the value and the reason (`BATON_ENGINE_SLOTS="abc": must be an integer ≥ 1`) — a',
    'database `BATON_DB_URL` cannot open (refused, access denied, no such database) too, its password',
    'masked —, and a',
    '`BATON_*` variable that nothing reads (a typo) is warned about. Durations are in milliseconds;',
    'lists are comma-separated.',
    '',
  ];
  for (const process of BATON_PROCESSES) {
    const variables = variablesOf(process);
    if (variables.length === 0) continue;
    lines.push(`## ${TITLES[process]}`, '', '| variable | type | default | meaning |', '|---|---|---|---|');
    for (const v of variables) lines.push(`| \`${v.name}\` | ${typeText(v)} | ${defaultText(v)} | ${cell(v.description)} |`);
    lines.push('');
  }
  lines.push(
    '## Tests and scripts',
    '',
    'Read by the test suite, the benchmarks or scripts/, never by a Baton process.',
    '',
    '| variable | read by | default | meaning |',
    '|---|---|---|---|',
    ...AUXILIARY_VARIABLES.map((v) => `| \`${v.name}\` | ${v.usedBy} | ${v.default === undefined ? '—' : `\`${v.default}\``} | ${cell(v.description)} |`),
    '',
  );
  return lines.join('\n');
}

function typeText(v: ConfigVariable): string {
  if (v.type === 'enum') return `one of ${v.values?.map((x) => `\`${x}\``).join(', ')}`;
  if ((v.type === 'integer' || v.type === 'duration-ms') && v.max !== undefined) return `${v.type}, ${v.min ?? 0} to ${v.max}`;
  if ((v.type === 'integer' || v.type === 'duration-ms') && v.min) return `${v.type} ≥ ${v.min}`;
  return v.type;
}

function defaultText(v: ConfigVariable): string {
  if (v.required) return '**required**';
  if (v.defaultText) return v.defaultText;
  return v.default === undefined ? '—' : `\`${v.default}\``;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
