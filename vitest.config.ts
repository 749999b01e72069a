import { resolve } from 'node:path';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

const lib = (name: string) => resolve(__dirname, `libs/${name}/src`);

// SWC instead of esbuild: Nest and TypeORM need emitDecoratorMetadata, which esbuild does not emit.
export default defineConfig({
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
    },
  },
  test: {
    include: ['apps/**/*.spec.ts', 'libs/**/*.spec.ts', 'test/**/*.spec.ts', 'test/**/*.e2e-spec.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
