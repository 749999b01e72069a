import { Inject, Injectable } from '@nestjs/common';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { GroupPeers } from '../common/group-peers';

/** Most callback URLs named in one DispatchRequest. */
const MAX_URLS = 4;

/**
 * The `callbackUrls` of a DispatchRequest: this node first (config.publicUrl — set by
 * startEngine once the server listens), then other UP engines serving the run's group, so a
 * callback still lands if this node dies while the work runs. A dispatch never waits for the
 * list of peers (GroupPeers reads it in the background).
 */
@Injectable()
export class CallbackUrls {
  constructor(
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    private readonly peers: GroupPeers,
  ) {}

  get own(): string {
    return (this.config.publicUrl ?? `http://${this.config.host}:${this.config.port}`).replace(/\/+$/, '');
  }

  urls(group: string): string[] {
    const own = this.own;
    const others = this.peers.others(group).map((n) => n.url.replace(/\/+$/, '')).filter((u) => u !== own);
    return [own, ...new Set(others)].slice(0, MAX_URLS);
  }
}
