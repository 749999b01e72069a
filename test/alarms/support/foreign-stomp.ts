import { connect, type Socket } from 'node:net';
import { Client, type IMessage, type IStompSocket } from '@stomp/stompjs';

/**
 * A STOMP consumer that is not Baton's code: @stomp/stompjs (its own frame parser, CONNECT,
 * SUBSCRIBE, heart-beating) over plain TCP. stompjs talks to an IStompSocket (a WebSocket-like
 * object); this is the smallest such adapter around a node:net socket — bytes in, bytes out,
 * nothing of Baton's STOMP code involved.
 */
class TcpStompSocket implements IStompSocket {
  readonly url: string;
  binaryType = 'arraybuffer';
  readyState = 0; // CONNECTING
  onclose: ((ev?: unknown) => unknown) | null = null;
  onerror: ((ev: unknown) => unknown) | null = null;
  onmessage: ((ev: unknown) => unknown) | null = null;
  onopen: ((ev?: unknown) => unknown) | null = null;
  private readonly socket: Socket;

  constructor(host: string, port: number) {
    this.url = `tcp://${host}:${port}`;
    this.socket = connect(port, host, () => {
      this.readyState = 1; // OPEN
      this.onopen?.({});
    });
    this.socket.on('data', (chunk: Buffer) => {
      // An ArrayBuffer of exactly this chunk: stompjs' parser takes frames split anywhere.
      this.onmessage?.({ data: chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.byteLength) });
    });
    this.socket.on('error', (err) => this.onerror?.(err));
    this.socket.on('close', () => {
      this.readyState = 3; // CLOSED
      this.onclose?.({ code: 1000, reason: 'tcp closed' });
    });
  }

  send(data: string | ArrayBufferLike | ArrayBufferView): void {
    if (typeof data === 'string') this.socket.write(data, 'utf8');
    else if (ArrayBuffer.isView(data)) this.socket.write(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    else this.socket.write(Buffer.from(data as ArrayBuffer));
  }

  close(): void {
    this.readyState = 2; // CLOSING
    this.socket.end();
  }
}

export interface ForeignMessage {
  destination: string;
  headers: Record<string, string>;
  body: string;
  /** When it arrived (epoch ms). */
  receivedAt: number;
}

export interface ForeignSubscriber {
  messages: ForeignMessage[];
  close(): Promise<void>;
}

/**
 * Subscribes with @stomp/stompjs over TCP to `destination` on the broker of `brokerUrl` (stomp://host:port).
 * `durable`: an ActiveMQ durable topic subscription of that name (client-id and
 * activemq.subscriptionName): the broker keeps what is published while it is disconnected, for
 * the next subscriber of the same name.
 */
export async function foreignSubscribe(brokerUrl: string, destination: string, options: { durable?: string } = {}): Promise<ForeignSubscriber> {
  const { hostname, port } = new URL(brokerUrl);
  const messages: ForeignMessage[] = [];
  const client = new Client({
    webSocketFactory: () => new TcpStompSocket(hostname, Number(port)),
    connectHeaders: { host: '/', ...(options.durable ? { 'client-id': options.durable } : {}) },
    heartbeatIncoming: 0,
    heartbeatOutgoing: 0,
    reconnectDelay: 0,
    debug: () => undefined,
  });
  await new Promise<void>((resolve, reject) => {
    client.onConnect = () => {
      // A receipt on the SUBSCRIBE: from then on the broker routes to us.
      const receipt = `sub-${Date.now()}`;
      client.watchForReceipt(receipt, () => resolve());
      client.subscribe(destination, (m: IMessage) => messages.push({ destination: m.headers.destination, headers: { ...m.headers }, body: m.body, receivedAt: Date.now() }), {
        receipt,
        ...(options.durable ? { 'activemq.subscriptionName': options.durable } : {}),
      });
    };
    client.onStompError = (frame) => reject(new Error(`STOMP error: ${frame.headers.message}`));
    client.onWebSocketError = (err) => reject(err instanceof Error ? err : new Error(String(err)));
    client.activate();
  });
  return { messages, close: () => client.deactivate() };
}
