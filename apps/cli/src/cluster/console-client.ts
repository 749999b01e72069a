import { ConsoleApiError } from '../common/console-api-error';

/** The console's REST API, logged in as one user (`POST /api/auth/login`). */
export class ConsoleClient {
  private constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  static async login(baseUrl: string, credentials: { tenant?: string; username: string; password: string }): Promise<ConsoleClient> {
    const { token } = await send<{ token: string }>(baseUrl, 'POST', '/api/auth/login', undefined, credentials);
    return new ConsoleClient(baseUrl, token);
  }

  get<T>(path: string): Promise<T> {
    return send<T>(this.baseUrl, 'GET', path, this.token);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return send<T>(this.baseUrl, 'POST', path, this.token, body);
  }

  /** GET, or undefined on 404. */
  async find<T>(path: string): Promise<T | undefined> {
    try {
      return await this.get<T>(path);
    } catch (error) {
      if (error instanceof ConsoleApiError && error.status === 404) return undefined;
      throw error;
    }
  }
}

async function send<T>(baseUrl: string, method: string, path: string, token?: string, body?: unknown): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new ConsoleApiError(`${method} ${path}: HTTP ${response.status} ${text.slice(0, 500)}`, response.status);
  return (text ? JSON.parse(text) : undefined) as T;
}
