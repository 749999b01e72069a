import { describe, expect, it } from 'vitest';
import { csrfRefusal, csrfTokenOf, requestCredential, secureCookieFor, sessionCookieOf, socketOriginAllowed } from './session-cookie';

describe('session cookie', () => {
  it('reads the session token among other cookies, and nothing from an empty value', () => {
    expect(sessionCookieOf({ cookie: 'theme=dark; baton_session=abc_-1; x=y' })).toBe('abc_-1');
    expect(sessionCookieOf({ cookie: 'my_baton_session=abc' })).toBeUndefined();
    expect(sessionCookieOf({ cookie: 'baton_session=' })).toBeUndefined();
    expect(sessionCookieOf({})).toBeUndefined();
  });

  it('a credential header wins over the cookie; the cookie alone becomes a bearer token', () => {
    expect(requestCredential({ 'x-api-key': 'bk_1', cookie: 'baton_session=s' })).toEqual({ headers: { authorization: undefined, 'x-api-key': 'bk_1' }, cookieToken: null });
    expect(requestCredential({ cookie: 'baton_session=s' })).toEqual({ headers: { authorization: 'Bearer s' }, cookieToken: 's' });
    expect(requestCredential({})).toEqual({ headers: {}, cookieToken: null });
  });

  it('Secure: always, or when the request came over TLS or through a TLS proxy', () => {
    expect(secureCookieFor('always', { headers: {} })).toBe(true);
    expect(secureCookieFor('auto', { headers: {} })).toBe(false);
    expect(secureCookieFor('auto', { headers: {}, socket: { encrypted: true } })).toBe(true);
    expect(secureCookieFor('auto', { headers: { 'x-forwarded-proto': 'HTTPS, http' } })).toBe(true);
    expect(secureCookieFor('auto', { headers: { 'x-forwarded-proto': 'http' } })).toBe(false);
  });

  it("the CSRF token is bound to the session and checked in constant time", () => {
    expect(csrfTokenOf('a')).not.toBe(csrfTokenOf('b'));
    expect(csrfRefusal('a', { 'x-csrf-token': csrfTokenOf('a') })).toBeNull();
    expect(csrfRefusal('a', {})).toMatch(/^is missing/);
    expect(csrfRefusal('a', { 'x-csrf-token': csrfTokenOf('b') })).toBe('does not match this session');
    expect(csrfRefusal('a', { 'x-csrf-token': 'short' })).toBe('does not match this session');
  });

  it("a socket's cookie counts from no origin (not a browser), the console's own, or an allowed one", () => {
    expect(socketOriginAllowed({ host: 'c:8080' }, [])).toBe(true);
    expect(socketOriginAllowed({ host: 'c:8080', origin: 'http://c:8080' }, [])).toBe(true);
    expect(socketOriginAllowed({ host: 'c:8080', origin: 'http://c:8081' }, [])).toBe(false);
    expect(socketOriginAllowed({ host: 'c:8080', origin: 'http://c:8081' }, ['http://c:8081'])).toBe(true);
    expect(socketOriginAllowed({ host: 'c:8080', origin: 'null' }, [])).toBe(false);
  });
});
