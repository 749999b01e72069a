/**
 * `text` — a URL, or several (a broker's failover list, comma-separated) — with the password of
 * each `scheme://user:password@host` replaced by `***`, for logs, errors and a CLI's output. The
 * password runs to the `@` and holds no `/` (which would end the URL's authority), so the list
 * `stomp://h1:61613,stomp://u:p@h2` keeps its first host.
 */
export function redactUrlPasswords(text: string): string {
  return text.replace(/\/\/([^:/@,]+):[^@/]*@/g, '//$1:***@');
}
