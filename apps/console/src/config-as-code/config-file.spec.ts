import { describe, expect, it } from 'vitest';
import { readConfigFile } from './config-file';

describe('readConfigFile', () => {
  it('refuses two webhooks whose names differ only by spaces around them (names are stored trimmed: one channel)', () => {
    const read = readConfigFile({ version: 1, webhooks: [{ name: 'hook', url: 'https://a.example/x' }, { name: ' hook ', url: 'https://b.example/y' }] }, 'acme');
    expect(read.errors).toEqual([{ field: 'webhooks[1]', reason: '"hook" is also webhooks[0]' }]);
    expect(readConfigFile({ version: 1, webhooks: [{ name: 'hook', url: 'https://a.example/x' }, { name: 'hook 2', url: 'https://b.example/y' }] }, 'acme').errors).toEqual([]);
  });
});
