import { describe, expect, it } from 'vitest';
import { escapeDnValue, escapeFilterValue } from './ldap-escape';

describe('LDAP escaping', () => {
  it('escapes what would change a DN', () => {
    expect(escapeDnValue('alice')).toBe('alice');
    expect(escapeDnValue('a,ou=admins')).toBe('a\\,ou\\=admins');
    expect(escapeDnValue(' #x ')).toBe('\\ #x\\ ');
    expect(escapeDnValue('#x')).toBe('\\#x');
  });

  it('escapes what would change a filter', () => {
    expect(escapeFilterValue('uid=a,dc=x')).toBe('uid=a,dc=x');
    expect(escapeFilterValue('*)(uid=*')).toBe('\\2a\\29\\28uid=\\2a');
    expect(escapeFilterValue('a\\b')).toBe('a\\5cb');
  });
});
