/** A JOB_DATA blob that is neither form Quartz writes (a serialized JobDataMap, a properties text): its message is the reason. */
export class JobDataError extends Error {
  readonly code = 'JOB_DATA_UNREADABLE';
}
