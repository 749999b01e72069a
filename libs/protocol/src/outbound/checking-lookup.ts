import { lookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';

/** Why a connection to `address`, which `host` (a URL's host: a name, or the address itself) stands for, is refused; null when it is allowed. */
export type AddressCheck = (host: string, address: string) => string | null;

/** dns.lookup asked for every address: the resolver a checking lookup stands on (tests give their own). */
export type ResolveAll = (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/** The code of an error raised when a call is refused by the outbound policy: nothing was sent. */
export const OUTBOUND_REFUSED = 'OUTBOUND_REFUSED';

type Options = LookupOneOptions | LookupAllOptions | number;
type Callback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** Injection token of a ResolveAll in place of the system resolver for every outbound call of an app (tests: names that resolve where the test says). */
export const OUTBOUND_RESOLVER = Symbol('OUTBOUND_RESOLVER');

/** The system resolver (getaddrinfo: /etc/hosts, then DNS), every address. */
export const systemResolveAll = lookup as ResolveAll;

/**
 * A dns.lookup for an outgoing socket that resolves the name once, checks EVERY address it got,
 * and hands the socket only those addresses: the connection goes to an address that was checked,
 * never to one a second resolution (DNS rebinding: `169.254.169.254.nip.io`) could substitute.
 * One refused address refuses the name (a name that answers both a public and a private
 * address is a name to distrust). Fails with code OUTBOUND_REFUSED and the check's reason, before
 * any connection.
 */
export function checkingLookup(check: AddressCheck, resolve: ResolveAll = systemResolveAll): (hostname: string, options: Options, callback: Callback) => void {
  return (hostname, options, callback) => {
    const opts = typeof options === 'number' ? { family: options } : options;
    resolve(hostname, { ...opts, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      for (const { address } of addresses) {
        const reason = check(hostname, address);
        if (reason !== null) return callback(refusal(reason), '');
      }
      if ((opts as LookupAllOptions).all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/** The error a refused call fails with. */
export function refusal(reason: string): NodeJS.ErrnoException {
  return Object.assign(new Error(reason), { code: OUTBOUND_REFUSED });
}
