import { hostname, networkInterfaces } from 'node:os';
import { Inject, Injectable } from '@nestjs/common';
import {
  checkExecutorUrl,
  clusterAddressOfUrl,
  clusterAddressRefusal,
  CLUSTER_ADDRESS_REFUSED,
  isClusterAddress,
  outboundCheck,
  type ClusterAddress,
  type ClusterAddresses,
  type ExecutorNetworks,
  type UrlVerdict,
} from '@baton/domain';
import { parseBrokerUrl } from '@baton/messaging';
import type { AddressCheck } from '@baton/protocol';
import { GroupPeers } from '../common/group-peers';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';

/** MySQL's and MariaDB's port when the database URL names none. */
const MYSQL_PORT = 3306;

/**
 * Keeps a tenant's executors off the Baton cluster's own listening addresses: this engine's (the
 * console's too in embedded mode, which shares its port), the other engines' (engine_nodes), the
 * database's, the broker's, and those the operator lists (BATON_CLUSTER_ADDRESSES: the consoles of
 * a cluster). A tenant whose networks allow loopback or the cluster's network (the default allows
 * any) could otherwise register an executor there and have the engines send signed requests to
 * them — reading the answers back as run errors, port by port.
 *
 * Judged where the outbound policy is: on the URL, at registration (a heartbeat, an XXL-JOB
 * registry call: 403 naming `url`) and before each call (verdict), and on the addresses a name
 * resolves to, at the connection (check). An address on this machine matches any of its hosts
 * (loopback, its names and interface addresses, read once at start).
 */
@Injectable()
export class ClusterAddressGuard {
  private readonly configured: ClusterAddress[];
  private readonly localHosts: ReadonlySet<string>;
  /** current()'s last answer and the inputs it was built from: asked on every dispatch, it changes only when an engine comes or goes. */
  private cached: { key: string; addresses: ClusterAddresses } | null = null;

  constructor(
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    private readonly peers: GroupPeers,
  ) {
    const database = /^(mysql|mariadb):\/\//.test(config.databaseUrl) ? clusterAddressOfUrl(config.databaseUrl, MYSQL_PORT) : null;
    const brokers = config.brokerUrl ? parseBrokerUrl(config.brokerUrl).map(({ host, port }) => ({ host, port })) : [];
    const listed = config.clusterAddresses.flatMap((url) => clusterAddressOfUrl(url, url.startsWith('https:') ? 443 : 80) ?? []);
    this.configured = [...(database ? [database] : []), ...brokers, ...listed];
    this.localHosts = new Set([hostname(), ...Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address))]);
  }

  /** The cluster's listening addresses now: this engine's as it is bound (startEngine sets publicUrl), the other engines' as engine_nodes last said. */
  current(): ClusterAddresses {
    const peerUrls = this.peers.urls();
    const key = JSON.stringify([this.config.host, this.config.port, this.config.publicUrl ?? null, peerUrls]);
    if (this.cached?.key === key) return this.cached.addresses;
    const own = [{ host: this.config.host, port: this.config.port }, ...(this.config.publicUrl ? [clusterAddressOfUrl(this.config.publicUrl, 80)] : [])];
    const peers = peerUrls.map((url) => clusterAddressOfUrl(url, 80));
    const addresses = [...own, ...peers].flatMap((a) => (a && a.port > 0 ? [a] : []));
    this.cached = { key, addresses: { addresses: [...addresses, ...this.configured], localHosts: this.localHosts } };
    return this.cached.addresses;
  }

  /** checkExecutorUrl (the tenant's networks), and not one of the cluster's own addresses. */
  verdict(url: string, networks: ExecutorNetworks): UrlVerdict {
    const verdict = checkExecutorUrl(url, networks);
    if (!verdict.ok) return verdict;
    const refusal = clusterAddressRefusal(url, this.current());
    return refusal === null ? verdict : { ok: false, reason: refusal };
  }

  /** The connection-side check of a call to `url`: the outbound policy's for executors, and no address a name resolves to that is the cluster's own at the URL's port. */
  check(url: string, networks: ExecutorNetworks): AddressCheck {
    const policy = outboundCheck(networks, 'executor');
    const parsed = new URL(url);
    const port = parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
    return (host, address) => policy(host, address) ?? (isClusterAddress(address, port, this.current()) ? `${host} resolves to an address that ${CLUSTER_ADDRESS_REFUSED}` : null);
  }
}
