import { createSign, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * A real OpenID provider for the single sign-on tests: the `oidc-provider` package (the certified
 * Node implementation) on 127.0.0.1, with one confidential client (authorization code, PKCE
 * required, RP-initiated logout), a login form of its own for a table of users with passwords
 * and groups (the tests change the groups between sign-ins), and consent given to the client.
 *
 * `tamperIdToken` rewrites the ID token of the next token answers (forged or expired tokens);
 * `signIdToken` signs a payload with the provider's own key.
 */
export interface TestUser {
  password: string;
  username: string;
  email: string;
  groups: string[];
}

export interface TestProviderOptions {
  port: number;
  clientId: string;
  clientSecret: string;
  redirectUrl: string;
  postLogoutUrl: string;
  users: Record<string, TestUser>;
}

export interface TestProvider {
  issuer: string;
  users: Record<string, TestUser>;
  tamperIdToken: ((idToken: string) => string) | null;
  /** A JWT signed by the provider's key (RS256, its kid): what only the provider can make. */
  signIdToken(payload: Record<string, unknown>): string;
  close(): Promise<void>;
}

export async function startTestProvider(options: TestProviderOptions): Promise<TestProvider> {
  const { default: Provider } = await import('oidc-provider');
  const issuer = `http://127.0.0.1:${options.port}`;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...(privateKey.export({ format: 'jwk' }) as JsonWebKey), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: [options.redirectUrl],
        post_logout_redirect_uris: [options.postLogoutUrl],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [jwk as never] },
    pkce: { required: () => true },
    scopes: ['openid', 'profile', 'email', 'groups'],
    claims: { openid: ['sub'], profile: ['preferred_username'], email: ['email'], groups: ['groups'] },
    // The groups and names go into the ID token itself (many providers do); Baton reads userinfo only when they do not.
    conformIdTokenClaims: false,
    cookies: { keys: ['baton-test-provider-cookies'] },
    features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: true } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx: unknown, sub: string) => {
      const user = options.users[sub];
      if (!user) return undefined;
      return { accountId: sub, claims: async () => ({ sub, preferred_username: user.username, email: user.email, groups: [...user.groups] }) };
    },
    // Baton is a first-party client: its sign-ins need no consent screen.
    loadExistingGrant: async (ctx: { oidc: { client: { clientId: string }; session: { accountId: string; grantIdFor(id: string): string | undefined }; provider: { Grant: GrantClass } } }) => {
      const existing = ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      if (existing) return ctx.oidc.provider.Grant.find(existing);
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope('openid profile email groups');
      await grant.save();
      return grant;
    },
  } as never);
  const state: TestProvider = {
    issuer,
    users: options.users,
    tamperIdToken: null,
    signIdToken: (payload) => signJwt(payload, privateKey, jwk.kid),
    close: async () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  provider.use(async (ctx: { path: string; body: unknown }, next: () => Promise<void>) => {
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (ctx.path === '/token' && state.tamperIdToken && body?.id_token) ctx.body = { ...body, id_token: state.tamperIdToken(body.id_token) };
  });
  const callback = provider.callback();
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith('/interaction/')) {
      void interaction(provider as unknown as InteractionProvider, options.users, req, res).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
      return;
    }
    callback(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', resolve);
  });
  return state;
}

interface GrantClass {
  new (init: { clientId: string; accountId: string }): { addOIDCScope(scope: string): void; save(): Promise<string> };
  find(id: string): Promise<unknown>;
}

interface InteractionProvider {
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<{ uid: string; prompt: { name: string } }>;
  interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
}

/** The provider's login page: GET shows the form, POST checks the password against the user table. */
async function interaction(provider: InteractionProvider, users: Record<string, TestUser>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (req.method === 'POST') {
    const form = new URLSearchParams(await readBody(req));
    const login = form.get('login') ?? '';
    const user = users[login];
    if (!user || user.password !== form.get('password')) return loginForm(res, details.uid, 'Wrong login or password');
    await provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
    return;
  }
  loginForm(res, details.uid, '');
}

function loginForm(res: ServerResponse, uid: string, error: string): void {
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.end(
    `<!doctype html><title>Test IdP</title><h1>Test identity provider</h1>${error ? `<p role="alert">${error}</p>` : ''}` +
      `<form method="post" action="/interaction/${uid}"><label>Login <input name="login"></label>` +
      `<label>Password <input name="password" type="password"></label><button type="submit">Sign in</button></form>`,
  );
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

function signJwt(payload: Record<string, unknown>, key: KeyObject, kid: string): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ alg: 'RS256', typ: 'JWT', kid })}.${part(payload)}`;
  return `${input}.${createSign('RSA-SHA256').update(input).sign(key).toString('base64url')}`;
}

/** The claims of a JWT (no check: the tests read what the provider issued in order to re-sign it). */
export function jwtPayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** A key the provider never had, for forged tokens. */
export function foreignSigner(): (payload: Record<string, unknown>) => string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return (payload) => signJwt(payload, privateKey, 'test-key');
}
