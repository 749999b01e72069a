import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_HANDLER_SCHEMAS_BYTES } from '@baton/protocol';
import { describeExecutorConformance } from './executor-conformance';
import { FakeEngine } from './fake-engine';
import { HangingEngine } from './hanging-engine';
import { handlerSchemasOfSize } from './handler-schemas-of-size';
import { pythonExecutorCommand, startExecutorProcess } from './executor-process';

const python = process.env.BATON_PYTHON ?? 'python3';

describe('python3 for examples/python-executor', () => {
  it('is installed (this suite skips nothing: without python3 it fails)', () => {
    let version = '';
    try {
      version = execFileSync(python, ['--version'], { encoding: 'utf8' }).trim();
    } catch (err) {
      throw new Error(`examples/python-executor needs python3 (${python}): ${(err as Error).message}. Install it (apt-get install python3) or set BATON_PYTHON.`);
    }
    expect(version).toMatch(/^Python 3\./);
  });

  it('sends the handlers\' params schemas by the SDK\'s rule: none over 16 KB, 60 KB for the whole object, only objects of its own handlers', () => {
    // sendable_schemas of executor.py, fed the SDK test's cases (libs/executor-sdk/src/handler-schemas.spec.ts).
    const script = `
import json, sys
sys.path.insert(0, "examples/python-executor")
from executor import sendable_schemas, HANDLERS, HANDLER_SCHEMAS
big = lambda n: {"type": "object", "description": "x" * n}
schemas = {"huge": big(16 * 1024), **{f"h{i}": big(15_000) for i in range(1, 6)}, "ghost": {"type": "object"}, "plain": "object"}
kept, left_out = sendable_schemas(schemas, {*schemas} - {"ghost"})
exact, over = json.load(sys.stdin)
sent = sendable_schemas(exact, exact)[0]
print(json.dumps({"kept": sorted(kept), "leftOut": left_out, "shipped": sendable_schemas(HANDLER_SCHEMAS, HANDLERS),
                  "exact": len(json.dumps(sent, separators=(",", ":"))), "over": sendable_schemas(over, over)[1]}))`;
    // The whole object's bound, to the byte, as the SDK test and the engine count it.
    const names = Array.from({ length: 5 }, (_, i) => `handler-${i}-`.padEnd(100, 'x'));
    const input = JSON.stringify([handlerSchemasOfSize(names, MAX_HANDLER_SCHEMAS_BYTES), handlerSchemasOfSize(names, MAX_HANDLER_SCHEMAS_BYTES + 1)]);
    const out = JSON.parse(execFileSync(python, ['-c', script], { encoding: 'utf8', input, cwd: resolve(__dirname, '../..') })) as { kept: string[]; leftOut: string[]; shipped: [Record<string, unknown>, string[]]; exact: number; over: string[] };
    expect(out.exact).toBe(MAX_HANDLER_SCHEMAS_BYTES);
    expect(out.over).toEqual([expect.stringMatching(/^handler-4-x+ \(\d+ bytes\)$/)]);
    expect(out.kept).toEqual(['h1', 'h2', 'h3', 'h4']);
    expect(out.leftOut).toEqual([expect.stringMatching(/^huge \(\d+ bytes\)$/), expect.stringMatching(/^h5 \(\d+ bytes\)$/), 'ghost (no such handler)', 'plain (not a JSON object)']);
    expect(out.shipped).toEqual([{ sleep: expect.objectContaining({ type: 'object' }) }, []]);
  });

  it("ends its own lines about a traced run with runId, attempt, trace_id and span_id (the Node SDK's names); an untraced run's line names no trace", () => {
    // Two final callbacks an engine refuses for good (400): the line about each says so.
    const script = `
import io, json, sys, threading
sys.path.insert(0, "examples/python-executor")
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from executor import Executor
class Refusing(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        body = b'{"statusCode":400,"code":"BAD_REQUEST","error":"Bad Request","message":"no (test)"}'
        self.send_response(400)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
engine = ThreadingHTTPServer(("127.0.0.1", 0), Refusing)
threading.Thread(target=engine.serve_forever, daemon=True).start()
executor = Executor({"BATON_TENANT": "acme", "BATON_EXECUTOR_SECRET": "s3cret", "BATON_ENGINE_URLS": f"http://127.0.0.1:{engine.server_address[1]}"})
sys.stderr = io.StringIO()
tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
executor.deliver("7:2", [], {"runId": 7, "attempt": 2, "tenantId": "acme", "outcome": "SUCCEEDED", "traceparent": tp})
executor.deliver("8:1", [], {"runId": 8, "attempt": 1, "tenantId": "acme", "outcome": "SUCCEEDED"})
lines = sys.stderr.getvalue().splitlines()
sys.stderr = sys.__stderr__
print(json.dumps([l for l in lines if "refused for good" in l]))`;
    const lines = JSON.parse(execFileSync(python, ['-c', script], { encoding: 'utf8', cwd: resolve(__dirname, '../..') })) as string[];
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[python executor\] callback 7:2 refused for good by .*, dropped runId=7 attempt=2 trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7$/);
    expect(lines[1]).toMatch(/^\[python executor\] callback 8:1 refused for good by .*, dropped$/);
  });

  it('sends log levels lower-case, as the protocol spells them, and refuses another level at the call', () => {
    const script = `
import json, sys
sys.path.insert(0, "examples/python-executor")
from executor import Job, MAX_PENDING_LOG_LINES
job = Job({"runId": 1, "attempt": 1}, deadline=0)
for level in ("debug", "INFO", "Warn", "ERROR"):
    job.log(level, level)
try:
    job.log("NOTICE", "x")
    refused = None
except ValueError as err:
    refused = str(err)
levels = [line["level"] for line in job.take_logs()]
crowded = Job({"runId": 2, "attempt": 1}, deadline=0)
for _ in range(MAX_PENDING_LOG_LINES + 1):
    crowded.log("info", "line")
print(json.dumps({"levels": levels, "refused": refused, "marker": crowded.take_logs()[0]}))`;
    const out = JSON.parse(execFileSync(python, ['-c', script], { encoding: 'utf8', cwd: resolve(__dirname, '../..') })) as { levels: string[]; refused: string | null; marker: { level: string; message: string } };
    expect(out.levels).toEqual(['debug', 'info', 'warn', 'error']);
    expect(out.refused).toBe("log level: must be one of debug, info, warn, error (got 'NOTICE')");
    expect(out.marker).toMatchObject({ level: 'warn', message: expect.stringMatching(/^\[1 log line\(s\) dropped/) });
  });

  it('listens with a backlog of 128, as the Java SDK (http.server\'s 5 drops the connections of a burst)', () => {
    const script = `
import sys
sys.path.insert(0, "examples/python-executor")
from executor import ExecutorServer
print(ExecutorServer.request_queue_size)`;
    expect(execFileSync(python, ['-c', script], { encoding: 'utf8', cwd: resolve(__dirname, '../..') }).trim()).toBe('128');
  });

  it('counts a run sent ahead from its request\'s arrival, not from when its body came and was judged', () => {
    // The batch's headers come, its body 900 ms later: its runs start startInMs (1,000 ms) after the
    // headers, never earlier — and before startInMs after the body, which counting from it would give.
    const script = `
import json, socket, sys, threading, time
sys.path.insert(0, "examples/python-executor")
from http.server import ThreadingHTTPServer
from executor import Executor, make_handler, now_ms, sign
executor = Executor({"BATON_TENANT": "acme", "BATON_EXECUTOR_SECRET": "s3cret", "BATON_ENGINE_URLS": "http://127.0.0.1:9", "BATON_EXECUTOR_RETRY_BASE_MS": "60000"})
executor.heard(time.monotonic(), None)  # as if an engine had just answered a heartbeat: runs sent ahead start only within that lease
server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(executor))
threading.Thread(target=server.serve_forever, daemon=True).start()
run = lambda run_id: {"runId": run_id, "attempt": 1, "tenantId": "acme", "taskId": 1, "taskName": "t", "handler": "noop", "params": None,
                      "scheduledAt": now_ms(), "deadline": now_ms() + 60_000, "callbackUrls": [], "startInMs": 1000}
body = json.dumps({"runs": [run(1), run(2)]}).encode()
head = f"POST /baton/runs/batch HTTP/1.1\\r\\nHost: executor\\r\\nContent-Type: application/json\\r\\nContent-Length: {len(body)}\\r\\n"
head += "".join(f"{k}: {v}\\r\\n" for k, v in sign("s3cret", "acme", "POST", "/baton/runs/batch", body).items()) + "\\r\\n"
conn = socket.create_connection(server.server_address[:2])
sent_at = now_ms()
conn.sendall(head.encode())
time.sleep(0.9)
body_at = now_ms()
conn.sendall(body)
status = conn.recv(12).decode()
until = time.time() + 30
while not all(f"{i}:1" in executor.finished for i in (1, 2)) and time.time() < until:
    time.sleep(0.01)
print(json.dumps({"status": status, "started": [executor.finished[f"{i}:1"]["startedAt"] for i in (1, 2)], "sentAt": sent_at, "bodyAt": body_at}))`;
    const out = JSON.parse(execFileSync(python, ['-c', script], { encoding: 'utf8', cwd: resolve(__dirname, '../..') })) as { status: string; started: number[]; sentAt: number; bodyAt: number };
    expect(out.status).toMatch(/^HTTP\/1\.[01] 200/);
    for (const started of out.started) {
      expect(started - out.sentAt).toBeGreaterThanOrEqual(1000);
      expect(started - out.bodyAt).toBeLessThan(1000);
    }
  });
});

