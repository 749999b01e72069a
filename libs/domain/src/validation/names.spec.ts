import { describe, expect, it } from 'vitest';
import { displayNameProblem } from './names';

describe('displayNameProblem', () => {
  it('takes free text a person reads, any script and punctuation, up to the bound', () => {
    for (const ok of ['Acme Corp', 'Équipe « nuit »', '运维告警', 'ops — paging (eu-1)', 'x'.repeat(200)]) expect(displayNameProblem(ok, 200)).toBeNull();
  });

  it('refuses control characters, blank and over-long text, and says which', () => {
    for (const bad of ['a\u0000b', 'line\nbreak', 'tab\there', 'esc\u001b[31m', 'del\u007f', 'c1\u0085']) expect(displayNameProblem(bad, 200)).toMatch(/control characters/);
    expect(displayNameProblem('   ', 200)).toBe('must not be blank');
    expect(displayNameProblem('x'.repeat(201), 200)).toBe('must be at most 200 characters');
    expect([displayNameProblem(undefined, 200), displayNameProblem('', 200), displayNameProblem(5, 200)]).toEqual(['is required', 'is required', 'must be a string']);
  });
});
