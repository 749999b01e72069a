import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy to MariaDB that cuts the connection carrying the next statement containing a given
 * text: either after the server answered it (the statement ran — a COMMIT committed — its answer
 * lost: a writer killed between its commit and its reply) or before the server saw it (nothing ran).
 */
export class CuttingProxy {
  private server!: Server;
  private readonly pairs = new Set<[Socket, Socket]>();
  /** Armed for the next statement containing `marker`; disarmed once it has cut. */
  cut: { how: 'after-server' | 'before-server'; marker: string } | null = null;
  cuts = 0;

  async start(target: { host: string; port: number }): Promise<number> {
    this.server = createServer((client) => {
      const upstream = connect(target.port, target.host);
      const pair: [Socket, Socket] = [client, upstream];
      this.pairs.add(pair);
      let cutting = false;
      const close = () => {
        client.destroy();
        upstream.destroy();
        this.pairs.delete(pair);
      };
      client.on('data', (chunk) => {
        if (this.cut !== null && chunk.includes(this.cut.marker)) {
          const { how } = this.cut;
          this.cut = null;
          this.cuts++;
          if (how === 'before-server') return close();
          cutting = true;
        }
        upstream.write(chunk);
      });
      upstream.on('data', (chunk) => (cutting ? close() : client.write(chunk)));
      client.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as { port: number }).port;
  }

  /** The database URL `url` reached through this proxy (started on its host and port). */
  async proxying(url: string): Promise<string> {
    const u = new URL(url);
    u.port = String(await this.start({ host: u.hostname, port: Number(u.port) }));
    return u.toString();
  }

  async stop(): Promise<void> {
    for (const sockets of this.pairs) sockets.forEach((s) => s.destroy());
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
