import { createConnection, type RowDataPacket } from 'mysql2/promise';
import type { QuartzJob, QuartzStore, QuartzTrigger } from './quartz-rows';

/** Quartz's table prefix option (`org.quartz.jobStore.tablePrefix`); it goes into identifiers, so letters, digits and _ only. */
export const TABLE_PREFIX_PATTERN = /^[A-Za-z0-9_]{1,64}$/;

/** The scheduler's rows, and every scheduler of the tables with its job count (named when --scheduler matches none). */
export interface QuartzStoreRead extends QuartzStore {
  schedulers: Map<string, number>;
}

/**
 * Reads one scheduler's jobs, triggers, calendars and paused groups from a Quartz 2.x JDBC
 * JobStore on MySQL/MariaDB (Quartz's tables_mysql_innodb.sql schema). Read-only: one READ ONLY
 * transaction, so the rows are one consistent snapshot even while Quartz runs, and the session
 * cannot write. The trigger's type rows are left-joined (a trigger has at most one of them).
 */
export async function readQuartzStore(url: string, tablePrefix: string, scheduler: string): Promise<QuartzStoreRead> {
  if (!TABLE_PREFIX_PATTERN.test(tablePrefix)) throw new RangeError(`table prefix "${tablePrefix}": letters, digits and _ only`);
  const conn = await createConnection({ uri: url.replace(/^mariadb:/, 'mysql:'), supportBigNumbers: true, bigNumberStrings: false, dateStrings: true, connectTimeout: 10_000 });
  const t = (name: string) => `\`${tablePrefix}${name}\``;
  try {
    await conn.query('START TRANSACTION READ ONLY');
    const rows = async (sql: string) => (await conn.query<RowDataPacket[]>(sql, [scheduler]))[0];
    const jobs = await rows(`SELECT JOB_NAME, JOB_GROUP, DESCRIPTION, JOB_CLASS_NAME, IS_NONCONCURRENT, IS_UPDATE_DATA, REQUESTS_RECOVERY, JOB_DATA FROM ${t('JOB_DETAILS')} WHERE SCHED_NAME = ? ORDER BY JOB_GROUP, JOB_NAME`);
    const triggers = await rows(
      `SELECT tr.*, c.CRON_EXPRESSION, c.TIME_ZONE_ID, s.REPEAT_COUNT, s.REPEAT_INTERVAL, s.TIMES_TRIGGERED,
              p.STR_PROP_1, p.STR_PROP_2, p.STR_PROP_3, p.INT_PROP_1, p.INT_PROP_2, p.LONG_PROP_1, p.BOOL_PROP_1, p.BOOL_PROP_2, p.SCHED_NAME AS HAS_PROPS
         FROM ${t('TRIGGERS')} tr
         LEFT JOIN ${t('CRON_TRIGGERS')} c ON c.SCHED_NAME = tr.SCHED_NAME AND c.TRIGGER_NAME = tr.TRIGGER_NAME AND c.TRIGGER_GROUP = tr.TRIGGER_GROUP
         LEFT JOIN ${t('SIMPLE_TRIGGERS')} s ON s.SCHED_NAME = tr.SCHED_NAME AND s.TRIGGER_NAME = tr.TRIGGER_NAME AND s.TRIGGER_GROUP = tr.TRIGGER_GROUP
         LEFT JOIN ${t('SIMPROP_TRIGGERS')} p ON p.SCHED_NAME = tr.SCHED_NAME AND p.TRIGGER_NAME = tr.TRIGGER_NAME AND p.TRIGGER_GROUP = tr.TRIGGER_GROUP
        WHERE tr.SCHED_NAME = ? ORDER BY tr.TRIGGER_GROUP, tr.TRIGGER_NAME`,
    );
    const calendars = await rows(`SELECT CALENDAR_NAME, CALENDAR FROM ${t('CALENDARS')} WHERE SCHED_NAME = ? ORDER BY CALENDAR_NAME`);
    const paused = await rows(`SELECT TRIGGER_GROUP FROM ${t('PAUSED_TRIGGER_GRPS')} WHERE SCHED_NAME = ?`);
    const schedulers = await rows(`SELECT SCHED_NAME, COUNT(*) AS JOBS FROM ${t('JOB_DETAILS')} GROUP BY SCHED_NAME ORDER BY SCHED_NAME`);
    await conn.query('COMMIT');
    return {
      jobs: jobs.map(jobOf),
      triggers: triggers.map(triggerOf),
      calendars: calendars.map((c) => ({ name: String(c.CALENDAR_NAME), blob: c.CALENDAR as Buffer })),
      pausedGroups: paused.map((p) => String(p.TRIGGER_GROUP)),
      schedulers: new Map(schedulers.map((s) => [String(s.SCHED_NAME), Number(s.JOBS)])),
    };
  } finally {
    await conn.end();
  }
}

/** Quartz writes its booleans as '0'/'1' (StdJDBCDelegate.setBoolean) in VARCHAR(1) columns. */
const flag = (value: unknown) => value === true || value === 1 || value === '1' || value === 'true';
const num = (value: unknown) => (value === null || value === undefined ? null : Number(value));

function jobOf(r: RowDataPacket): QuartzJob {
  return { name: r.JOB_NAME, group: r.JOB_GROUP, description: r.DESCRIPTION ?? null, className: r.JOB_CLASS_NAME, nonConcurrent: flag(r.IS_NONCONCURRENT), persistsData: flag(r.IS_UPDATE_DATA), requestsRecovery: flag(r.REQUESTS_RECOVERY), jobData: r.JOB_DATA ?? null };
}

function triggerOf(r: RowDataPacket): QuartzTrigger {
  const end = num(r.END_TIME);
  return {
    name: r.TRIGGER_NAME,
    group: r.TRIGGER_GROUP,
    jobName: r.JOB_NAME,
    jobGroup: r.JOB_GROUP,
    nextFireTime: num(r.NEXT_FIRE_TIME),
    priority: num(r.PRIORITY) ?? 5,
    state: r.TRIGGER_STATE,
    type: r.TRIGGER_TYPE,
    startTime: Number(r.START_TIME),
    endTime: end === null || end === 0 ? null : end,
    calendarName: r.CALENDAR_NAME ?? null,
    misfireInstruction: num(r.MISFIRE_INSTR) ?? 0,
    jobData: r.JOB_DATA ?? null,
    cron: r.CRON_EXPRESSION === null ? null : { expression: r.CRON_EXPRESSION, timeZone: r.TIME_ZONE_ID ?? null },
    simple: r.REPEAT_INTERVAL === null ? null : { repeatCount: Number(r.REPEAT_COUNT), repeatInterval: Number(r.REPEAT_INTERVAL), timesTriggered: Number(r.TIMES_TRIGGERED) },
    props:
      r.HAS_PROPS === null
        ? null
        : { str1: r.STR_PROP_1, str2: r.STR_PROP_2, str3: r.STR_PROP_3, int1: num(r.INT_PROP_1), int2: num(r.INT_PROP_2), long1: num(r.LONG_PROP_1), bool1: flag(r.BOOL_PROP_1), bool2: flag(r.BOOL_PROP_2) },
  };
}
