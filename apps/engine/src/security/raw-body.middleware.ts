import { Injectable, Logger, NestMiddleware } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody } from '@baton/protocol';

/** Largest signed request body read (a callback carries a result ≤ 64 KB plus log lines). */
export const MAX_SIGNED_BODY_BYTES = 2 * 1024 * 1024;

/**
 * The Express request members the signed routes touch (no @types/express in the project): a
 * Node request plus the parsed `body` and the exact bytes `rawBody` (signatures are computed
 * over them).
 */
export type RawBodyRequest = IncomingMessage & { body?: unknown; rawBody?: Buffer };

type NextFunction = (err?: unknown) => void;

/** The Express response members used here. */
type Response = ServerResponse & { status(code: number): Response; json(body: unknown): Response };

/**
 * Keeps the exact bytes of a signed request: the HMAC is over the body as sent, and a parsed
 * and re-serialised body may differ from it (key order, spacing, number formats of a Java or
 * Python client).
 *
 * - App created with `NestFactory.create(…, { rawBody: true })`: Nest's JSON parser stores
 *   `req.rawBody`; nothing to do here.
 * - App created with `bodyParser: false`: nothing has read the stream; this reads it (up to
 *   MAX_SIGNED_BODY_BYTES, else 413) into `req.rawBody`.
 * - Body parser on, rawBody off: the bytes are gone; SignedRequests falls back to
 *   re-serialising the parsed body (right for the SDK, which sends JSON.stringify output) and
 *   logs a warning once. Configure the app properly instead.
 */
@Injectable()
export class RawBodyMiddleware implements NestMiddleware {
  private readonly logger = new Logger('RawBody');

  use(req: RawBodyRequest, res: Response, next: NextFunction): void {
    const consumed = (req as { _body?: boolean })._body === true || req.readableEnded || req.rawBody !== undefined;
    if (consumed) return next();
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > MAX_SIGNED_BODY_BYTES) {
        failed = true;
        res.status(413).json(errorBody(413, { errors: [{ field: 'body', reason: `over ${MAX_SIGNED_BODY_BYTES} bytes` }] }));
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (failed) return;
      req.rawBody = Buffer.concat(chunks);
      next();
    });
    req.on('error', (err) => {
      if (failed) return;
      failed = true;
      this.logger.warn(`reading a signed request body failed: ${err.message}`);
      next(err);
    });
  }
}
