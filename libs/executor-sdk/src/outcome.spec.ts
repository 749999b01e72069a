import { describe, expect, it } from 'vitest';
import { errorText } from './outcome';

describe('errorText', () => {
  it("is the error's stack, its first line the message, its paths relative to the working directory", () => {
    const error = new TypeError('card declined');
    error.stack = `TypeError: card declined\n    at charge (${process.cwd()}/dist/handlers/charge.js:12:9)\n    at run (/opt/x/node_modules/pg/lib/client.js:5:1)`;
    expect(errorText(error)).toBe('TypeError: card declined\n    at charge (dist/handlers/charge.js:12:9)\n    at run (node_modules/pg/lib/client.js:5:1)');
  });

  it('says what a thrown non-Error was', () => {
    expect(errorText('plain words')).toBe('plain words');
    expect(errorText({ code: 42 })).toBe('{"code":42}');
    const bare = new Error('no stack');
    bare.stack = undefined;
    expect(errorText(bare)).toBe('Error: no stack');
  });
});
