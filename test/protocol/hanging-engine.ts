import { createServer, type Server, type Socket } from 'node:net';

/**
 * An engine that hangs (black-holed, frozen): it accepts connections and never answers. Used by
 * the executor tests that check one hanging engine holds neither heartbeats nor callbacks.
 */
export class HangingEngine {
  readonly sockets: Socket[] = [];
  /** Requests begun on it (first bytes of each connection). */
  requests = 0;
  /** Connections whose first bytes were a callback request (POST /baton/callbacks…). */
  private readonly callbackSockets: Socket[] = [];
  private constructor(private readonly server: Server) {}

  static async start(): Promise<HangingEngine> {
    const hanging: HangingEngine = new HangingEngine(
      createServer((socket) => {
        hanging.sockets.push(socket);
        socket.once('data', (chunk: Buffer) => {
          hanging.requests++;
          if (chunk.toString('latin1').startsWith('POST /baton/callbacks')) hanging.callbackSockets.push(socket);
        });
        socket.on('error', () => undefined);
      }),
    );
    await new Promise<void>((resolve) => hanging.server.listen(0, '127.0.0.1', resolve));
    return hanging;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  /** Connections still open: requests it is holding. */
  get holding(): number {
    return this.sockets.filter((s) => !s.destroyed).length;
  }

  /** Callback requests still open: the executor has not given them up (its request timeout). */
  get holdingCallbacks(): number {
    return this.callbackSockets.filter((s) => !s.destroyed).length;
  }

  close(): Promise<void> {
    this.sockets.forEach((s) => s.destroy());
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