describe('examples/python-executor: a line per task', () => {
  it('lets the runs waiting for a worker take it task by task in turn (one line started b1 b2 b3 b4 i1 c1 i2)', () => {
    // One worker; run b1 holds it until released, the others wait in line; each release lets the
    // next run in turn take the worker, and the script waits for that start before the next release.
    const script = `
import json, sys, threading, time
sys.path.insert(0, "examples/python-executor")
import executor as ex
started, gates = [], {}
def gate(ctx):
    started.append(ctx.params["name"])
    gates[ctx.params["name"]].wait(30)
ex.HANDLERS["gate"] = gate
executor = ex.Executor({"BATON_TENANT": "acme", "BATON_EXECUTOR_SECRET": "s3cret", "BATON_ENGINE_URLS": "http://127.0.0.1:9",
                        "BATON_EXECUTOR_RETRY_BASE_MS": "60000", "BATON_EXECUTOR_CONCURRENCY": "1", "BATON_EXECUTOR_QUEUE_LIMIT": "10"})
def until(done):
    limit = time.time() + 30
    while not done() and time.time() < limit:
        time.sleep(0.01)
runs = [(1, "b1"), (1, "b2"), (1, "b3"), (1, "b4"), (2, "i1"), (3, "c1"), (2, "i2")]
statuses = []
for run_id, (task, name) in enumerate(runs, 1):
    gates[name] = threading.Event()
    statuses.append(executor.dispatch({"runId": run_id, "attempt": 1, "tenantId": "acme", "taskId": task, "taskName": name, "handler": "gate",
                                       "params": {"name": name}, "scheduledAt": ex.now_ms(), "deadline": ex.now_ms() + 60_000, "callbackUrls": []}, ex.now_ms())[0])
    if run_id == 1:
        until(lambda: len(started) == 1)
for n in range(2, len(runs) + 1):
    gates[started[-1]].set()
    until(lambda: len(started) == n)
for g in gates.values():
    g.set()
print(json.dumps({"statuses": statuses, "started": started}))`;
    const out = JSON.parse(execFileSync(python, ['-c', script], { encoding: 'utf8', cwd: resolve(__dirname, '../..') })) as { statuses: number[]; started: string[] };
    expect(out.statuses).toEqual([202, 202, 202, 202, 202, 202, 202]);
    expect(out.started).toEqual(['b1', 'b2', 'i1', 'c1', 'b3', 'i2', 'b4']);
  });
});

