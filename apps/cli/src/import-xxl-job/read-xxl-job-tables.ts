import { createConnection, type RowDataPacket } from 'mysql2/promise';
import type { XxlJob, XxlJobGroup, XxlJobTables } from './xxl-job-rows';

/** The table prefix option (tables `<prefix>group` and `<prefix>info`); it goes into identifiers, so letters, digits and _ only. */
export const XXL_TABLE_PREFIX_PATTERN = /^[A-Za-z0-9_]{1,64}$/;

/**
 * Reads XXL-JOB's executor groups and jobs from its admin database on MySQL/MariaDB, any version
 * from 2.1 to 3.x. Read-only: one READ ONLY transaction, so the rows are one consistent snapshot
 * while the admin runs, and the session cannot write. The versions' columns differ, so the
 * columns are looked up first and each read names what the version has:
 * - 2.3 on: schedule_type, schedule_conf and misfire_strategy; before: job_cron (every job a cron);
 * - to 3.4: job_desc and the group's title; later: name in both tables;
 * - add_time, in every version's schema, is read where the table has it (it anchors a FIX_RATE grid).
 * glue_source (the GLUE code, up to 16 MB a job) is never read.
 */
export async function readXxlJobTables(url: string, tablePrefix: string): Promise<XxlJobTables> {
  if (!XXL_TABLE_PREFIX_PATTERN.test(tablePrefix)) throw new RangeError(`table prefix "${tablePrefix}": letters, digits and _ only`);
  const conn = await createConnection({ uri: url.replace(/^mariadb:/, 'mysql:'), supportBigNumbers: true, bigNumberStrings: false, connectTimeout: 10_000 });
  const group = `${tablePrefix}group`;
  const info = `${tablePrefix}info`;
  try {
    await conn.query('START TRANSACTION READ ONLY');
    const [columnRows] = await conn.query<RowDataPacket[]>(
      'SELECT TABLE_NAME, COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN (?, ?)',
      [group, info],
    );
    const has = (table: string, column: string) => columnRows.some((r) => r.TABLE_NAME === table && r.COLUMN_NAME === column);
    if (!has(group, 'app_name') || !has(info, 'executor_handler')) throw new Error(`no XXL-JOB tables ${group} and ${info} in this database (check --table-prefix)`);
    const scheduled = has(info, 'schedule_type');
    const [groups] = await conn.query<RowDataPacket[]>(`SELECT id, app_name, ${has(group, 'title') ? 'title' : '`name`'} AS title FROM \`${group}\` ORDER BY id`);
    const [jobs] = await conn.query<RowDataPacket[]>(
      `SELECT id, job_group, ${has(info, 'job_desc') ? 'job_desc' : '`name`'} AS description, author, alarm_email,
              ${scheduled ? 'schedule_type, schedule_conf, misfire_strategy' : "'CRON' AS schedule_type, job_cron AS schedule_conf, 'DO_NOTHING' AS misfire_strategy"},
              executor_route_strategy, executor_handler, executor_param, executor_block_strategy, executor_timeout,
              executor_fail_retry_count, glue_type, child_jobid, trigger_status, trigger_next_time,
              ${has(info, 'add_time') ? 'UNIX_TIMESTAMP(add_time) * 1000' : 'NULL'} AS add_time_ms
         FROM \`${info}\` ORDER BY id`,
    );
    await conn.query('COMMIT');
    return { groups: groups.map(groupOf), jobs: jobs.map(jobOf) };
  } finally {
    await conn.end();
  }
}

const text = (value: unknown) => (value === null || value === undefined ? null : String(value));

function groupOf(r: RowDataPacket): XxlJobGroup {
  return { id: Number(r.id), appName: String(r.app_name), title: text(r.title) ?? '' };
}

function jobOf(r: RowDataPacket): XxlJob {
  return {
    id: Number(r.id),
    jobGroup: Number(r.job_group),
    description: text(r.description) ?? '',
    author: text(r.author) || null,
    alarmEmail: text(r.alarm_email) || null,
    scheduleType: text(r.schedule_type) ?? 'NONE',
    scheduleConf: text(r.schedule_conf),
    misfireStrategy: text(r.misfire_strategy) ?? 'DO_NOTHING',
    routeStrategy: text(r.executor_route_strategy) || null,
    handler: text(r.executor_handler),
    param: text(r.executor_param) || null,
    blockStrategy: text(r.executor_block_strategy) || null,
    timeoutSeconds: Number(r.executor_timeout ?? 0),
    failRetryCount: Number(r.executor_fail_retry_count ?? 0),
    glueType: text(r.glue_type) ?? 'BEAN',
    childJobIds: text(r.child_jobid) || null,
    triggerStatus: Number(r.trigger_status ?? 0),
    triggerNextTime: Number(r.trigger_next_time ?? 0),
    // A DATETIME with fractions comes as a DECIMAL string; a zero date as 0 or null.
    addTime: Number(r.add_time_ms) > 0 ? Math.floor(Number(r.add_time_ms)) : null,
  };
}
