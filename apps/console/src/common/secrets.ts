import { createHash, randomBytes } from 'node:crypto';

/** SHA-256, hex: how session tokens and API keys are stored (they are 32 random bytes, so no salt is needed). */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** 32 random bytes, base64url. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What every API key starts with: `bk_<43 chars>`. */
export const API_KEY_MARK = 'bk_';
/** The first 10 characters of an API key are kept as its visible prefix. */
export const API_KEY_PREFIX_LENGTH = 10;

export function newApiKey(): { key: string; prefix: string; hash: string } {
  const key = `${API_KEY_MARK}${randomToken()}`;
  return { key, prefix: key.slice(0, API_KEY_PREFIX_LENGTH), hash: sha256Hex(key) };
}

/** A tenant's executor secret: 32 random bytes, hex (what executors put in BATON_EXECUTOR_SECRET). */
export function newExecutorSecret(): string {
  return randomBytes(32).toString('hex');
}
