import { describe, expect, it } from 'vitest';
import { ConfigError, ProcessConfig } from '@baton/config';
import { demoLogins } from '../../../embedded/src/demo-logins';
import { readConsoleConfig } from './options';
import { passwordFits } from './password';

const TOO_LONG = 'p'.repeat(73);

describe('password length', () => {
  it('counts UTF-8 bytes: 72 fit, 73 do not', () => {
    expect(passwordFits('p'.repeat(72))).toBe(true);
    expect(passwordFits('é'.repeat(36))).toBe(true);
    expect(passwordFits('é'.repeat(36) + 'x')).toBe(false);
  });

  it('stops the console at start on a BATON_OPERATOR_PASSWORD over 72 bytes, naming the variable, not printing the value', () => {
    const env = { BATON_DB_URL: 'sqlite::memory:', BATON_OPERATOR_USERNAME: 'root', BATON_OPERATOR_PASSWORD: TOO_LONG };
    const read = () => readConsoleConfig(ProcessConfig.load('console', env));
    expect(read).toThrow(ConfigError);
    expect(read).toThrow('BATON_OPERATOR_PASSWORD="<73 bytes, hidden>": must be at most 72 bytes (UTF-8)');
    expect(() => read()).not.toThrow(TOO_LONG);
    expect(readConsoleConfig(ProcessConfig.load('console', { ...env, BATON_OPERATOR_PASSWORD: 'p'.repeat(72) })).operator?.password).toHaveLength(72);
  });

  it('stops embedded mode on a BATON_DEMO_PASSWORD or BATON_OPERATOR_PASSWORD over 72 bytes', () => {
    expect(() => demoLogins({ BATON_DEMO_PASSWORD: TOO_LONG })).toThrow(/^BATON_DEMO_PASSWORD=.*at most 72 bytes/);
    expect(() => demoLogins({ BATON_OPERATOR_PASSWORD: TOO_LONG })).toThrow(/^BATON_OPERATOR_PASSWORD=.*at most 72 bytes/);
    expect(demoLogins({}).tenant.password).toBe('demo-password');
  });
});
