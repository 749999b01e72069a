import { isIP } from 'node:net';
import { checkingLookup, OUTBOUND_REFUSED, systemResolveAll, type AddressCheck, type ResolveAll } from './checking-lookup';

/**
 * What the outbound policy says of `url` now, before anything is sent (a URL being saved): its IP
 * literal checked, or every address its name resolves to. Null when allowed — and when the name
 * does not resolve within `timeoutMs` (it may exist later; every call checks again, on the
 * addresses it connects to).
 */
export async function refusalOf(url: string, check: AddressCheck, options: { resolve?: ResolveAll; timeoutMs?: number } = {}): Promise<string | null> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return check(host, host);
  const lookup = checkingLookup(check, options.resolve ?? systemResolveAll);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), options.timeoutMs ?? 2000);
    lookup(host, { all: true }, (err) => {
      clearTimeout(timer);
      resolve(err?.code === OUTBOUND_REFUSED ? err.message : null);
    });
  });
}
