import { resolve } from 'node:path';
import swc from 'unplugin-swc';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

const lib = (name: string) => resolve(__dirname, `libs/${name}/src`);

/**
 * Files that start clusters of OS processes (engines, executors, Galera, HAProxy): one at a time,
 * after the rest, so they never compete with another such file for the machine's cores. Files
 * that drive a Chromium: one at a time, after those (beside them, a cluster test's executors
 * missed their heartbeats on 2 cores). The rest run two files at a time: most of their time is
 * spent waiting on MariaDB, the broker or a child process, so a second worker fills the waits.
 */
const CLUSTERS = ['test/cluster/**/*.e2e-spec.ts', 'test/ha/**/*.e2e-spec.ts', 'test/ops/prometheus-scrape.e2e-spec.ts'];
const BROWSER = ['test/browser/**/*.e2e-spec.ts'];

// SWC instead of esbuild: Nest and TypeORM need emitDecoratorMetadata, which esbuild does not emit.
const shared: TestProjectInlineConfiguration = {
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: {
    // Each key also maps its sub-paths (as tsconfig's `@baton/executor-sdk/*`):
    // '@baton/executor-sdk/nest' → libs/executor-sdk/src/nest, whose index.ts Vite picks.
    // Sources, not the workspace packages' builds (node_modules/@baton/* → libs/*/dist).
    alias: {
      '@baton/domain': lib('domain'),
      '@baton/persistence': lib('persistence'),
      '@baton/protocol': lib('protocol'),
      '@baton/scheduling': lib('scheduling'),
      '@baton/messaging': lib('messaging'),
      '@baton/executor-sdk': lib('executor-sdk'),
      '@baton/config': lib('config'),
      '@baton/logging': lib('logging'),
      '@baton/tracing': lib('tracing'),
    },
  },
  test: {
    // Guards against a hang, not measures: every test waits for the events it checks. A suite run
    // beside other work (load 15–25 on 2 cores) had sound tests pass 30 s, starting processes.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
};

export default defineConfig({
  test: {
    // Once, in the main process (the projects do not repeat it): the workers inherit what it sets in process.env.
    globalSetup: ['test/support/global-setup.ts'],
    projects: [
      {
        ...shared,
        test: {
          ...shared.test,
          name: 'suite',
          include: ['apps/**/*.spec.ts', 'libs/**/*.spec.ts', 'test/**/*.spec.ts', 'test/**/*.e2e-spec.ts'],
          exclude: ['**/node_modules/**', ...CLUSTERS, ...BROWSER],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        ...shared,
        test: { ...shared.test, name: 'alone', include: CLUSTERS, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
      {
        ...shared,
        test: { ...shared.test, name: 'browser', include: BROWSER, maxWorkers: 1, sequence: { groupOrder: 2 } },
      },
    ],
  },
});
