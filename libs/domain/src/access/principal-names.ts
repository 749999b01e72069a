/** Longest username: users.username is varchar(100), and single sign-on cuts a directory's name to it. */
export const MAX_USERNAME_LENGTH = 100;
/** Longest API key name (api_keys.name is varchar(100)). */
export const MAX_API_KEY_NAME_LENGTH = 100;
/** An API key acting is named `api-key:<its name>` (approval steps, the audit log). */
export const API_KEY_PRINCIPAL_PREFIX = 'api-key:';

/**
 * Why no principal of a tenant can ever be named `name`, or null. Only the length can be ruled
 * out: a user made through the API has a username of A-Z a-z 0-9 . _ @ - (the console's
 * USERNAME_PATTERN), but a user of single sign-on takes its directory's name, any characters
 * (LDAP: its entry's first attribute, such as `uid`; OpenID Connect: a claim, such as `jane+ops@example.com`), so a
 * narrower rule would refuse people who can sign in. An API key made now is named under the rule
 * for names (nameProblem), but one made before that rule may have any 1 to 100 characters and
 * still decides: its name is not refused here either.
 */
export function principalNameProblem(name: string): string | null {
  const rule = `must be a username (1 to ${MAX_USERNAME_LENGTH} characters) or ${API_KEY_PRINCIPAL_PREFIX}<an API key's name of 1 to ${MAX_API_KEY_NAME_LENGTH} characters>`;
  if (name.startsWith(API_KEY_PRINCIPAL_PREFIX)) {
    const keyName = name.length - API_KEY_PRINCIPAL_PREFIX.length;
    return keyName >= 1 && keyName <= MAX_API_KEY_NAME_LENGTH ? null : rule;
  }
  return name.length >= 1 && name.length <= MAX_USERNAME_LENGTH ? null : rule;
}
