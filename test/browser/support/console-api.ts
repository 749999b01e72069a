type Json = Record<string, unknown>;

/**
 * A caller of the console REST API for a browser test's setup and checks: `api(method, path, body?, token?)`
 * against the console at `url()`, with the bearer `token()` unless one is given (`''`: none); a non-2xx
 * answer throws with its status and body. Getters, as the console starts in the suite's beforeAll.
 */
export function consoleApi(url: () => string, token: () => string) {
  return async <T = Json>(method: string, path: string, body?: unknown, auth = token()): Promise<T> => {
    const res = await fetch(`${url()}/api${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
}