describe('examples/python-executor: starts before reports', () => {
  // As sdks/go/baton/starts_first_test.go: one worker, runs in line behind it. A final callback
  // waits while a run whose time has come waits in line, at most 250 ms; it goes at once when the
  // line empties, and a run sent ahead that waits for its instant holds nothing.
  it('holds final callbacks while runs wait in line for a worker: at most 250 ms, until the line empties', async () => {
    const engine = await FakeEngine.start({ tenantId: 'acme', secret: 'starts-first-secret' });
    const executor = await startExecutorProcess(
      pythonExecutorCommand({
        BATON_TENANT: engine.tenantId,
        BATON_EXECUTOR_SECRET: engine.secret,
        BATON_ENGINE_URLS: engine.url,
        BATON_EXECUTOR_CONCURRENCY: '1',
        BATON_EXECUTOR_QUEUE_LIMIT: '3',
      }),
    );
    try {
      // Run 1 ends at ~300 ms while run 3 waits behind run 2 (2,000 ms) until ~2,300 ms: the line
      // stays full long past the bound. Run 2 ends as run 3 starts, emptying the line. Run 3 ends at
      // ~2,600 ms with only run 4 left, sent ahead to start at 3,500 ms. The bounds are checked
      // against the SDK's 250 ms (MOST_HELD_FOR_STARTS_MS), far from the ~2,000 ms run 1 would be
      // held without it; "at once" is "not held for the bound".
      const runs = [
        engine.request({ runId: 1, handler: 'sleep', params: { ms: 300 } }),
        engine.request({ runId: 2, handler: 'sleep', params: { ms: 2000 } }),
        engine.request({ runId: 3, handler: 'sleep', params: { ms: 300 } }),
        engine.request({ runId: 4, handler: 'noop', startInMs: 3500 }),
      ];
      const answer = await engine.dispatchBatch(executor.url, runs);
      expect(answer.status).toBe(200);
      expect((answer.body.results as Array<{ status: number }>).map((r) => r.status)).toEqual([202, 202, 202, 202]);
      const heldFor = async (runId: number) => {
        const cb = await engine.finalCallback(runId, 1).catch((err: Error) => {
          throw new Error(`${err.message}\n--- executor output ---\n${executor.output()}`);
        });
        expect(cb.body.outcome).toBe('SUCCEEDED');
        return cb.at - cb.body.finishedAt!;
      };
      const held = { 1: await heldFor(1), 2: await heldFor(2), 3: await heldFor(3) };
      expect(held[1], 'run 1: held the full 250 ms while run 3 waited in line').toBeGreaterThanOrEqual(245);
      expect(held[1], 'run 1: held at most 250 ms though run 3 still waited').toBeLessThan(1000);
      expect(held[2], 'run 2: sent as the line emptied (run 3 started)').toBeLessThan(250);
      expect(held[3], 'run 3: sent at once, run 4 waiting for its instant is not in line').toBeLessThan(250);
      await engine.finalCallback(4, 1);
    } finally {
      await executor.stop('SIGKILL');
      await engine.close();
    }
  });
});

