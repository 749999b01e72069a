import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An XXL-JOB executor as xxl-job-core 2.3 – 3.x behaves on the wire (its public repository:
 * EmbedServer, ExecutorBizImpl, JobThread, ExecutorRegistryThread, TriggerCallbackThread), for
 * tests of Baton's XXL-JOB admin API: no Baton code, only XXL-JOB's protocol.
 *
 * - Its embedded server answers POST /beat, /idleBeat, /run, /kill, /log, HTTP 200 with a ReturnT
 *   `{code, msg, content}`, after checking XXL-JOB-ACCESS-TOKEN (wrong: code 500).
 * - One job thread per jobId: a trigger queues behind the running one (SERIAL_EXECUTION),
 *   DISCARD_LATER refuses while busy, COVER_EARLY kills the running one; a logId already queued
 *   is refused "repeate trigger job"; executorTimeout > 0 ends a handler past it with 502.
 * - kill ends the job's thread: the running trigger and the queued ones are called back 500.
 * - It registers on start (POST {admin}api/registry, RegistryParam) and every `beatMs`, removes
 *   itself on stop (api/registryRemove), and calls back ended triggers (api/callback, an array
 *   of HandleCallbackParam with `logDateTim`), each admin address in turn until one says 200.
 */
export interface XxlTestExecutorOptions {
  /** `xxl.job.admin.addresses`: comma-separated. */
  adminAddresses: string;
  /** `xxl.job.accessToken`. */
  accessToken: string;
  /** `xxl.job.executor.appname`. */
  appname: string;
  /** Re-registration period (xxl-job-core: 30 s). */
  beatMs?: number;
}

type Handler = (ctx: { params: string; log(line: string): void; shardIndex: number; shardTotal: number; signal: AbortSignal }) => Promise<string | void>;

interface Trigger {
  jobId: number;
  executorHandler: string;
  executorParams: string;
  executorBlockStrategy: string;
  executorTimeout: number;
  logId: number;
  logDateTime: number;
  broadcastIndex: number;
  broadcastTotal: number;
}

interface JobThread {
  queue: Trigger[];
  running: { trigger: Trigger; abort: AbortController } | null;
  stopped: string | null;
}

/** The handlers tests use: `ok` (logs, returns), `echo` (returns its params and shard), `sleep` (params ms, killable), `fail` (throws). */
export const TEST_HANDLERS: Record<string, Handler> = {
  async ok(ctx) {
    ctx.log('step 1 of 2');
    ctx.log('step 2 of 2');
  },
  async echo(ctx) {
    ctx.log(`params ${ctx.params}`);
    return `${ctx.params} ${ctx.shardIndex}/${ctx.shardTotal}`;
  },
  async sleep(ctx) {
    ctx.log('sleeping');
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, Number(ctx.params) || 60_000);
      ctx.signal.addEventListener('abort', () => (clearTimeout(timer), reject(new Error('interrupted'))));
    });
  },
  async fail(ctx) {
    ctx.log('about to fail');
    throw new Error('planned failure');
  },
};

export class XxlTestExecutor {
  /** Every request its embedded server got: path, token header, body. */
  readonly received: Array<{ path: string; token: string | undefined; body: unknown }> = [];
  /** Every admin call it made and the ReturnT it got back. */
  readonly adminCalls: Array<{ uri: string; body: unknown; answer: { code: number; msg?: string | null } | null }> = [];
  private readonly jobs = new Map<number, JobThread>();
  private readonly logs = new Map<number, string[]>();
  private server: Server | null = null;
  private timer: NodeJS.Timeout | null = null;
  address = '';

  constructor(private readonly options: XxlTestExecutorOptions) {}

