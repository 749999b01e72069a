import type { ServerResponse } from 'node:http';

/**
 * Writes a JSON answer straight to Node's response, for the routes every run goes through (the
 * callbacks). Express's `res.json` on Nest's return value does the same and more per answer —
 * a SHA-1 ETag of the body (meaningless on a POST), the body copied into a Buffer, freshness
 * checks — which in a burst was ~7 % of the engine's CPU (docs/BENCHMARKS.md). A string body
 * also leaves with its headers in one socket write. Same status, body and content type as before.
 */
export function replyJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
