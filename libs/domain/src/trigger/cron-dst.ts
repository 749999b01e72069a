import type { RepeatedTimePolicy, SkippedTimePolicy, Trigger } from '../types';

/** A cron trigger's daylight-saving policies (types.ts says what each value does). */
export interface CronDst {
  repeatedTime: RepeatedTimePolicy;
  skippedTime: SkippedTimePolicy;
}

/**
 * Quartz's CronTrigger (2.3.2, measured against it by test/cli/import-quartz.e2e-spec.ts): a
 * repeated time fires once, after the clocks went back; a skipped time does not fire. The
 * default, so that a task imported from Quartz or XXL-JOB keeps its fire times.
 */
export const DEFAULT_CRON_DST: CronDst = { repeatedTime: 'ONCE_LATER', skippedTime: 'SKIP' };

type CronTrigger = Extract<Trigger, { kind: 'CRON' }>;

/** The policies a cron trigger fires by: its own, else the defaults. */
export function cronDstOf(trigger: CronTrigger): CronDst {
  return { repeatedTime: trigger.repeatedTime ?? DEFAULT_CRON_DST.repeatedTime, skippedTime: trigger.skippedTime ?? DEFAULT_CRON_DST.skippedTime };
}

/**
 * The trigger as it is stored, exported and compared: a policy equal to its default is left
 * out, so a file that spells a default out and one that does not plan as the same task.
 */
export function canonicalCronTrigger(trigger: CronTrigger): CronTrigger {
  const { repeatedTime, skippedTime, ...rest } = trigger;
  return {
    ...rest,
    ...(repeatedTime !== undefined && repeatedTime !== DEFAULT_CRON_DST.repeatedTime ? { repeatedTime } : {}),
    ...(skippedTime !== undefined && skippedTime !== DEFAULT_CRON_DST.skippedTime ? { skippedTime } : {}),
  };
}
