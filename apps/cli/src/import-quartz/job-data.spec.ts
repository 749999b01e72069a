import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJobData } from './job-data';
import { JobDataError } from './job-data-error';

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
    expect(() => readJobData(SERIALIZED.subarray(0, SERIALIZED.length - 20))).toThrow(JobDataError);
    const corrupt = Buffer.from(SERIALIZED);
    corrupt[4] = 0x42;
    expect(() => readJobData(corrupt)).toThrow(/^its serialized JobDataMap cannot be read \(unsupported type code 0x42 at byte 4\)$/);
  });

  it('a blob that is neither form is an error naming why, never params keys of its bytes', () => {
    const headless = Buffer.from(SERIALIZED);
    headless[0] = 0x00; // its AC ED header lost: not a properties text either
    expect(() => readJobData(headless)).toThrow(new JobDataError('it is neither a serialized JobDataMap (no AC ED 00 05 header) nor a properties text (control byte 0x00 at byte 0)'));
    expect(() => readJobData(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x41]))).toThrow(/control byte 0x1f at byte 0\)$/); // gzip, say
    expect(() => readJobData(Buffer.from('aced0005740003616263', 'hex'))).toThrow(new JobDataError('it is a serialized string, not a JobDataMap')); // writeObject("abc")
    // java.util.Properties.load reads ISO-8859-1: a latin-1 letter is text.
    expect(readJobData(Buffer.from('city=Malm\xf6\n', 'latin1')).params).toEqual({ city: 'Malmö' });
  });
});
