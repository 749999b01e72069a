/** The demo tenant's id. */
export const DEMO_TENANT_ID = 'demo';

/** The executor app the demo tasks run on: the demo executor, built on the executor SDK. */
export const DEMO_EXECUTOR_APP = 'demo';

/**
 * The demo tenant's tasks, as the body of `POST /api/tasks` (the console's CreateTaskDto): a cron
 * task every 10 s, a fixed-rate task (fires at once), a task that fails when run by hand (its
 * alarms show in the console — only then: a new user's screen is not flooded with pop-ups), a
 * manual task with a child (DEMO_DEPENDENCIES), and a manual SHARDED task (4 shards over the
 * demo executors, its run page listing them). Seeded by the embedded mode
 * (demo-seed.ts, through the console's services) and by `baton cluster` (through the REST API).
 */
export const DEMO_TASKS: ReadonlyArray<Readonly<Record<string, unknown>>> = [
  { name: 'every-10-seconds', handler: 'noop', trigger: { kind: 'CRON', expression: '*/10 * * * * *', timeZone: 'UTC' } },
  { name: 'sleep-2s-every-30s', handler: 'sleep', params: { ms: 2000 }, trigger: { kind: 'FIXED_RATE', intervalMs: 30_000 } },
  {
    name: 'fails-when-run',
    handler: 'fail-n-times',
    params: { failures: 5 },
    trigger: { kind: 'MANUAL' },
    retry: { maxAttempts: 2, backoffBaseMs: 2000 },
  },
  { name: 'build-report', group: 'reports', handler: 'long-running', params: { ms: 5000 }, trigger: { kind: 'MANUAL' } },
  { name: 'publish-report', group: 'reports', handler: 'noop', trigger: { kind: 'MANUAL' } },
  { name: 'reindex-in-4-shards', handler: 'shard-part', params: { items: 1000, ms: 500 }, trigger: { kind: 'MANUAL' }, fanOut: { mode: 'SHARDED', shards: 4 } },
].map((task) => ({ executorApp: DEMO_EXECUTOR_APP, ...task }));

/** Edges between demo tasks, by task name: the child runs when its parent ends so. */
export const DEMO_DEPENDENCIES: ReadonlyArray<{ parent: string; child: string; condition: 'ON_SUCCESS' }> = [
  { parent: 'build-report', child: 'publish-report', condition: 'ON_SUCCESS' },
];
