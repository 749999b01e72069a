/**
 * A listener's port is taken. Said in one line naming the variable that moves it, instead of the
 * EADDRINUSE stack trace: `port 8080 is in use (127.0.0.1): set BATON_CONSOLE_PORT to another port`.
 */
export class PortInUseError extends Error {
  readonly code = 'PORT_IN_USE';

  constructor(
    readonly port: number,
    readonly host: string,
    readonly variable: string,
  ) {
    super(`port ${port} is in use (${host}): set ${variable} to another port`);
    this.name = 'PortInUseError';
  }
}

/** Runs `listen()`; an EADDRINUSE becomes a {@link PortInUseError} naming `variable`. */
export async function listenOrExplain<T>(listen: () => Promise<T>, where: { port: number; host: string; variable: string }): Promise<T> {
  try {
    return await listen();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new PortInUseError(where.port, where.host, where.variable);
    throw err;
  }
}
