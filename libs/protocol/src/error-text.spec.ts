import { describe, expect, it } from 'vitest';
import { MAX_ERROR_DETAIL_CHARS, MAX_ERROR_SUMMARY_CHARS, relativizePaths, splitError } from './error-text';

const stack = `TypeError: card declined
    at charge (/srv/billing/dist/handlers/charge.js:12:9)
    at run (/srv/billing/node_modules/@baton/executor-sdk/dist/run-job.js:80:20)
    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)`;

describe('error text (issue 13 item 4)', () => {
  it('splits the first line from the stack', () => {
    expect(splitError(stack)).toEqual({
      summary: 'TypeError: card declined',
      detail: stack.split('\n').slice(1).join('\n'),
    });
    expect(splitError('just one line')).toEqual({ summary: 'just one line', detail: null });
    expect(splitError('\n\n  first after blanks \r\nsecond\r\n\n')).toEqual({ summary: 'first after blanks', detail: 'second' });
    expect(splitError('   \n ')).toEqual({ summary: '(no error message)', detail: null });
  });

  it('bounds both parts and says how much was cut', () => {
    const { summary, detail } = splitError(`${'x'.repeat(500)}\n${'y'.repeat(10_000)}`);
    expect(summary).toBe(`${'x'.repeat(MAX_ERROR_SUMMARY_CHARS)}… (200 more characters)`);
    expect(detail).toBe(`${'y'.repeat(MAX_ERROR_DETAIL_CHARS)}… (6000 more characters)`);
  });

  it('makes paths relative to the working directory and shortens node_modules', () => {
    expect(relativizePaths(stack, ['/srv/billing'])).toBe(`TypeError: card declined
    at charge (dist/handlers/charge.js:12:9)
    at run (node_modules/@baton/executor-sdk/dist/run-job.js:80:20)
    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)`);
    expect(relativizePaths('at f (file:///srv/billing/x.mjs:1:1)', ['/srv/billing/'])).toBe('at f (x.mjs:1:1)');
    expect(relativizePaths('at g (/opt/other/node_modules/pg/lib/client.js:5:1)', ['/srv/billing'])).toBe('at g (node_modules/pg/lib/client.js:5:1)');
    expect(relativizePaths('no paths here', ['/'])).toBe('no paths here');
  });
});
