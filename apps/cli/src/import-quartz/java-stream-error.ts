/** A serialized Java object the reader cannot decode (corrupt, truncated, or a form it does not read). */
export class JavaStreamError extends Error {
  readonly code = 'JAVA_STREAM_UNREADABLE';
}
