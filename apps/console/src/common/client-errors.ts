import { maxHeaderSize, STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody } from '@baton/protocol';

/**
 * Requests Node's HTTP parser refuses before Express sees them get an ErrorBody as every other
 * refusal does, not Node's bare status line: headers larger than it reads (a 20 KB
 * Idempotency-Key was answered 431 with an empty body), a request that is not HTTP. A connection
 * already gone (ECONNRESET) or not writable is closed.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const body =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? errorBody(431, { errors: [{ field: 'headers', reason: `are larger than the ${maxHeaderSize} bytes the console reads (all of them together)` }] })
        : errorBody(400, { errors: [{ field: 'request', reason: 'is not an HTTP request the console can read' }] });
    const text = JSON.stringify(body);
    socket.end(`HTTP/1.1 ${body.statusCode} ${STATUS_CODES[body.statusCode]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
  });
}
