import { lookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { isAlwaysRefusedAddress } from '@baton/domain';

export const EXECUTOR_ADDRESS_REFUSED = 'EXECUTOR_ADDRESS_REFUSED';

type Options = LookupOneOptions | LookupAllOptions | number;
type Callback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
type LookupAll = (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/**
 * A dns.lookup for the engine's executor sockets that refuses link-local and metadata addresses.
 * Executor URLs are checked by name when registered (no DNS there), so a name that resolves to
 * 169.254.169.254 — now or after a DNS change — is caught here, where the address is final.
 * Fails with code EXECUTOR_ADDRESS_REFUSED, before any connection: the request never left.
 */
export function refusingLookupOver(resolve: LookupAll): (hostname: string, options: Options, callback: Callback) => void {
  return (hostname, options, callback) => {
    const opts = typeof options === 'number' ? { family: options } : options;
    resolve(hostname, { ...opts, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const refused = addresses.find((a) => isAlwaysRefusedAddress(a.address));
      if (refused) {
        const error: NodeJS.ErrnoException = new Error(`${hostname} resolves to ${refused.address}, a link-local or metadata address executors may never use`);
        error.code = EXECUTOR_ADDRESS_REFUSED;
        return callback(error, '');
      }
      if ((opts as LookupAllOptions).all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/** refusingLookupOver the system resolver: the `lookup` of the engine's HTTP agents. */
export const refusingLookup = refusingLookupOver(lookup as LookupAll);
