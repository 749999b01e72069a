import { isJavaObject, readJavaObject, type JavaValue } from './java-serialization';
import { JobDataError } from './job-data-error';
import { withArticle } from '../import/with-article';

/** A JobDataMap's entries Baton can carry as params, and the keys it cannot (with the reason). */
export interface JobData {
  params: Record<string, string | number | boolean>;
  dropped: Array<{ key: string; reason: string }>;
}

const BOXED_NUMBERS = ['java.lang.Integer', 'java.lang.Long', 'java.lang.Short', 'java.lang.Byte', 'java.lang.Double', 'java.lang.Float'];

/**
 * A JOB_DATA column as Quartz writes it: a serialized JobDataMap (the default), or a
 * java.util.Properties text (`org.quartz.jobStore.useProperties=true`, values all strings).
 * Strings, numbers and booleans become params; anything else (dates, lists, the job's own
 * classes) is listed by key with its class. Long values beyond 2^53 are kept as strings: JSON
 * numbers would round them. A blob that is neither form (corrupt, truncated, another object) is
 * a JobDataError naming why, not read as a properties text, where its bytes would be params keys.
 */
export function readJobData(blob: Buffer | null): JobData {
  const data: JobData = { params: {}, dropped: [] };
  if (blob === null || blob.length === 0) return data;
  if (blob[0] !== 0xac) {
    for (const [key, value] of readProperties(propertiesText(blob))) data.params[key] = value;
    return data;
  }
  for (const [key, value] of jobDataMapEntries(blob)) {
    const carried = plainValue(value);
    if (typeof key !== 'string') data.dropped.push({ key: String(key), reason: 'a key that is not a string' });
    else if (carried === undefined) data.dropped.push({ key, reason: `${value === null ? 'null' : withArticle(describe(value))} (params carry strings, numbers and booleans)` });
    else data.params[key] = carried;
  }
  return data;
}

/** The pairs of a serialized JobDataMap (its DirtyFlagMap's `map` field, a HashMap). */
function jobDataMapEntries(blob: Buffer): Array<[JavaValue, JavaValue]> {
  let read: JavaValue;
  try {
    read = readJavaObject(blob);
  } catch (error) {
    // The reader's JavaStreamError, or whatever else bytes nobody vouches for make it throw: one job's data, not the import.
    throw new JobDataError(`its serialized JobDataMap cannot be read (${(error as Error).message})`);
  }
  const entries = hashMapEntries(isJavaObject(read) ? read.fields.map : undefined);
  // Another object (a class of the application's, say) has no such map: read as an empty one, it gave no params and no word.
  if (entries === null) throw new JobDataError(`it is a serialized ${describe(read)}, not a JobDataMap`);
  return entries;
}

/**
 * The blob as java.util.Properties.load reads it (ISO-8859-1). Properties.store, which Quartz's
 * useProperties writes with, escapes everything but printable ASCII, so a control byte is no
 * properties text: a corrupt serialized map (its AC ED header lost) or another format.
 */
function propertiesText(blob: Buffer): string {
  const at = blob.findIndex((b) => (b < 0x20 && ![0x09, 0x0a, 0x0c, 0x0d].includes(b)) || (b >= 0x7f && b < 0xa0));
  if (at >= 0) throw new JobDataError(`it is neither a serialized JobDataMap (no AC ED 00 05 header) nor a properties text (control byte 0x${blob[at].toString(16).padStart(2, '0')} at byte ${at})`);
  return blob.toString('latin1');
}

/** A java.util.HashMap's pairs (its writeObject writes the bucket count and size as block data, then key, value, key, value…); null for anything else. */
export function hashMapEntries(map: JavaValue | undefined): Array<[JavaValue, JavaValue]> | null {
  const annotations = isJavaObject(map) ? (map.annotations['java.util.HashMap'] ?? map.annotations['java.util.LinkedHashMap']) : undefined;
  if (annotations === undefined) return null;
  const written = annotations.filter((v) => !Buffer.isBuffer(v));
  const pairs: Array<[JavaValue, JavaValue]> = [];
  for (let i = 0; i + 1 < written.length; i += 2) pairs.push([written[i], written[i + 1]]);
  return pairs;
}

function plainValue(value: JavaValue): string | number | boolean | undefined {
  if (typeof value === 'string') return value;
  if (!isJavaObject(value)) return undefined;
  const inner = value.fields.value;
  if (value.className === 'java.lang.Boolean' && typeof inner === 'boolean') return inner;
  if (value.className === 'java.lang.Character' && typeof inner === 'string') return inner;
  if (!BOXED_NUMBERS.includes(value.className)) return undefined;
  if (typeof inner === 'bigint') return Number.isSafeInteger(Number(inner)) ? Number(inner) : inner.toString();
  return typeof inner === 'number' && Number.isFinite(inner) ? inner : undefined;
}

function describe(value: JavaValue): string {
  if (value === null) return 'null';
  if (typeof value === 'object' && !Buffer.isBuffer(value)) return value.kind === 'class' ? 'class' : value.className;
  return typeof value;
}

/** java.util.Properties.load's format: `key=value`, `key: value` or `key value`, `#`/`!` comments, backslash escapes and continuations. */
function readProperties(text: string): Array<[string, string]> {
  const entries: Array<[string, string]> = [];
  const logical = text.replace(/\r\n?/g, '\n').replace(/(?<!\\)((?:\\\\)*)\\\n[ \t\f]*/g, '$1');
  for (const line of logical.split('\n')) {
    const trimmed = line.replace(/^[ \t\f]+/, '');
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('!')) continue;
    const split = /^((?:\\.|[^=:\s\\])*)[ \t\f]*[=:]?[ \t\f]*(.*)$/.exec(trimmed)!;
    entries.push([unescape(split[1]), unescape(split[2])]);
  }
  return entries;
}

function unescape(value: string): string {
  return value.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_, e: string) => {
    if (e.length === 5) return String.fromCharCode(parseInt(e.slice(1), 16));
    return ({ t: '\t', n: '\n', r: '\r', f: '\f' } as Record<string, string>)[e] ?? e;
  });
}
