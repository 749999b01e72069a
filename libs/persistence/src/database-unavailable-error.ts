import { ConfigError } from '@baton/config';
import { redactUrlPasswords } from '@baton/domain';

/**
 * A process could not open its database (BATON_DB_URL): nothing answers there, the account is
 * refused, or the database does not exist. A bad value of the variable, said in one line like
 * any other (`BATON_DB_URL="mysql://baton:***@db:3306/baton": database "baton" does not exist: …`),
 * its password masked; the driver's error is its `cause`.
 */
export class DatabaseUnavailableError extends ConfigError {
  constructor(
    url: string,
    /** What went wrong and what to do, without the URL. */
    readonly why: string,
    cause: unknown,
  ) {
    super('BATON_DB_URL', redactUrlPasswords(url), why);
    this.name = 'DatabaseUnavailableError';
    this.cause = cause;
  }
}

/** `error`, met opening `url`, as a DatabaseUnavailableError saying why and what to do. */
export function databaseUnavailable(url: string, error: unknown): DatabaseUnavailableError {
  return new DatabaseUnavailableError(url, whyUnavailable(url, error), error);
}

function whyUnavailable(url: string, error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  const where = serverOf(url);
  switch (code) {
    case 'ER_BAD_DB_ERROR': {
      const name = databaseOf(url);
      return `database "${name}" does not exist on ${where}: create it first (CREATE DATABASE \`${name}\`); Baton makes its tables (at a process's start, or \`baton migrate\`), never the database`;
    }
    case 'ER_ACCESS_DENIED_ERROR':
    case 'ER_DBACCESS_DENIED_ERROR':
    case 'ER_NOT_SUPPORTED_AUTH_MODE':
      return `access denied by ${where} (${message ?? code}): check the URL's user and password, and the user's grants on the database`;
    case 'ECONNREFUSED':
      return `connection refused by ${where}: is MySQL/MariaDB running and listening there?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host of ${where} not found: check the URL's host name`;
    case 'ETIMEDOUT':
      return `no answer from ${where} (connect timed out): check the host, port and firewall`;
    default:
      return `could not open it: ${message ?? String(error)}`;
  }
}

/** `host:port` of a mysql:// URL (the file of a sqlite: one). */
function serverOf(url: string): string {
  if (url.startsWith('sqlite:')) return url.slice('sqlite:'.length);
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || 3306}`;
  } catch {
    return 'the server';
  }
}

function databaseOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.slice(1));
  } catch {
    return '';
  }
}
