/** A single sign-on that did not go through, with the reason the user is shown (on the login page). */
export class SsoRefusedError extends Error {
  readonly code = 'SSO_REFUSED';

  constructor(reason: string, cause?: unknown) {
    super(reason, { cause });
    this.name = 'SsoRefusedError';
  }
}
