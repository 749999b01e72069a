import { describe, expect, it } from 'vitest';
import { escapeDnValue, escapeFilterValue, firstRdnValue } from './ldap-escape';

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

  it('reads back the value of a DN\'s first attribute, as escaped by the directory or by escapeDnValue', () => {
    expect(firstRdnValue('uid=erin,ou=people,dc=baton,dc=test')).toBe('erin');
    expect(firstRdnValue('cn=Doe\\, John,ou=people')).toBe('Doe, John');
    expect(firstRdnValue('cn=Jos\\c3\\a9+uid=jose,ou=people')).toBe('José');
    expect(firstRdnValue('uid=Zoë 日本')).toBe('Zoë 日本');
    for (const name of ['a,ou=admins', ' #x ', 'back\\slash', 'plus+sign']) expect(firstRdnValue(`uid=${escapeDnValue(name)},ou=people`)).toBe(name);
  });
});
