/**
 * XXL-JOB's executor protocol as xxl-job-core 2.3 – 3.x speaks it (its public repository:
 * `AdminBiz` / `ExecutorBiz`, the models of `com.xxl.job.core.biz.model` — from 3.3 on
 * `openapi.model`, same fields). JSON over HTTP POST, every answer HTTP 200 with a ReturnT;
 * requests both ways carry the access token in the XXL_JOB_ACCESS_TOKEN header.
 *
 * Executor → admin (Baton serves these per tenant, XXL_JOB_ADMIN_PATHS): registry,
 * registryRemove, callback. Admin → executor (its embedded server, XXL_JOB_EXECUTOR_PATHS):
 * beat, idleBeat, run, kill, log.
 */

/** The header both sides send their access token in. */
export const XXL_JOB_ACCESS_TOKEN_HEADER = 'XXL-JOB-ACCESS-TOKEN';

/** ReturnT.code: success; anything else is a failure, 500 the usual one. */
export const XXL_JOB_SUCCESS = 200;
export const XXL_JOB_FAIL = 500;

/** HandleCallbackParam.handleCode of a handler that ran past its executorTimeout. */
export const XXL_JOB_HANDLE_TIMEOUT = 502;

/**
 * Every answer of both sides: `code` 200 success, else failure with `msg`. Up to 3.2 the payload
 * is `content` (ReturnT); from 3.3 `data` (xxl-tool's Response) — Baton reads either and, when it
 * answers, sends neither (the admin calls have none).
 */
export interface XxlReturn<T = unknown> {
  code: number;
  msg?: string | null;
  content?: T | null;
  data?: T | null;
}

/** POST {admin}/api/registry and /api/registryRemove: an executor of app `registryKey` at `registryValue` (its base URL). */
export interface XxlRegistryParam {
  /** `EXECUTOR` (XXL's admin also knew `ADMIN`). */
  registryGroup: string;
  /** The executor's appname (`xxl.job.executor.appname`): Baton's executor app. */
  registryKey: string;
  /** Its address, e.g. `http://10.0.0.7:9999/`. */
  registryValue: string;
}

/** One ended trigger in POST {admin}/api/callback (the body is an array of them). */
export interface XxlHandleCallbackParam {
  logId: number;
  /** The trigger's logDateTime, spelt `logDateTim` by xxl-job-core up to 3.3. */
  logDateTim?: number;
  logDateTime?: number;
  /** 200 success, 500 failure (also: killed, discarded), 502 timed out. */
  handleCode: number;
  handleMsg?: string | null;
}

/** POST {executor}/run: one trigger of a job. */
export interface XxlTriggerParam {
  /** The job: its thread on the executor, which block strategies and kill act on. */
  jobId: number;
  executorHandler: string;
  executorParams: string;
  /** SERIAL_EXECUTION | DISCARD_LATER | COVER_EARLY. */
  executorBlockStrategy: XxlBlockStrategy;
  /** Seconds; 0: none. */
  executorTimeout: number;
  logId: number;
  logDateTime: number;
  /** Always `BEAN` from Baton (GLUE jobs are not imported). */
  glueType: 'BEAN';
  glueSource: string;
  glueUpdatetime: number;
  broadcastIndex: number;
  broadcastTotal: number;
}

export type XxlBlockStrategy = 'SERIAL_EXECUTION' | 'DISCARD_LATER' | 'COVER_EARLY';

/** POST {executor}/kill and /idleBeat. */
export interface XxlJobIdParam {
  jobId: number;
}

/** POST {executor}/log: the trigger's log from line `fromLineNum` (1 = the first). */
export interface XxlLogParam {
  logId: number;
  /** xxl-job-core up to 3.3 reads `logDateTim`; later ones `logDateTime`: Baton sends both. */
  logDateTim: number;
  logDateTime: number;
  fromLineNum: number;
}

/** The content of /log's answer. */
export interface XxlLogResult {
  fromLineNum: number;
  toLineNum: number;
  logContent: string | null;
  isEnd: boolean;
}

/** The admin API's routes, after the tenant's base (`/xxl-job-admin/<tenant>`). */
export const XXL_JOB_ADMIN_PATHS = {
  registry: '/api/registry',
  registryRemove: '/api/registryRemove',
  callback: '/api/callback',
} as const;

/** The executor's routes, after its address. */
export const XXL_JOB_EXECUTOR_PATHS = {
  beat: 'beat',
  idleBeat: 'idleBeat',
  run: 'run',
  kill: 'kill',
  log: 'log',
} as const;

/** Where the tenant's XXL-JOB admin API lives on every engine: `xxl.job.admin.addresses` = engine URL + this. */
export function xxlJobAdminBase(tenantId: string): string {
  return `/xxl-job-admin/${encodeURIComponent(tenantId)}`;
}
