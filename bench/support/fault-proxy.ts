import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** What the link does: forward at once, hold everything (a black hole: accepts, forwards nothing), or forward each chunk `delayMs` late. */
export type LinkMode = { kind: 'pass' } | { kind: 'hole' } | { kind: 'delay'; delayMs: number };

/**
 * A database link a benchmark breaks on purpose: a TCP proxy on 127.0.0.1 in front of one
 * engine's MariaDB whose mode changes while connections are open. In a black hole, connections
 * are still accepted and every byte either way is held, as a network that drops packets holds
 * a TCP connection that nobody resets; at the heal the held bytes go on in order, as TCP's
 * retransmissions would deliver them. Delayed chunks keep their order.
 */
export class FaultProxy {
  private readonly sockets = new Set<Socket>();
  private mode: LinkMode = { kind: 'pass' };
  private held: Array<() => void> = [];
  /** When the last delayed chunk of each direction goes (order is kept across a change of delay). */
  private readonly lastAt = new WeakMap<Socket, number>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<FaultProxy> {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const proxy = new FaultProxy(server, (server.address() as AddressInfo).port);
    server.on('connection', (client) => proxy.pipe(client, target));
    return proxy;
  }

  /** The database URL `url` reached through a new proxy. */
  static async proxying(url: string): Promise<{ proxy: FaultProxy; url: string }> {
    const u = new URL(url);
    const proxy = await FaultProxy.start({ host: u.hostname, port: Number(u.port) });
    u.port = String(proxy.port);
    return { proxy, url: u.toString() };
  }

  set(mode: LinkMode): void {
    this.mode = mode;
    if (mode.kind === 'hole') return;
    const held = this.held;
    this.held = [];
    held.forEach((send) => send());
  }

  private pipe(client: Socket, target: { host: string; port: number }): void {
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
      s.on('error', () => undefined);
    }
    this.forward(client, upstream);
    this.forward(upstream, client);
  }

  private forward(from: Socket, to: Socket): void {
    from.on('data', (chunk: Buffer) => this.send(to, () => to.writable && to.write(chunk)));
    from.once('end', () => this.send(to, () => to.end()));
    from.once('close', (hadError) => hadError && to.destroy());
  }

  private send(to: Socket, write: () => void): void {
    const mode = this.mode;
    if (mode.kind === 'hole') {
      this.held.push(write);
      return;
    }
    const at = Math.max(this.lastAt.get(to) ?? 0, Date.now() + (mode.kind === 'delay' ? mode.delayMs : 0));
    this.lastAt.set(to, at);
    if (at <= Date.now()) write();
    else setTimeout(write, at - Date.now());
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((r) => this.server.close(() => r()));
  }
}
