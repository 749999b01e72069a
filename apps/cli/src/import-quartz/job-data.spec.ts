import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJobData } from './job-data';
import { JavaStreamError } from './java-stream-error';

// Written by Quartz 2.3.2 (test/cli/quartz/QuartzCatalogue.java): usingJobData("region", "eu"), ("batch", 500), ("dryRun", false), ("ratio", 0.25).
const SERIALIZED = readFileSync(join(__dirname, 'fixtures/job-data-map.ser'));

describe('readJobData', () => {
  it("reads Quartz's serialized JobDataMap: strings, numbers and booleans", () => {
    expect(readJobData(SERIALIZED)).toEqual({ params: { region: 'eu', batch: 500, dryRun: false, ratio: 0.25 }, dropped: [] });
  });

  it('reads the properties form (useProperties=true), escapes and continuations included', () => {
    const text = '#Wed Dec 02 14:09:00 UTC 2026\nregion=eu\nbatch=500\npath = C\\:\\\\data\nnote: a long \\\n    line\ngreeting=gr\\u00FC\\u00DF\\n\n! comment\n';
    expect(readJobData(Buffer.from(text, 'latin1')).params).toEqual({ region: 'eu', batch: '500', path: 'C:\\data', note: 'a long line', greeting: 'grüß\n' });
  });

  it('nothing stored: no params', () => {
    expect(readJobData(null)).toEqual({ params: {}, dropped: [] });
    expect(readJobData(Buffer.alloc(0))).toEqual({ params: {}, dropped: [] });
  });

  it('a truncated or corrupt stream is an error naming the problem, never half a map', () => {
    expect(() => readJobData(SERIALIZED.subarray(0, SERIALIZED.length - 20))).toThrow(JavaStreamError);
    const corrupt = Buffer.from(SERIALIZED);
    corrupt[4] = 0x42;
    expect(() => readJobData(corrupt)).toThrow(/unsupported type code 0x42/);
  });
});
