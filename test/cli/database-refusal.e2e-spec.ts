import { describe, expect, it } from 'vitest';
import { testMysqlServerUrl } from '../support/databases';
import { runBaton } from './run-baton';

/** The test server's URL with `database` appended (`mysql://baton:baton@127.0.0.1:3407/<database>`). */
const urlOf = (database: string) => `${testMysqlServerUrl().replace(/\/?$/, '/')}${database}`;
const masked = (url: string) => url.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');

describe('a database a process cannot use', () => {
  // No process creates the database it is given (only `baton cluster` creates its own): one line says so.
  it.concurrent.each(['node', 'console', 'engine', 'migrate'])(
    'baton %s on a database that does not exist: one line naming BATON_DB_URL (password masked) and what to do, no stack, exit 1',
    async (command) => {
      const url = urlOf('baton_no_such_database');
      const { code, stderr } = await runBaton({ BATON_DB_URL: url, BATON_LOG_LEVEL: 'error', BATON_ENGINE_PORT: '0', BATON_CONSOLE_PORT: '0' }, command);
      const lines = stderr.split('\n').filter((line) => line && !line.startsWith('baton: ')); // not bin/baton.js's build notices
      expect(lines).toEqual([
        `BATON_DB_URL="${masked(url)}": database "baton_no_such_database" does not exist on ${new URL(url).host}: create it first (CREATE DATABASE \`baton_no_such_database\`); Baton makes its tables (at a process's start, or \`baton migrate\`), never the database`,
      ]);
      expect(code).toBe(1);
    },
    240_000,
  );

  it('nothing listening, or a wrong password: the reason, in one line naming BATON_DB_URL', async () => {
    const refused = await runBaton({ BATON_DB_URL: 'mysql://baton:secret@127.0.0.1:1/baton', BATON_LOG_LEVEL: 'error', BATON_ENGINE_PORT: '0' }, 'engine');
    expect(refused.stderr.trim().split('\n').at(-1)).toBe('BATON_DB_URL="mysql://baton:***@127.0.0.1:1/baton": connection refused by 127.0.0.1:1: is MySQL/MariaDB running and listening there?');
    expect(refused.code).toBe(1);
    const server = new URL(testMysqlServerUrl());
    const denied = await runBaton({ BATON_DB_URL: `mysql://${server.username}:wrong-password@${server.host}/baton`, BATON_LOG_LEVEL: 'error', BATON_CONSOLE_PORT: '0' }, 'console');
    expect(denied.stderr.trim().split('\n').at(-1)).toMatch(/^BATON_DB_URL="mysql:\/\/\w+:\*\*\*@[^"]+": access denied by [^ ]+ \(Access denied for user .*\): check the URL's user and password/);
    expect(denied.stderr).not.toContain('wrong-password');
    expect(denied.code).toBe(1);
  }, 240_000);
});
