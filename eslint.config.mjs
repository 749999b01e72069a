import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import floors from './scripts/floors/eslint-plugin.cjs';

export default tseslint.config(
  { ignores: ['dist/**', 'libs/*/dist/**', 'node_modules/**', 'data/**', 'coverage/**', 'test/artifacts/**', 'bench/results/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // The pure domain must not read the clock: `now` is always passed in.
      'no-restricted-syntax': 'off',
    },
  },
  {
    // Imports point down only: no two folders of an app or lib, and no two libs, import each other;
    // a lib is imported by its @baton/… name, never by a path into its src/ (scripts/floors/).
    files: ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts'],
    ignores: ['apps/console/web/**'],
    plugins: { floors },
    rules: { 'floors/no-back-up-import': 'error' },
  },
  {
    files: ['libs/domain/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']", message: 'libs/domain is pure: pass `now` in.' },
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'libs/domain is pure: pass `now` in.' },
      ],
      'no-restricted-imports': ['error', { patterns: ['@nestjs/*', 'typeorm', '@baton/persistence', 'node:*'] }],
    },
  },
  {
    // The web console (React SPA, apps/console/web): the classic hooks rules.
    files: ['apps/console/web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
      // The libs reach the browser only through the subpath names of tsconfig.json's `paths`.
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/libs/*/src/**', '**/console/src/**'], message: 'import a lib through its @baton/… subpath (apps/console/web/tsconfig.json paths)' }] }],
    },
  },
);
