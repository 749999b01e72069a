import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy to a broker whose connections can be frozen: `freeze()` makes every connection open
 * now silently drop what either side sends, without closing anything — a network path that died
 * (the peer's host gone, a firewall's dropped state) as both ends see it: only their heart-beats
 * can tell. Connections made later pass.
 */
export interface FreezableProxy {
  /** `stomp://127.0.0.1:<port>` of the proxy. */
  url: string;
  freeze(): void;
  close(): Promise<void>;
}

export async function freezableProxy(target: { host: string; port: number }): Promise<FreezableProxy> {
  const open = new Set<{ client: Socket; upstream: Socket; frozen: boolean }>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    const pair = { client, upstream, frozen: false };
    open.add(pair);
    client.on('data', (chunk) => pair.frozen || upstream.write(chunk));
    upstream.on('data', (chunk) => pair.frozen || client.write(chunk));
    const end = () => {
      open.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    // A frozen path tells neither side that the other went away.
    for (const socket of [client, upstream]) {
      socket.on('error', () => pair.frozen || end());
      socket.on('close', () => pair.frozen || end());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `stomp://127.0.0.1:${port}`,
    freeze: () => {
      for (const pair of open) pair.frozen = true;
    },
    close: async () => {
      for (const pair of open) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      open.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
