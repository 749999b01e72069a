import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A slow link on loopback: a TCP proxy on 127.0.0.1 that forwards every chunk, in each
 * direction, `delayMs` after it arrived (order kept; no bandwidth limit), and forwards a close
 * once the data before it went through. Put in front of an executor (its advertised
 * BATON_EXECUTOR_PUBLIC_URL) so every engine → executor request and its answer take
 * 2 × delayMs more, like a WAN link; the TCP handshake to the proxy itself is not delayed.
 */
export class SlowProxy {
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
    readonly delayMs: number,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  static async start(targetPort: number, delayMs: number): Promise<SlowProxy> {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const proxy = new SlowProxy(server, (server.address() as AddressInfo).port, delayMs);
    server.on('connection', (client) => proxy.pipe(client, targetPort));
    return proxy;
  }

  private pipe(client: Socket, targetPort: number): void {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
      s.on('error', () => undefined); // a reset on one side closes the other (below)
    }
    this.delayed(client, upstream);
    this.delayed(upstream, client);
  }

  /** from → to, each chunk and the final end `delayMs` late; a reset is passed on at once. */
  private delayed(from: Socket, to: Socket): void {
    from.on('data', (chunk: Buffer) => setTimeout(() => to.writable && to.write(chunk), this.delayMs));
    from.once('end', () => setTimeout(() => to.end(), this.delayMs));
    from.once('close', (hadError) => hadError && to.destroy());
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((r) => this.server.close(() => r()));
  }
}
