import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readJobData } from './job-data';
import { JobDataError } from './job-data-error';

// Written by Quartz 2.3.2 (test/cli/quartz/QuartzCatalogue.java): usingJobData("region", "eu"), ("batch", 500), ("dryRun", false), ("ratio", 0.25).
const SERIALIZED = readFileSync(join(__dirname, 'fixtures/job-data-map.ser'));
// Written by Java 17 (ObjectOutputStream) from a Quartz 2.3.2 JobDataMap: put("message", "deploy 🚀 done"), ("separator", "\u0000"), ("greeting", "grüß 你好").
const MODIFIED_UTF8 = readFileSync(join(__dirname, 'fixtures/job-data-map-modified-utf8.ser'));
// The same, put("long", 70,000 × "a" + "🚀\u0000"): more than 65,535 bytes, so a TC_LONGSTRING (gzipped here).
const LONG_STRING = gunzipSync(readFileSync(join(__dirname, 'fixtures/job-data-map-long-string.ser.gz')));

describe('readJobData', () => {
  it("reads Quartz's serialized JobDataMap: strings, numbers and booleans", () => {
    expect(readJobData(SERIALIZED)).toEqual({ params: { region: 'eu', batch: 500, dryRun: false, ratio: 0.25 }, dropped: [] });
  });

  it("reads Java's modified UTF-8: a character beyond U+FFFF (two 3-byte surrogates) and NUL (C0 80) as they were put", () => {
    expect(readJobData(MODIFIED_UTF8)).toEqual({ params: { message: 'deploy 🚀 done', separator: '\u0000', greeting: 'grüß 你好' }, dropped: [] });
  });

  it('reads a string of more than 65,535 bytes (TC_LONGSTRING) in modified UTF-8 too', () => {
    expect(LONG_STRING.includes(Buffer.from('7c0000000000011178', 'hex'))).toBe(true); // TC_LONGSTRING, its 8-byte length (70,008 bytes)
    expect(readJobData(LONG_STRING).params).toEqual({ long: `${'a'.repeat(70_000)}🚀\u0000` });
  });

  it('lists what params cannot carry by key, with its class (or null)', () => {
    // Written by Quartz 2.3.2: put("since", new Date(0)), ("job", JobKey.jobKey("report", "billing")), ("nothing", null), ("region", "eu").
    const dropped = readJobData(readFileSync(join(__dirname, 'fixtures/job-data-map-dropped.ser')));
    expect(dropped.params).toEqual({ region: 'eu' });
    expect(Object.fromEntries(dropped.dropped.map((d) => [d.key, d.reason]))).toEqual({
      since: 'a java.util.Date (params carry strings, numbers and booleans)',
      job: 'an org.quartz.JobKey (params carry strings, numbers and booleans)',
      nothing: 'null (params carry strings, numbers and booleans)',
    });
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
