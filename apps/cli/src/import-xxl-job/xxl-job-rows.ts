/** An executor group (xxl_job_group): its app name is what its executors register under. */
export interface XxlJobGroup {
  id: number;
  appName: string;
  /** `title` (2.x–3.4), `name` (later). */
  title: string;
}

/** A job (xxl_job_info), as read-xxl-job-tables.ts reads it from any version 2.1 to 3.x. */
export interface XxlJob {
  id: number;
  jobGroup: number;
  /** `job_desc` (to 3.4), `name` (later). */
  description: string;
  author: string | null;
  alarmEmail: string | null;
  /** CRON, FIX_RATE, NONE (2.3 on); before 2.3 every job is CRON, its expression in job_cron. */
  scheduleType: string;
  /** The cron expression (CRON) or the interval in seconds (FIX_RATE). */
  scheduleConf: string | null;
  /** DO_NOTHING or FIRE_ONCE_NOW (2.3 on); before 2.3, missed fires were passed over: DO_NOTHING. */
  misfireStrategy: string;
  routeStrategy: string | null;
  handler: string | null;
  param: string | null;
  blockStrategy: string | null;
  /** Seconds; 0: no timeout. */
  timeoutSeconds: number;
  failRetryCount: number;
  /** BEAN, or a GLUE kind (GLUE_GROOVY, GLUE_SHELL, GLUE_PYTHON, …). */
  glueType: string;
  /** Comma-separated job ids fired when a run of this one succeeds. */
  childJobIds: string | null;
  /** 1 running, 0 stopped. */
  triggerStatus: number;
  /** Epoch ms of the next fire the admin computed; 0 when stopped. */
  triggerNextTime: number;
  /** add_time (epoch ms, as the database's session zone reads it); null when empty. */
  addTime: number | null;
}

export interface XxlJobTables {
  groups: XxlJobGroup[];
  jobs: XxlJob[];
}