  /** Listens on 127.0.0.1 (ephemeral port) and registers; the registry answer of the first admin that took it. */
  async start(): Promise<{ code: number; msg?: string | null } | null> {
    this.server = createServer((req, res) => void this.serve(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.address = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`;
    const answer = await this.register('registry');
    this.timer = setInterval(() => void this.register('registry'), this.options.beatMs ?? 30_000);
    this.timer.unref();
    return answer;
  }

  /** Stops: registryRemove, then the server closes. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.register('registryRemove');
    for (const [jobId] of this.jobs) this.kill(jobId, 'executor stopped');
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server?.closeAllConnections();
  }

  private register(uri: 'registry' | 'registryRemove') {
    return this.callAdmin(uri, { registryGroup: 'EXECUTOR', registryKey: this.options.appname, registryValue: this.address });
  }

  /** Each admin address in turn until one answers code 200 (xxl-job-core's AdminBizClient loop). */
  private async callAdmin(uri: string, body: unknown): Promise<{ code: number; msg?: string | null } | null> {
    let last: { code: number; msg?: string | null } | null = null;
    for (const raw of this.options.adminAddresses.split(',')) {
      const base = raw.trim().endsWith('/') ? raw.trim() : `${raw.trim()}/`;
      last = await post(`${base}api/${uri}`, this.options.accessToken, body).catch(() => null);
      this.adminCalls.push({ uri, body, answer: last });
      if (last?.code === 200) break;
    }
    return last;
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
    const token = req.headers['xxl-job-access-token'] as string | undefined;
    this.received.push({ path: req.url ?? '', token, body });
    const answer = req.method !== 'POST' ? fail('invalid request, HttpMethod not support.') : token !== this.options.accessToken ? fail('The access token is wrong.') : this.route(req.url ?? '', body);
    res.writeHead(200, { 'content-type': 'text/html;charset=UTF-8' }).end(JSON.stringify(answer));
  }

  private route(path: string, body: Record<string, unknown> | null): object {
    switch (path) {
      case '/beat':
        return ok();
      case '/idleBeat': {
        const job = this.jobs.get(Number(body?.jobId));
        return job && (job.running || job.queue.length) ? fail('job thread is running or has trigger queue.') : ok();
      }
      case '/run':
        return this.run(body as unknown as Trigger);
      case '/kill':
        return this.jobs.has(Number(body?.jobId)) ? (this.kill(Number(body?.jobId), 'scheduling center kill job.'), ok()) : { code: 200, msg: 'job thread already killed.' };
      case '/log': {
        const lines = this.logs.get(Number(body?.logId)) ?? [];
        const from = Math.max(1, Number(body?.fromLineNum) || 1);
        return { code: 200, msg: null, content: { fromLineNum: from, toLineNum: lines.length, logContent: lines.slice(from - 1).join('\n'), isEnd: false } };
      }
      default:
        return fail(`invalid request, uri-mapping(${path}) not found.`);
    }
  }

  private run(trigger: Trigger): object {
    if (!TEST_HANDLERS[trigger.executorHandler]) return fail(`job handler [${trigger.executorHandler}] not found.`);
    let job = this.jobs.get(trigger.jobId);
    if (job && (job.running || job.queue.length)) {
      if (trigger.executorBlockStrategy === 'DISCARD_LATER') return fail('block strategy effect：Discard Later');
      if (trigger.executorBlockStrategy === 'COVER_EARLY') {
        this.kill(trigger.jobId, 'block strategy effect：Cover Early');
        job = undefined;
      }
    }
    if (job && (job.running?.trigger.logId === trigger.logId || job.queue.some((t) => t.logId === trigger.logId))) return fail(`repeate trigger job, logId:${trigger.logId}`);
    if (!job) this.jobs.set(trigger.jobId, (job = { queue: [], running: null, stopped: null }));
    job.queue.push(trigger);
    void this.drain(job);
    return ok();
  }

  private async drain(job: JobThread): Promise<void> {
    if (job.running) return;
    for (let trigger = job.queue.shift(); trigger && !job.stopped; trigger = job.queue.shift()) {
      const abort = new AbortController();
      job.running = { trigger, abort };
      const lines: string[] = [];
      this.logs.set(trigger.logId, lines);
      const log = (line: string) => lines.push(`${new Date().toISOString()} [xxl-test] ${line}`);
      log('----------- xxl-job job execute start -----------');
      let code = 200;
      let msg: string | null = null;
      let timer: NodeJS.Timeout | undefined;
      try {
        const handler = TEST_HANDLERS[trigger.executorHandler];
        const work = handler({ params: trigger.executorParams, log, shardIndex: trigger.broadcastIndex, shardTotal: trigger.broadcastTotal, signal: abort.signal });
        work.catch(() => undefined); // a handler left behind by its timeout fails unobserved
        const timeout = trigger.executorTimeout > 0 ? new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), trigger.executorTimeout * 1000))) : null;
        const result = await (timeout ? Promise.race([work, timeout]) : work);
        if (result === 'timeout') {
          abort.abort();
          code = 502;
          msg = 'job execute timeout ';
        } else msg = typeof result === 'string' ? result : null;
      } catch (err) {
        code = 500;
        msg = job.stopped ? `${job.stopped} [job running, killed]` : String((err as Error).message);
      } finally {
        clearTimeout(timer);
      }
      log(`----------- xxl-job job execute end(finish) ----------- Result: handleCode=${code}`);
      job.running = null;
      await this.callAdmin('callback', [{ logId: trigger.logId, logDateTim: trigger.logDateTime, handleCode: code, handleMsg: msg }]);
    }
  }

  /** Ends the job's thread: the running trigger is interrupted (its callback says killed), the queued ones called back at once. */
  private kill(jobId: number, reason: string): void {
    const job = this.jobs.get(jobId);
    if (!job) return;
    this.jobs.delete(jobId);
    job.stopped = reason;
    job.running?.abort.abort();
    for (const trigger of job.queue.splice(0)) void this.callAdmin('callback', [{ logId: trigger.logId, logDateTim: trigger.logDateTime, handleCode: 500, handleMsg: `${reason} [job not executed, in the job queue, killed.]` }]);
  }
}

function ok(): object {
  return { code: 200, msg: null, content: null };
}

function fail(msg: string): object {
  return { code: 500, msg, content: null };
}

/** XxlJobRemotingUtil.postBody: JSON POST with the token header; a non-200 status is a failed ReturnT. */
function post(url: string, token: string, body: unknown): Promise<{ code: number; msg?: string | null }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json;charset=UTF-8', 'XXL-JOB-ACCESS-TOKEN': token, 'content-length': Buffer.byteLength(payload) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        if (res.statusCode !== 200) return resolve({ code: 500, msg: `xxl-job remoting fail, StatusCode(${res.statusCode}) invalid. for url : ${url}` });
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { code: number; msg?: string | null });
        } catch {
          resolve({ code: 500, msg: 'response content invalid' });
        }
      });
    });
    req.on('error', reject);
    req.setTimeout(3_000, () => req.destroy(new Error('timeout')));
    req.end(payload);
  });
}
