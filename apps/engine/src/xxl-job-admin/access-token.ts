import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether `presented` (the XXL-JOB-ACCESS-TOKEN header) is the tenant's XXL-JOB access token, in
 * constant time (both sides hashed first, so neither length leaks). A tenant without a token
 * takes no request: xxl-job-core would send none, and an open door is not a default.
 */
export function xxlJobTokenMatches(expected: string | null | undefined, presented: unknown): boolean {
  if (!expected || typeof presented !== 'string' || presented.length === 0) return false;
  return timingSafeEqual(digest(expected), digest(presented));
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
