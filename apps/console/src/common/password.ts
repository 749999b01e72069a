import { ConfigError } from '@baton/config';
import { ValidateBy } from 'class-validator';

/** bcrypt reads only the first 72 bytes of a password: a longer one is refused rather than silently cut. */
export const MAX_PASSWORD_BYTES = 72;

export const PASSWORD_TOO_LONG_REASON = `must be at most ${MAX_PASSWORD_BYTES} bytes (UTF-8)`;

export function passwordFits(password: string): boolean {
  return Buffer.byteLength(password, 'utf8') <= MAX_PASSWORD_BYTES;
}

/** On every DTO field that sets a password: a 400 naming the field when it is over MAX_PASSWORD_BYTES. */
export function MaxPasswordBytes(): PropertyDecorator {
  return ValidateBy({
    name: 'maxPasswordBytes',
    validator: { validate: (value) => typeof value !== 'string' || passwordFits(value), defaultMessage: () => PASSWORD_TOO_LONG_REASON },
  });
}

/** A password read from the environment at start (BATON_OPERATOR_PASSWORD, BATON_DEMO_PASSWORD): ConfigError naming the variable when it is too long. */
export function configuredPassword(variable: string, password: string): string {
  // The value itself stays out of the message (it would end up in logs).
  if (!passwordFits(password)) throw new ConfigError(variable, `<${Buffer.byteLength(password, 'utf8')} bytes, hidden>`, PASSWORD_TOO_LONG_REASON);
  return password;
}
