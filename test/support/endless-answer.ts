import type { ServerResponse } from 'node:http';

/** Answers 200 with a body that never ends (as fast as the client reads), until the connection closes: what bounded reads are tested against. */
export function answerEndlessly(res: ServerResponse): void {
  res.writeHead(200);
  const chunk = Buffer.alloc(16 * 1024, 'x');
  const pump = () => {
    while (res.write(chunk));
    res.once('drain', pump);
  };
  pump();
  res.on('close', () => res.removeAllListeners('drain'));
}
