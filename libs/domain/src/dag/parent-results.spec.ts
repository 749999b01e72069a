import { describe, expect, it } from 'vitest';
import { parentResultsJson, parseParentResults } from './parent-results';

describe("a child's view of its parents' results", () => {
  it('maps each parent task to its result, and is null without any', () => {
    const json = parentResultsJson([
      { taskName: 'extract', resultJson: '{"rows":42}' },
      { taskName: 'notify', resultJson: null },
      { taskName: 'load', resultJson: '"done"' },
    ]);
    expect(parseParentResults(json)).toEqual({ extract: { rows: 42 }, load: 'done' });
    expect(parentResultsJson([{ taskName: 'a', resultJson: null }])).toBeNull();
    expect(parseParentResults(null)).toEqual({});
  });

  it('stays within its bound by replacing the largest results with a marker', () => {
    const big = JSON.stringify('x'.repeat(5000));
    const json = parentResultsJson(
      [
        { taskName: 'big', resultJson: big },
        { taskName: 'small', resultJson: '1' },
      ],
      1000,
    )!;
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(1000);
    expect(parseParentResults(json)).toEqual({ big: { truncated: true, bytes: 5002 }, small: 1 });
  });
});
