/** A Quartz JDBC JobStore's rows for one scheduler, as read-quartz-store.ts reads them. */
export interface QuartzStore {
  jobs: QuartzJob[];
  triggers: QuartzTrigger[];
  calendars: Array<{ name: string; blob: Buffer }>;
  /** QRTZ_PAUSED_TRIGGER_GRPS (`_$_ALL_GROUPS_PAUSED_$_`: pauseAll). */
  pausedGroups: string[];
}

export interface QuartzJob {
  name: string;
  group: string;
  description: string | null;
  className: string;
  nonConcurrent: boolean;
  /** IS_UPDATE_DATA: @PersistJobDataAfterExecution, the JobDataMap a run changed is stored for the next. */
  persistsData: boolean;
  /** REQUESTS_RECOVERY: run again when the scheduler died while running it. */
  requestsRecovery: boolean;
  jobData: Buffer | null;
}

export interface QuartzTrigger {
  name: string;
  group: string;
  jobName: string;
  jobGroup: string;
  /** Epoch ms; null when Quartz has no further fire. */
  nextFireTime: number | null;
  priority: number;
  /** WAITING, PAUSED, BLOCKED, PAUSED_BLOCKED, ACQUIRED, EXECUTING, COMPLETE, ERROR, … */
  state: string;
  /** CRON, SIMPLE, CAL_INT, DAILY_I, BLOB. */
  type: string;
  startTime: number;
  /** Null: no end (Quartz stores 0). */
  endTime: number | null;
  calendarName: string | null;
  misfireInstruction: number;
  jobData: Buffer | null;
  cron: { expression: string; timeZone: string | null } | null;
  simple: { repeatCount: number; repeatInterval: number; timesTriggered: number } | null;
  /** QRTZ_SIMPROP_TRIGGERS, for CAL_INT and DAILY_I. */
  props: { str1: string | null; str2: string | null; str3: string | null; int1: number | null; int2: number | null; long1: number | null; bool1: boolean; bool2: boolean } | null;
}
