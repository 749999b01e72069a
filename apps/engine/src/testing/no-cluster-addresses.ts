import type { GroupPeers } from '../common/group-peers';
import { readEngineConfig } from '../config/engine-config';
import { ClusterAddressGuard } from '../executors/cluster-address-guard';

/**
 * A guard for an ExecutorClient without a cluster (unit tests, the executor-client bench): no
 * database, broker or peer address, and this engine on no port — so an executor anywhere on this
 * machine is one. `peers`: the other engines' URLs it should know.
 */
export function noClusterAddresses(peers: string[] = []): ClusterAddressGuard {
  return new ClusterAddressGuard(readEngineConfig({}, { port: 0, publicUrl: null }), { urls: () => peers } as unknown as GroupPeers);
}
