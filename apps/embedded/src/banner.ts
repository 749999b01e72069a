import type { DemoLogins } from './demo-logins';
import type { EmbeddedBaton } from './start-embedded';
import { DEMO_TASKS } from './demo-tasks';

/**
 * The lines `npm start` prints once up: where the console is, the logins, and a ready-to-paste
 * environment for a local executor — including the demo tenant's executor secret. Printing a
 * secret is fine here and only here: embedded mode is one process on the operator's own machine,
 * and whoever reads this terminal can read the SQLite file that holds the secret anyway.
 */
export function embeddedBanner(baton: EmbeddedBaton, logins: DemoLogins, database: { url: string; sqlite: boolean }): string {
  const base = baton.url.replace('127.0.0.1', 'localhost');
  return [
    'Baton — embedded mode: a single node (console + engine + demo executor in one process)',
    `  database   ${database.url}${database.sqlite ? '  (SQLite: one engine only; run a cluster on MySQL/MariaDB for more)' : ''}`,
    `  console    ${base}/        (web console; REST API under ${base}/api)`,
    `  API docs   ${base}/api/docs`,
    `  login      tenant ${logins.tenant.tenant}, ${logins.tenant.username} / ${logins.tenant.password}   (the tenant's admin)`,
    `  operator   ${logins.operator.username} / ${logins.operator.password}`,
    baton.seeded ? `  demo data  seeded: tenant "${baton.demoTenant.id}" with ${DEMO_TASKS.length} tasks` : '  demo data  kept from the previous start',
    `  engine     ${baton.engineUrl}   (executors register and call back here: the console port)`,
    `  executor   ${executorEnvLine(baton)} BATON_EXECUTOR_APP=<your app>`,
  ].join('\n');
}

/** `BATON_TENANT=… BATON_EXECUTOR_SECRET=… BATON_ENGINE_URLS=…`: the environment of an executor of the demo tenant. */
export function executorEnvLine(baton: Pick<EmbeddedBaton, 'demoTenant' | 'engineUrl'>): string {
  return `BATON_TENANT=${baton.demoTenant.id} BATON_EXECUTOR_SECRET=${baton.demoTenant.executorSecret} BATON_ENGINE_URLS=${baton.engineUrl}`;
}