describe('examples/python-executor: one hanging engine does not hold final callbacks', () => {
  // As sdks/go/baton/hanging_engine_test.go: the engine listed first accepts connections and never
  // answers. The callback must reach the second engine while the first still holds its copy: the
  // executor has not given that request up (its 10 s timeout), so it went around, not through it.
  it('sends a final callback listed for a hanging engine first to the next engine after BATON_EXECUTOR_REROUTE_AFTER_MS', async () => {
    const engine = await FakeEngine.start({ tenantId: 'acme', secret: 'hanging-secret' });
    const hanging = await HangingEngine.start();
    const executor = await startExecutorProcess(
      pythonExecutorCommand({
        BATON_TENANT: engine.tenantId,
        BATON_EXECUTOR_SECRET: engine.secret,
        BATON_ENGINE_URLS: `${hanging.url},${engine.url}`,
        BATON_EXECUTOR_REROUTE_AFTER_MS: '200',
      }),
    );
    try {
      const req = engine.request({ handler: 'noop', callbackUrls: [hanging.url, engine.url] });
      expect((await engine.dispatch(executor.url, req)).status).toBe(202);
      const cb = await engine.finalCallback(req.runId, 1).catch((err: Error) => {
        throw new Error(`${err.message}\n--- executor output ---\n${executor.output()}`);
      });
      expect(cb.body.outcome).toBe('SUCCEEDED');
      expect(hanging.holdingCallbacks, 'the hanging engine still holds the callback it was sent first').toBeGreaterThan(0);
    } finally {
      await executor.stop('SIGKILL');
      await hanging.close();
      await engine.close();
    }
  });
});

describeExecutorConformance({
  name: 'examples/python-executor (Python 3 standard library)',
  command: (env) => pythonExecutorCommand(env),
  handlers: {
    ok: { handler: 'noop' },
    shard: { handler: 'shard-part' },
    logSteps: { handler: 'log-steps', params: (ms) => ({ ms }) },
    sleep: { handler: 'sleep', params: (ms) => ({ ms }) },
    fail: { handler: 'fail' },
    failNonRetryable: { handler: 'fail', params: { nonRetryable: true } },
  },
});
