#!/usr/bin/env python3
"""A Baton executor in Python 3, standard library only.

It speaks the executor protocol of libs/protocol/openapi.yaml (the same wire format as the
TypeScript SDK): signed dispatch / abort / status requests from engines, a bounded worker pool,
signed callbacks with retries, heartbeats (which are also the registration), graceful shutdown.
Protocol 2: a run sent ahead of its instant (`startInMs`) is accepted at once and held until then.
Protocol 3: it starts then only within the sent-ahead lease — an engine answered a heartbeat whose
round began no more than 2 × the acked interval before — and is let go unstarted (ABORTED
NO_CONTACT) otherwise, or when an ack's `handBacks` changes: the engines dispatch it again.
While runs wait in line for a worker, final callbacks wait (at most 250 ms): starts go first.

Configuration (environment), as for apps/demo-executor:
  BATON_TENANT, BATON_EXECUTOR_SECRET, BATON_ENGINE_URLS (comma-separated)   required
  BATON_EXECUTOR_APP (python), BATON_EXECUTOR_HOST (127.0.0.1), BATON_EXECUTOR_PORT (0),
  BATON_EXECUTOR_PUBLIC_URL (the bound URL), BATON_EXECUTOR_CONCURRENCY (16),
  BATON_EXECUTOR_QUEUE_LIMIT (1000), BATON_EXECUTOR_HEARTBEAT_MS (3000),
  BATON_EXECUTOR_RETRY_BASE_MS (200), BATON_EXECUTOR_RETRY_MAX_MS (30000),
  BATON_EXECUTOR_SHUTDOWN_GRACE_MS (10000), BATON_EXECUTOR_REROUTE_AFTER_MS (1000: a callback an
  engine has not answered within it also goes to the next engine, and that engine goes last for 5 s)
Prints "READY <url>" on stdout once it listens. SIGTERM / SIGINT stop it gracefully.

Unlike the SDK it keeps undelivered callbacks in memory only (no spool file): a crash loses them
and the engine's watchdog reconciles those runs.
"""

import collections
import email.utils
import hashlib
import heapq
import hmac
import itertools
import json
import math
import os
import queue
import random
import re
import signal
import sys
import threading
import time
import traceback
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PROTOCOL_VERSION = 3
# Protocol 3's sent-ahead lease: a run held for its instant starts at most this many heartbeat
# intervals after the round of the last heartbeat an engine answered began.
SENT_AHEAD_LEASE_INTERVALS = 2
# As libs/protocol's MAX_START_IN_MS: engines never send a run further ahead than this.
MAX_START_IN_MS = 60_000
MAX_SKEW_MS = 300_000
MAX_BODY_BYTES = 1_048_576
MAX_RUNS_PER_DISPATCH_BATCH = 100
RECENTLY_FINISHED_LIMIT = 10_000
# A running handler's new log lines go to the engine at most this often (the console's live tail),
# as the TypeScript SDK's default progressIntervalMs does; the rest go with the final callback.
LOG_TAIL_INTERVAL_MS = 1000
# One engine's try of a heartbeat (s), well under the engines' BATON_EXECUTOR_DEAD_AFTER_MS (10 s,
# the timeout of other requests too): an engine that hangs (black-holed, frozen) costs one short
# try, and the next engine is tried, instead of keeping the executor silent until it is DOWN.
HEARTBEAT_TRY_S = 2
# An engine that has not answered a callback within BATON_EXECUTOR_REROUTE_AFTER_MS (default 1000,
# the Node SDK's rerouteAfterMs) is tried after the others for this long (s), again each time it hangs.
SET_ASIDE_S = 5
MAX_PENDING_LOG_LINES = 200
# A log line's levels, as the protocol's LogLevel spells them (engines store another as info).
LOG_LEVELS = ("debug", "info", "warn", "error")
# The longest a final callback is held back while runs wait in line to start: the outcome must not
# wait on a line that stays full. The SDKs' bound (a 4,000-run burst sent ahead started within
# ~0.6 s of its instant).
MOST_HELD_FOR_STARTS_MS = 250
H_TENANT, H_TIMESTAMP, H_SIGNATURE = "x-baton-tenant", "x-baton-timestamp", "x-baton-signature"
CANONICAL_SIGNATURE = re.compile(r"[0-9a-f]{64}")
ABORT_REASONS = ("TIMEOUT", "CANCELLED", "REPLACED")
ABORT_MESSAGES = {
    "TIMEOUT": "aborted by the engine: the run timed out",
    "CANCELLED": "aborted by the engine: the run was cancelled",
    "REPLACED": "aborted by the engine: the run was replaced by a newer one",
    "DEADLINE": "aborted: the run passed its deadline",
    "SHUTDOWN": "aborted: the executor is shutting down",
    "NO_CONTACT": "not started: sent ahead, and no engine had answered a heartbeat within the sent-ahead lease before its instant (or the engines handed it back)",
}


def now_ms():
    return int(time.time() * 1000)


def log(message):
    print(f"[python executor] {message}", file=sys.stderr, flush=True)


# ---- signing (exactly as libs/protocol/src/signing.ts) -----------------------------------

def canonical(timestamp, method, path, body):
    """`${timestamp}\\n${METHOD}\\n${path}\\n${hex sha256(body)}`; body is bytes (UTF-8)."""
    return f"{timestamp}\n{method.upper()}\n{path}\n{hashlib.sha256(body).hexdigest()}"


def sign(secret, tenant, method, path, body, at=None):
    timestamp = str(at if at is not None else now_ms())
    digest = hmac.new(secret.encode(), canonical(timestamp, method, path, body).encode(), hashlib.sha256).hexdigest()
    return {H_TENANT: tenant, H_TIMESTAMP: timestamp, H_SIGNATURE: digest}


def verify(secret, headers, method, path, body):
    """None when valid, else the reason (as the SDK words it)."""
    timestamp, signature = headers.get(H_TIMESTAMP), headers.get(H_SIGNATURE)
    if timestamp is None or signature is None:
        return "signature: missing x-baton-timestamp / x-baton-signature headers"
    try:
        at = float(timestamp)
    except ValueError:
        at = float("nan")
    if not (abs(now_ms() - at) <= MAX_SKEW_MS):
        return f"signature: x-baton-timestamp is malformed or more than {MAX_SKEW_MS} ms away from the executor's clock"
    # One spelling only, as the engine and the SDK: a re-spelt copy of a captured signature
    # (upper case, extra characters) is refused rather than normalised.
    if not CANONICAL_SIGNATURE.fullmatch(signature):
        return "signature: x-baton-signature is not lower-case hex of exactly 64 characters"
    expected = hmac.new(secret.encode(), canonical(timestamp, method, path, body).encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, signature):
        return "signature: the signature does not match (secret, method, path or body differ)"
    return None


# ---- handlers ------------------------------------------------------------------------------

class Aborted(Exception):
    pass


class NonRetryableError(Exception):
    """Raise it when trying again cannot help: the run ends FAILED without spending the task's
    remaining attempts (the callback says `retryable: false`). Any exception with a true
    `non_retryable` attribute counts too."""

    non_retryable = True
    code = "NON_RETRYABLE"


TRACEPARENT = re.compile(r"^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$")


def traceparent_of(req):
    """The run's W3C traceparent, or None (absent or malformed: a trace hint never refuses a run)."""
    v = req.get("traceparent")
    return v if isinstance(v, str) and TRACEPARENT.match(v) else None


def trace_fields(run_id, attempt, traceparent):
    """What the executor appends to its own log lines about a run the engines trace: the run's id and
    attempt, and its trace_id and span_id (the engine's span the run was dispatched under, which a
    handler's spans nest under), as key=value pairs with the Node SDK's field names, so a log
    pipeline can join the line to the run's trace. "" for an untraced run."""
    if not (isinstance(traceparent, str) and TRACEPARENT.match(traceparent)):
        return ""
    return f" runId={run_id} attempt={attempt} trace_id={traceparent[3:35]} span_id={traceparent[36:52]}"


class Context:
    """What a handler gets (ctx.log lines reach the console while the handler runs): params, parent_results (its parents' results in a flow, by task name;
    {} for a run no parent fired), flow_params, shard_index / shard_total (a BROADCAST or SHARDED
    task's shard: its index of how many; 0 of 1 for other runs), run_id, attempt, deadline (epoch ms
    on this machine's clock: the dispatch's arrival + the time its engine gave the run, deadlineInMs),
    traceparent (the run's W3C trace context when the engines trace, else None: with OpenTelemetry,
    `TraceContextTextMapPropagator().extract({"traceparent": ctx.traceparent})` gives the context
    your spans nest under), abort_event, sleep(), log()."""

    def __init__(self, job):
        req = job.request
        self.params = req["params"]
        self.parent_results = req.get("parentResults") or {}
        self.flow_params = req.get("flowParams")
        self.shard_index = req.get("shardIndex", 0)
        self.shard_total = req.get("shardTotal", 1)
        self.traceparent = traceparent_of(req)
        self.run_id, self.attempt = req["runId"], req["attempt"]
        self.task_name, self.deadline = req["taskName"], job.deadline
        self.abort_event = job.abort_event
        self._job = job

    def sleep(self, ms):
        if self.abort_event.wait(max(0, ms) / 1000.0):
            raise Aborted(ABORT_MESSAGES.get(self._job.abort_reason, "aborted"))

    def log(self, level, message):
        """level: debug, info, warn or error (any case); another raises ValueError here, at the call."""
        self._job.log(level, message)


def h_noop(ctx):
    return {"ok": True}


def h_sleep(ctx):
    ms = (ctx.params or {}).get("ms", 1000) if isinstance(ctx.params, dict) else 1000
    ctx.sleep(ms)
    return {"sleptMs": ms}


def h_fail(ctx):
    if isinstance(ctx.params, dict) and ctx.params.get("nonRetryable") is True:
        raise NonRetryableError(f"planned failure on attempt {ctx.attempt}, not retryable")
    raise RuntimeError(f"planned failure on attempt {ctx.attempt}")


def h_shard(ctx):
    """One shard's part of a BROADCAST or SHARDED run: the items i < params.items (default 100)
    with i % shard_total == shard_index."""
    items = (ctx.params or {}).get("items", 100) if isinstance(ctx.params, dict) else 100
    mine = len(range(ctx.shard_index, items, ctx.shard_total))
    return {"shardIndex": ctx.shard_index, "shardTotal": ctx.shard_total, "items": mine}


def h_log_steps(ctx):
    """params.ms (default 10000) in ten steps, a log line each: the console shows them as they come."""
    ms = (ctx.params or {}).get("ms", 10_000) if isinstance(ctx.params, dict) else 10_000
    for step in range(1, 11):
        ctx.sleep(ms / 10)
        ctx.log("info", f"step {step}/10 done")
    return {"ms": ms}


HANDLERS = {"noop": h_noop, "sleep": h_sleep, "fail": h_fail, "shard-part": h_shard, "log-steps": h_log_steps}

# JSON schemas of some handlers' params, sent with every heartbeat: the console shows them in the
# task editor and refuses to save a task whose params do not fit (bounds: sendable_schemas).
HANDLER_SCHEMAS = {
    "sleep": {"type": "object", "properties": {"ms": {"type": "integer", "minimum": 0, "description": "How long to sleep, in ms (default 1000)"}}},
}
# As libs/protocol's MAX_HANDLER_SCHEMA_BYTES / MAX_HANDLER_SCHEMAS_BYTES (serialised, UTF-8).
MAX_HANDLER_SCHEMA_BYTES = 16 * 1024
MAX_HANDLER_SCHEMAS_BYTES = 60 * 1024


def sendable_schemas(schemas, handlers):
    """The heartbeat's handlerSchemas and what was left out of it, named, by the SDK's rule
    (libs/executor-sdk/src/handler-schemas.ts): a schema that is not a JSON object, names no
    handler, is over 16 KB serialised or would take the whole object past 60 KB stays behind
    (its tasks are saved unchecked). An engine refuses a heartbeat carrying one, so sending it
    would keep the executor from registering at all."""
    def size(value):
        return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())

    kept, left_out, total = {}, [], size({})
    for name, schema in schemas.items():
        schema_bytes = size(schema)
        # What the entry adds to the serialised object: "name":schema, after a comma but for the first.
        entry = (1 if kept else 0) + size(name) + 1 + schema_bytes
        if name not in handlers or not isinstance(schema, dict):
            left_out.append(f"{name} ({'no such handler' if name not in handlers else 'not a JSON object'})")
        elif schema_bytes > MAX_HANDLER_SCHEMA_BYTES or total + entry > MAX_HANDLER_SCHEMAS_BYTES:
            left_out.append(f"{name} ({schema_bytes} bytes)")
        else:
            total += entry
            kept[name] = schema
    return kept, left_out


# ---- validation ----------------------------------------------------------------------------

def error_text(err):
    """A failed handler's error: the exception's own line first (`ValueError: card declined`, what
    alarms show), then the traceback, its paths relative to the working directory; bounded."""
    trace = traceback.format_exc().replace(os.getcwd() + os.sep, "")
    return f"{type(err).__name__}: {err}\n{trace}"[:8192]


def retry_after_seconds(value):
    """A Retry-After header in seconds (delay-seconds or an HTTP date), at most 60; 0 when absent or unreadable."""
    if not value:
        return 0
    value = value.strip()
    if value.isdigit():
        seconds = int(value)
    else:
        try:
            seconds = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return 0
    return max(0, min(60, seconds))


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check_dispatch(body):
    """(None, request) or (field, message)."""
    if not isinstance(body, dict):
        return "body", "body: must be a JSON object"
    for field, low in (("runId", 1), ("attempt", 1), ("taskId", 0), ("scheduledAt", 0), ("deadline", 0)):
        v = body.get(field)
        if v is None:
            return field, f"{field}: is required"
        if not is_int(v):
            return field, f"{field}: must be an integer (got {json.dumps(v)})"
        if v < low:
            return field, f"{field}: must be >= {low} (got {v})"
    for field in ("tenantId", "taskName", "handler"):
        v = body.get(field)
        if v is None:
            return field, f"{field}: is required"
        if not isinstance(v, str):
            return field, f"{field}: must be a string"
        if field != "taskName" and not v:
            return field, f"{field}: must not be empty"
    if "params" not in body:
        return "params", "params: is required (null when the task has none)"
    urls = body.get("callbackUrls")
    if not isinstance(urls, list):
        return "callbackUrls", "callbackUrls: is required (an array of engine base URLs, may be empty)"
    for i, u in enumerate(urls):
        if not isinstance(u, str) or not re.match(r"^https?://[^/\s]+", u):
            return f"callbackUrls[{i}]", f"callbackUrls[{i}]: must be an http(s) URL"
    if "shardIndex" in body or "shardTotal" in body:
        for field, low in (("shardTotal", 1), ("shardIndex", 0)):
            v = body.get(field)
            if not is_int(v):
                return field, f"{field}: is required as an integer with the other shard field"
            if v < low:
                return field, f"{field}: must be >= {low} (got {v})"
        if body["shardIndex"] >= body["shardTotal"]:
            return "shardIndex", f"shardIndex: must be below shardTotal ({body['shardTotal']})"
    if "deadlineInMs" in body:
        v = body["deadlineInMs"]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            return "deadlineInMs", f"deadlineInMs: must be a finite number >= 0 (got {json.dumps(v)})"
    if "startInMs" in body:
        v = body["startInMs"]
        if not is_int(v):
            return "startInMs", f"startInMs: must be an integer (got {json.dumps(v)})"
        if not 0 <= v <= MAX_START_IN_MS:
            return "startInMs", f"startInMs: must be from 0 to {MAX_START_IN_MS} (got {v})"
    return None, body


# ---- the executor --------------------------------------------------------------------------

class TaskLines:
    """The runs waiting in line for a worker: one line per task, the lines taking the free workers in
    turn, each line first come first. One task's thousand runs queued here cost another task's run
    one run's wait, not the thousand's, as in the Node SDK's pool (libs/executor-sdk/src/pool.ts),
    where one line made a tenant's other task wait 42 s behind its bulk task's queue (bench
    task-backlog --bulk-ms). Used under the executor's lock."""

    def __init__(self):
        self.lines = {}  # task id -> deque of jobs, in their turn's order (a dict keeps insertion order)
        self.size = 0

    def __len__(self):
        return self.size

    def append(self, job):
        """Puts the job at the end of its task's line; a task new to the line takes its turn after those there."""
        self.lines.setdefault(job.request["taskId"], collections.deque()).append(job)
        self.size += 1

    def popleft(self):
        """The first job of the task whose turn it is; that task goes to the back if it has more."""
        task = next(iter(self.lines))
        line = self.lines.pop(task)
        job = line.popleft()
        if line:
            self.lines[task] = line
        self.size -= 1
        return job

    def remove(self, job):
        """Takes the job out of its line; False when it is not in line."""
        line = self.lines.get(job.request["taskId"])
        if line is None or job not in line:
            return False
        line.remove(job)
        if not line:
            del self.lines[job.request["taskId"]]
        self.size -= 1
        return True

    def drain(self):
        """Empties the lines and returns their jobs, line by line."""
        jobs = [job for line in self.lines.values() for job in line]
        self.lines.clear()
        self.size = 0
        return jobs


def local_deadline(request, arrived_at):
    """The run's deadline on this machine's clock (epoch ms): its request's arrival + deadlineInMs,
    which the engine counted on its corrected time as the request left, rounded up to the ms.
    Relative, so an executor whose clock is ahead of the engines' does not abort its handlers early
    (the transit only makes it later). From an engine that sends no deadlineInMs (an older one):
    its deadline, read on this clock."""
    if "deadlineInMs" not in request:
        return request["deadline"]
    return arrived_at + math.ceil(request["deadlineInMs"])


class Job:
    def __init__(self, request, deadline):
        self.request = request
        self.deadline = deadline  # on this machine's clock: local_deadline
        self.key = f"{request['runId']}:{request['attempt']}"
        self.state = "QUEUED"
        self.abort_event = threading.Event()
        self.abort_reason = None
        self.started_at = None
        self.logs = collections.deque()  # lines not yet taken by an engine
        self.dropped = 0  # lines dropped unsent (more than MAX_PENDING_LOG_LINES waiting)
        self.tail_lock = threading.Lock()  # an interim send and the final callback never carry the same lines
        self.tail_stale = False  # the engine answered 409 to an interim callback: the run is over there

    def abort(self, reason):
        if self.abort_event.is_set():
            return False
        self.abort_reason = reason
        self.abort_event.set()
        return True

    def log(self, level, message):
        wire = level.lower() if isinstance(level, str) else level
        if wire not in LOG_LEVELS:
            raise ValueError(f"log level: must be one of {', '.join(LOG_LEVELS)} (got {level!r})")
        self.logs.append({"at": now_ms(), "level": wire, "message": str(message)[:4096]})
        while len(self.logs) > MAX_PENDING_LOG_LINES:
            self.logs.popleft()
            self.dropped += 1

    def take_logs(self):
        """The pending lines (after a marker when some were dropped); they stay pending until `taken`."""
        lines = list(self.logs)
        if self.dropped:
            lines.insert(0, {"at": now_ms(), "level": "warn", "message": f"[{self.dropped} log line(s) dropped: more than {MAX_PENDING_LOG_LINES} waiting]"})
        return lines

    def taken(self, count):
        """An engine took the first `count` pending lines (and the dropped-lines marker)."""
        for _ in range(min(count, len(self.logs))):
            self.logs.popleft()
        self.dropped = 0


class StartsFirst:
    """Holds final callbacks back while runs wait in line for a worker, as the SDKs do
    (libs/executor-sdk/src/starts-first.ts, sdks/go/baton/starts_first.go): on a busy machine,
    starting a run that is due is worth more than reporting one that ended — a report sets an
    engine and its database to work on the cores the next start needs. The callback is in
    `pending_callbacks` already (heartbeats count it, a status query says it is pending), so
    holding delays the run's outcome, never loses it.

    One hold at a time: the callbacks that end during it wait for the same release — the line
    empties, or MOST_HELD_FOR_STARTS_MS pass — so they go out together. Guarded by the executor's lock."""

    def __init__(self):
        self.released = None  # the current hold's event, set when the line empties
        self.until = 0.0  # when the current hold ends anyway (time.monotonic())

    def turn(self, line_waiting):
        """None when a final callback may go at once, else (released, until): wait for the event,
        at most until then (outside the lock)."""
        if not line_waiting:
            return None
        now = time.monotonic()
        if self.released is None or now >= self.until:
            self.released, self.until = threading.Event(), now + MOST_HELD_FOR_STARTS_MS / 1000.0
        return self.released, self.until

    def release(self):
        """No run waits in line any more: the held callbacks go."""
        if self.released is not None:
            self.released.set()
            self.released = None


class Executor:
    def __init__(self, env):
        def required(name):
            v = (env.get(name) or "").strip()
            if not v:
                raise SystemExit(f"python executor: {name} is required")
            return v

        def integer(name, default):
            raw = (env.get(name) or "").strip()
            if not raw:
                return default
            if not raw.isdigit():
                raise SystemExit(f"python executor: {name} must be a non-negative integer (got {raw!r})")
            return int(raw)

        self.tenant = required("BATON_TENANT")
        self.secret = required("BATON_EXECUTOR_SECRET")
        self.engine_urls = [u.strip().rstrip("/") for u in required("BATON_ENGINE_URLS").split(",") if u.strip()]
        self.app = (env.get("BATON_EXECUTOR_APP") or "").strip() or "python"
        self.host = (env.get("BATON_EXECUTOR_HOST") or "").strip() or "127.0.0.1"
        self.port = integer("BATON_EXECUTOR_PORT", 0)
        self.public_url = (env.get("BATON_EXECUTOR_PUBLIC_URL") or "").strip().rstrip("/") or None
        self.concurrency = max(1, integer("BATON_EXECUTOR_CONCURRENCY", 16))
        self.queue_limit = integer("BATON_EXECUTOR_QUEUE_LIMIT", 1000)
        self.heartbeat_ms = max(10, integer("BATON_EXECUTOR_HEARTBEAT_MS", 3000))
        self.retry_base_ms = max(1, integer("BATON_EXECUTOR_RETRY_BASE_MS", 200))
        self.retry_max_ms = max(1, integer("BATON_EXECUTOR_RETRY_MAX_MS", 30_000))
        self.grace_ms = integer("BATON_EXECUTOR_SHUTDOWN_GRACE_MS", 10_000)
        # A callback an engine has not answered within this (ms) also goes to the next engine
        # (engine_round): one hanging engine must not keep finished runs running for the 10 s
        # request timeout.
        self.reroute_after_ms = max(1, integer("BATON_EXECUTOR_REROUTE_AFTER_MS", 1000))
        self.aside_until = {}  # engine URL -> until when it is tried last (monotonic s): it hung
        self.started_at = now_ms()
        self.handler_schemas, left_out = sendable_schemas(HANDLER_SCHEMAS, HANDLERS)
        if left_out:
            log(f"params schemas not sent (their tasks are saved unchecked): {', '.join(left_out)}")
        self.lock = threading.Condition()
        self.jobs = {}  # key -> Job (queued or running)
        self.queue = TaskLines()  # runs whose time has come, waiting for a worker
        # Runs sent ahead, waiting for their instant apart from the line: job -> instant (epoch ms),
        # and a heap of (instant, arrival, job) for the release thread; an entry whose job left
        # `ahead` (aborted, shut down) is skipped when it comes up.
        self.ahead = {}
        self.instants = []
        self.arrivals = itertools.count()
        self.running = 0
        self.credit_seq = 0
        self.finished = collections.OrderedDict()  # key -> {outcome, startedAt, finishedAt}
        self.pending_callbacks = {}  # key -> callback
        self.starts_first = StartsFirst()
        self.draining = False
        self.last_beat_payload = None  # what the engine last acknowledged
        # One heartbeat at a time: a periodic one in flight when shutdown starts would otherwise
        # reach the engine after the last word and say "not draining" last.
        self.beat_lock = threading.Lock()
        self.stopped = threading.Event()
        self.wake_senders = threading.Condition()
        self.executor_id = None
        # The sent-ahead lease (protocol 3, docs/EXECUTOR-PROTOCOL.md "Runs sent ahead and contact"):
        # when the round of the last answered heartbeat began (monotonic s; None: none yet), the
        # lease it gave, and the last ack's handBacks (None until an ack carries it). Under the lock.
        self.heard_at = None
        self.lease_s = 0.0
        self.hand_backs = None
        self.last_good = None
        for i in range(self.concurrency):
            threading.Thread(target=self.worker, name=f"worker-{i}", daemon=True).start()
        threading.Thread(target=self.release_loop, name="ahead", daemon=True).start()

    # -- engine requests (outgoing) --

    def order(self, urls):
        """The URLs without duplicates, the engine that answered last first, engines set aside lately last."""
        unique = list(dict.fromkeys(u.rstrip("/") for u in urls))
        if self.last_good in unique:
            unique.remove(self.last_good)
            unique.insert(0, self.last_good)
        now = time.monotonic()
        aside = [u for u in unique if self.aside_until.get(u, 0) > now]
        return [u for u in unique if u not in aside] + aside

    def set_aside(self, url):
        """Tries `url` after the others for SET_ASIDE_S: it did not answer in time (it may still)."""
        self.aside_until[url] = time.monotonic() + SET_ASIDE_S
        if self.last_good == url:
            self.last_good = None

    @staticmethod
    def settles(status):
        """The engine took the callback (2xx, or 409: it has it already) or refuses it for good (400/413/422)."""
        return 200 <= status < 300 or status in (409, 400, 413, 422)

    def engine_round(self, urls, payload):
        """Posts a callback to the engines in `urls`' order (self.order), as the Node SDK's engineRound:
        the next engine when one answers without settling it, or has not answered within
        reroute_after_ms — that one is set aside and keeps its request (a late answer that settles
        the round still counts; any engine takes any callback, and a second copy gets 409).
        (settled, answers): the first (url, status, body, retry_after) that settles, or None once
        every engine has answered without one; and every answer. Trying each engine for the full
        request timeout kept a run's outcome from a live engine for 10 s while the first one hung."""
        order = self.order(urls)
        answers = queue.Queue()
        got = []
        tried = outstanding = 0
        while True:
            if tried < len(order):
                url = order[tried]
                tried += 1
                outstanding += 1
                threading.Thread(target=lambda u=url: answers.put((u,) + self.post_answer(u, "/baton/callbacks", payload)), daemon=True).start()
            elif outstanding == 0:
                return None, got
            try:
                answer = answers.get(timeout=self.reroute_after_ms / 1000.0 if tried < len(order) else None)
            except queue.Empty:
                self.set_aside(order[tried - 1])
                continue
            outstanding -= 1
            got.append(answer)
            if self.settles(answer[1]):
                return answer, got

    def post(self, base, path, payload, timeout=10):
        """(status, body); status 0 when no HTTP answer came (within `timeout` seconds)."""
        status, body, _ = self.post_answer(base, path, payload, timeout)
        return status, body

    def post_answer(self, base, path, payload, timeout=10):
        """(status, body, retry_after_s): post, and a 429's Retry-After in seconds (0 when none)."""
        body = json.dumps(payload, separators=(",", ":")).encode()
        headers = dict(sign(self.secret, self.tenant, "POST", path, body))
        headers["content-type"] = "application/json"
        request = urllib.request.Request(base + path, data=body, headers=headers, method="POST")
        retry_after = 0
        try:
            with urllib.request.urlopen(request, timeout=timeout) as res:
                status, text = res.status, res.read()
        except urllib.error.HTTPError as err:
            status, text = err.code, err.read()
            if status == 429:
                retry_after = retry_after_seconds(err.headers.get("Retry-After"))
        except (urllib.error.URLError, OSError) as err:
            if self.last_good == base:
                self.last_good = None
            return 0, str(err), 0
        if status < 500 and status != 429:
            self.last_good = base
            self.aside_until.pop(base, None)
        try:
            return status, json.loads(text or b"null"), retry_after
        except ValueError:
            return status, text.decode(errors="replace"), retry_after

    @staticmethod
    def describe(status, body):
        """An engine's answer for a log line: the status, and the code and message of its ErrorBody."""
        if isinstance(body, dict) and isinstance(body.get("code"), str):
            return f"HTTP {status} {body['code']}: {body.get('message', '')}"
        return f"HTTP {status}" if status else str(body)

    def heartbeat_payload(self):
        with self.lock:
            active = [{"runId": j.request["runId"], "attempt": j.request["attempt"]} for j in self.jobs.values()]
            payload = {
                "tenantId": self.tenant, "app": self.app, "url": self.public_url, "capacity": self.concurrency,
                "inFlight": self.running + self.queued(), "handlers": sorted(HANDLERS), "protocolVersion": PROTOCOL_VERSION,
                "startedAt": self.started_at, "queued": self.queued(), "queueLimit": self.queue_limit,
                "spooled": len(self.pending_callbacks), "draining": self.draining,
            }
            if self.handler_schemas:
                payload["handlerSchemas"] = self.handler_schemas
            if len(active) <= 1000:
                payload["active"] = active
            return payload

    def beat(self, last_word=False):
        with self.beat_lock:
            if self.stopped.is_set() and not last_word:
                return False  # stopping: only the last word goes out from now on
            return self.send_beat()

    def send_beat(self):
        failures = []
        sent_at = time.monotonic()  # the sent-ahead lease counts from the round's start, before any engine was tried
        payload = self.heartbeat_payload()
        for url in self.order(self.engine_urls):
            status, ack = self.post(url, "/baton/executors/heartbeat", payload, HEARTBEAT_TRY_S)
            if 200 <= status < 300:
                self.last_beat_payload = payload
                if isinstance(ack, dict):
                    if is_int(ack.get("intervalMs")) or isinstance(ack.get("intervalMs"), float):
                        self.heartbeat_ms = min(600_000, max(10, int(ack["intervalMs"])))
                    if is_int(ack.get("executorId")):
                        self.executor_id = ack["executorId"]
                self.heard(sent_at, ack.get("handBacks") if isinstance(ack, dict) else None)
                return True
            failures.append(f"{url}: {self.describe(status, ack)}")
        log(f"heartbeat failed on every engine URL ({'; '.join(failures)})")
        return False

    def heard(self, sent_at, hand_backs):
        """An engine answered the heartbeat round begun at `sent_at`: the lease renewed. A changed
        `handBacks` lets go of every run held for its instant: the engines dispatched them again."""
        with self.lock:
            if self.heard_at is None or sent_at >= self.heard_at:
                self.heard_at = sent_at
                self.lease_s = SENT_AHEAD_LEASE_INTERVALS * self.heartbeat_ms / 1000.0
            if not is_int(hand_backs):
                return
            changed = self.hand_backs is not None and hand_backs != self.hand_backs
            self.hand_backs = hand_backs
            if not changed:
                return
            held = list(self.ahead)
            self.ahead.clear()
        self.let_go(held, "the engines handed back the runs this executor held while it was out of contact")

    def silence(self):
        """Why a run held for its instant may not start now, or None: within the lease. Under the lock."""
        if self.heard_at is None:
            return "no engine has answered a heartbeat yet"
        silent_s = time.monotonic() - self.heard_at
        return None if silent_s <= self.lease_s else f"no engine has answered a heartbeat for {int(silent_s * 1000)} ms"

    def let_go(self, jobs, why):
        """Runs sent ahead this executor may not start (the sent-ahead lease): ended ABORTED NO_CONTACT
        without running, which the engines take as never started and dispatch again."""
        if not jobs:
            return
        log(f"{len(jobs)} run(s) sent ahead let go without starting (the engines dispatch them again): {why}")
        for job in jobs:
            job.abort("NO_CONTACT")
            self.finish(job, "ABORTED", error=f"{ABORT_MESSAGES['NO_CONTACT']} ({why})", freeing=0)

    def heartbeat_loop(self):
        while not self.stopped.is_set():
            self.beat()
            self.stopped.wait(self.heartbeat_ms / 1000.0)

    def tail_loop(self):
        """Every LOG_TAIL_INTERVAL_MS: each running job's new log lines in a signed interim callback."""
        while not self.stopped.wait(LOG_TAIL_INTERVAL_MS / 1000.0):
            with self.lock:
                running = [j for j in self.jobs.values() if j.state == "RUNNING" and j.logs and not j.tail_stale]
            for job in running:
                self.send_tail(job)

    def send_tail(self, job):
        req = job.request
        with job.tail_lock:
            if job.tail_stale:
                return  # finished meanwhile: its final callback carries the lines
            count = len(job.logs)
            lines = job.take_logs()
            callback = {"runId": req["runId"], "attempt": req["attempt"], "tenantId": req["tenantId"], "logs": lines, "startedAt": job.started_at}
            if self.executor_id is not None:
                callback["executorId"] = self.executor_id
            # A round as for a final callback: the run's end waits for this send (tail_lock).
            settled, _ = self.engine_round(list(req["callbackUrls"]) + self.engine_urls, callback)
            status = settled[1] if settled else 0
            if 200 <= status < 300:
                job.taken(count)
            elif status == 409:
                job.tail_stale = True  # the run ended or moved on there; the final callback says what it did
            # 400, 413, 422: refused as it is; the lines go with the final callback

    def deliver(self, key, urls, callback):
        """Sends a final callback until an engine takes it (2xx or 409) or refuses it for good (400/413/422).
        A 429 (an engine's TENANT_BUSY / TENANT_RATE_LIMITED) is retried, but not before its
        Retry-After, even when another callback's success wakes the others: that would send the
        tenant's whole backlog into its bounds again on every success. While runs wait in line for
        a worker, it first waits for them to start (StartsFirst), at most MOST_HELD_FOR_STARTS_MS."""
        with self.lock:
            hold = self.starts_first.turn(not self.draining and bool(self.queue))
        if hold is not None:
            released, until = hold
            released.wait(max(0.0, until - time.monotonic()))
        tries = 0
        while True:
            tries += 1
            settled, answers = self.engine_round(list(urls) + self.engine_urls, callback)
            hold = max((a[3] for a in answers), default=0)
            if settled:
                url, status, answer, _ = settled
                if status in (400, 413, 422):
                    fields = trace_fields(callback["runId"], callback["attempt"], callback.get("traceparent"))
                    log(f"callback {key} refused for good by {url} ({self.describe(status, answer)}), dropped{fields}")
                with self.lock:
                    self.pending_callbacks.pop(key, None)
                    self.lock.notify_all()
                with self.wake_senders:
                    self.wake_senders.notify_all()  # the engines are back: retry the others now
                return
            if self.stopped.is_set():
                return
            exp = min(self.retry_max_ms, self.retry_base_ms * 2 ** min(tries - 1, 30))
            delay = max(hold * 1000.0, exp / 2 + random.random() * exp / 2)
            held_until = time.monotonic() + hold
            with self.wake_senders:
                self.wake_senders.wait(delay / 1000.0)
            left = held_until - time.monotonic()
            if left > 0:
                self.stopped.wait(left)  # woken early by another's success: still not before its Retry-After

    # -- runs --

    def queued(self):
        """Runs accepted and not started: in line, or sent ahead and waiting for their instant."""
        return len(self.queue) + len(self.ahead)

    def line_shrank(self):
        """Lets the held final callbacks go once no run waits in line. Under the lock."""
        if not self.queue:
            self.starts_first.release()

    def release_loop(self):
        """Puts each run sent ahead in line at its instant: a free worker takes it at once, else it
        waits behind the runs already in line — within the sent-ahead lease; outside it the run is
        let go, never started."""
        with self.lock:
            while True:
                while self.instants and self.instants[0][2] not in self.ahead:
                    heapq.heappop(self.instants)
                if not self.instants:
                    self.lock.wait()
                    continue
                # Checked again after every wait: a wait may end early (a notify, timer slack), and
                # a run must never start before its instant.
                wait_ms = self.instants[0][0] - now_ms()
                if wait_ms > 0:
                    self.lock.wait(wait_ms / 1000.0)
                    continue
                job = heapq.heappop(self.instants)[2]
                del self.ahead[job]
                why = self.silence()
                if why is not None:
                    threading.Thread(target=self.let_go, args=([job], why), daemon=True).start()
                    continue
                self.queue.append(job)
                self.lock.notify_all()

    def worker(self):
        while True:
            with self.lock:
                while not self.queue:
                    self.lock.wait()
                job = self.queue.popleft()
                self.line_shrank()
                self.running += 1
            try:
                self.execute(job)
            finally:
                with self.lock:
                    self.running -= 1
                    self.lock.notify_all()

    def execute(self, job):
        if job.abort_event.is_set():
            return self.finish(job, "ABORTED", error=ABORT_MESSAGES[job.abort_reason] + " (before it started)")
        if now_ms() >= job.deadline:
            job.abort("DEADLINE")
            return self.finish(job, "ABORTED", error="aborted: the deadline passed before the handler started")
        job.state, job.started_at = "RUNNING", now_ms()
        timer = threading.Timer(max(0, job.deadline - now_ms()) / 1000.0, job.abort, ("DEADLINE",))
        timer.daemon = True
        timer.start()
        retryable = True
        try:
            result = HANDLERS[job.request["handler"]](Context(job))
            outcome, error = ("ABORTED", ABORT_MESSAGES[job.abort_reason]) if job.abort_event.is_set() else ("SUCCEEDED", None)
        except Exception as err:
            result = None
            if job.abort_event.is_set():
                outcome, error = "ABORTED", ABORT_MESSAGES[job.abort_reason]
            else:
                outcome, error = "FAILED", error_text(err)
                retryable = getattr(err, "non_retryable", False) is not True
        finally:
            timer.cancel()
        self.finish(job, outcome, result=result, error=error, retryable=retryable)

    def finish(self, job, outcome, result=None, error=None, retryable=True, freeing=1):
        """`freeing`: 1 when a worker ran (or picked) the job — its place is about to be free and
        the callback's credit counts it; 0 for a job dropped from the queue (already not counted)."""
        req = job.request
        callback = {"runId": req["runId"], "attempt": req["attempt"], "tenantId": req["tenantId"], "outcome": outcome, "finishedAt": now_ms()}
        if self.executor_id is not None:
            callback["executorId"] = self.executor_id
        if traceparent_of(req):
            callback["traceparent"] = traceparent_of(req)
        if job.started_at is not None:
            callback["startedAt"] = job.started_at
        if result is not None:
            callback["result"] = result
        if error is not None:
            callback["error"] = error
        if outcome == "FAILED" and not retryable:
            callback["retryable"] = False
        with job.tail_lock:  # waits for an interim send in flight, so no line goes twice
            lines = job.take_logs()
            job.tail_stale = True  # no interim callback after this one
        if lines:
            callback["logs"] = lines
        if outcome == "ABORTED":
            callback["abortReason"] = job.abort_reason
        with self.lock:
            callback.update(self.credit(freeing))
            self.jobs.pop(job.key, None)
            self.finished[job.key] = {"outcome": outcome, "startedAt": job.started_at, "finishedAt": callback["finishedAt"]}
            while len(self.finished) > RECENTLY_FINISHED_LIMIT:
                self.finished.popitem(last=False)
            self.pending_callbacks[job.key] = callback
            self.lock.notify_all()
        threading.Thread(target=self.deliver, args=(job.key, req["callbackUrls"], callback), daemon=True).start()

    # -- incoming requests --

    def dispatch_batch(self, body, arrived_at):
        """Each run judged as POST /baton/runs would judge it, in order; a wrong field is named with its
        index. Every run counts from the request's arrival (`arrived_at`), not from its turn in the batch."""
        runs = body.get("runs") if isinstance(body, dict) else None
        if not isinstance(runs, list):
            return 400, refusal("BAD_REQUEST", "runs: must be an array of runs", "runs")
        if not 1 <= len(runs) <= MAX_RUNS_PER_DISPATCH_BATCH:
            return 400, refusal("BAD_REQUEST", f"runs: must hold 1 to {MAX_RUNS_PER_DISPATCH_BATCH} runs (got {len(runs)})", "runs")
        results = []
        for i, run in enumerate(runs):
            status, answer = self.dispatch(run, arrived_at)
            if answer.get("accepted") is False and "field" in answer:
                answer["field"] = f"runs[{i}].{answer['field']}"
            ids = run if isinstance(run, dict) else {}
            results.append({
                "runId": ids["runId"] if is_int(ids.get("runId")) else 0,
                "attempt": ids["attempt"] if is_int(ids.get("attempt")) else 0,
                "status": status,
                "body": answer,
            })
        return 200, {"results": results}

    def dispatch(self, body, arrived_at):
        """Judges one run; `arrived_at` (epoch ms) is when its request began to be served."""
        field, checked = check_dispatch(body)
        if field:
            return 400, refusal("BAD_REQUEST", checked, field)
        req = checked
        if req["tenantId"] != self.tenant:
            return 400, refusal("BAD_REQUEST", "tenantId: not the tenant of this executor", "tenantId")
        key = f"{req['runId']}:{req['attempt']}"
        with self.lock:
            if key in self.jobs or key in self.finished:
                return 202, self.ack(req)  # idempotent: this attempt is known, it is not run twice
            if self.draining:
                return 503, refusal("SHUTTING_DOWN", "the executor is shutting down")
            if req["handler"] not in HANDLERS:
                return 404, refusal("UNKNOWN_HANDLER", f"handler: no handler \"{req['handler']}\" here (this executor has: {', '.join(sorted(HANDLERS))})", "handler")
            start_in_ms = req.get("startInMs") or 0
            idle = max(0, self.concurrency - self.running)
            if start_in_ms:
                room = self.running + self.queued() < self.concurrency + self.queue_limit
            else:
                # A free worker takes it even when runs sent ahead hold the queue places: at their
                # instant those wait in line, as they would have had they been sent then.
                room = len(self.queue) < idle or self.queued() < idle + self.queue_limit
            if not room:
                return 429, refusal("BUSY", f"all {self.concurrency} workers are busy and {self.queued()} runs are queued (queueLimit {self.queue_limit})")
            job = Job(req, local_deadline(req, arrived_at))
            self.jobs[key] = job
            if start_in_ms:
                # Counted on this machine's clock from the request's arrival: the engine's clock need not agree.
                at = arrived_at + start_in_ms
                self.ahead[job] = at
                heapq.heappush(self.instants, (at, next(self.arrivals), job))
            else:
                self.queue.append(job)
            self.lock.notify_all()
            return 202, self.ack(req)

    def ack(self, req):
        """A 202's body, with `credit`: how many more runs this executor would take now (free
        workers plus free queue places), so engines send no more than that. Call under the lock."""
        return {"accepted": True, "runId": req["runId"], "attempt": req["attempt"], **self.credit(0)}

    def credit(self, freeing):
        """`credit` and its `creditSeq` (microseconds since the epoch, strictly increasing), so an
        engine keeps the newest figure whatever order acks and callbacks reach it. Under the lock."""
        self.credit_seq = max(self.credit_seq + 1, time.time_ns() // 1000)
        credit = max(0, self.concurrency + self.queue_limit - self.running - self.queued() + freeing)
        return {"credit": credit, "creditSeq": self.credit_seq}

    def abort(self, body, path_run_id):
        if not isinstance(body, dict):
            return 400, refusal("BAD_REQUEST", "body: must be a JSON object", "body")
        for field in ("runId", "attempt"):
            if not is_int(body.get(field)) or body[field] < 1:
                return 400, refusal("BAD_REQUEST", f"{field}: must be an integer >= 1", field)
        if body["runId"] != path_run_id:
            return 400, refusal("BAD_REQUEST", f"runId: must match the run id of the path ({path_run_id})", "runId")
        if body.get("reason") not in ABORT_REASONS:
            return 400, refusal("BAD_REQUEST", f"reason: must be one of {', '.join(ABORT_REASONS)}", "reason")
        key = f"{body['runId']}:{body['attempt']}"
        answer = {"runId": body["runId"], "attempt": body["attempt"]}
        with self.lock:
            job = self.jobs.get(key)
            if job is None:
                return 404, {**answer, "aborted": False, "state": "FINISHED" if key in self.finished else "UNKNOWN"}
            state = job.state
            job.abort(body["reason"])
            dropped = state == "QUEUED" and self.unqueue(job)
        if dropped:
            self.finish(job, "ABORTED", error=ABORT_MESSAGES[job.abort_reason] + " (before it started)", freeing=0)
        return 202, {**answer, "aborted": True, "state": state}

    def unqueue(self, job):
        """Takes a run not started out of the line or out of the runs sent ahead; False if it is in
        neither (a worker took it). Under the lock."""
        if self.ahead.pop(job, None) is not None:
            return True
        if self.queue.remove(job):
            self.line_shrank()
            return True
        return False

    def status(self, run_id):
        attempts = []
        prefix = f"{run_id}:"
        with self.lock:
            for key, job in self.jobs.items():
                if key.startswith(prefix):
                    entry = {"attempt": job.request["attempt"], "state": job.state}
                    if job.started_at is not None:
                        entry["startedAt"] = job.started_at
                    attempts.append(entry)
            for key, f in self.finished.items():
                if key.startswith(prefix) and key not in self.jobs:
                    entry = {"attempt": int(key[len(prefix):]), "state": "FINISHED", "outcome": f["outcome"], "finishedAt": f["finishedAt"],
                             "callbackPending": key in self.pending_callbacks}
                    if f["startedAt"] is not None:
                        entry["startedAt"] = f["startedAt"]
                    attempts.append(entry)
        return 200, {"runId": run_id, "attempts": sorted(attempts, key=lambda a: a["attempt"])}

    # -- shutdown --

    def take_unstarted(self, keep_until=None):
        """Empties the line, and takes the runs sent ahead whose instant comes after `keep_until`
        (all of them by default); aborts them for the shutdown. Under the lock."""
        jobs = self.queue.drain()
        self.line_shrank()
        jobs += [job for job, at in self.ahead.items() if keep_until is None or at > keep_until]
        for job in jobs:
            self.ahead.pop(job, None)
            job.abort("SHUTDOWN")
        return jobs

    def drop_unstarted(self, jobs):
        for job in jobs:
            self.finish(job, "ABORTED", error="aborted: the executor shut down before the run started", freeing=0)

    def shutdown(self):
        deadline = time.time() + self.grace_ms / 1000.0
        with self.lock:
            self.draining = True
            # A run sent ahead whose instant comes within the grace is kept and starts then, like one
            # running now: the engine counts on it, and ABORTED would fail a run a deploy merely came close to.
            unstarted = self.take_unstarted(keep_until=now_ms() + self.grace_ms)
        announce = threading.Thread(target=self.beat, daemon=True)  # announce: draining
        announce.start()
        self.drop_unstarted(unstarted)
        with self.lock:
            while self.jobs and time.time() < deadline:
                self.lock.wait(deadline - time.time())
            unstarted = self.take_unstarted()
            for job in list(self.jobs.values()):
                job.abort("SHUTDOWN")
        self.drop_unstarted(unstarted)
        with self.lock:
            until = time.time() + 5
            while self.jobs and time.time() < until:
                self.lock.wait(until - time.time())
            flush_until = time.time() + 5
            while self.pending_callbacks and time.time() < flush_until:
                self.lock.wait(flush_until - time.time())
            undelivered = len(self.pending_callbacks)
        if undelivered:
            log(f"{undelivered} callback(s) could not be delivered before exit")
        self.stopped.set()
        with self.wake_senders:
            self.wake_senders.notify_all()
        # Last word: draining, nothing in flight — unless the announce said exactly that already.
        # Two identical heartbeats signed in one millisecond carry one signature, and the engine
        # refuses the second as a replay (401 BAD_SIGNATURE: signature already used).
        announce.join(5)
        with self.beat_lock:  # after any periodic heartbeat still in flight
            said_it = self.heartbeat_payload() == self.last_beat_payload
        if not said_it:
            self.beat(last_word=True)


def refusal(reason, message, field=None):
    body = {"accepted": False, "reason": reason, "message": message}
    if field:
        body["field"] = field
    return body


ROUTE_RUN = re.compile(r"^/baton/runs/(\d{1,15})$")
ROUTE_ABORT = re.compile(r"^/baton/runs/(\d{1,15})/abort$")


def make_handler(executor):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as engines use

        def log_message(self, fmt, *args):  # quiet
            pass

        def reply(self, status, body, close=False):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json; charset=utf-8")
            self.send_header("content-length", str(len(data)))
            if close:
                self.send_header("connection", "close")
                self.close_connection = True
            self.end_headers()
            self.wfile.write(data)

        def handle_any(self, method):
            # Before the body is read: a run sent ahead counts its wait from here, so reading and
            # judging a large batch on a busy machine does not start its runs late.
            arrived_at = now_ms()
            path = self.path.split("?", 1)[0]
            length = int(self.headers.get("content-length") or 0)
            if length > MAX_BODY_BYTES:
                return self.reply(413, refusal("BAD_REQUEST", f"body: larger than {MAX_BODY_BYTES} bytes", "body"), close=True)
            raw = self.rfile.read(length) if length else b""
            if path == "/baton/health" and method == "GET":
                status = "DRAINING" if executor.draining else "UP"
                return self.reply(200, {"status": status, "capacity": executor.concurrency, "inFlight": executor.running + executor.queued()})
            abort_match, run_match = ROUTE_ABORT.match(path), ROUTE_RUN.match(path)
            route = "dispatch" if path == "/baton/runs" else "batch" if path == "/baton/runs/batch" else "abort" if abort_match else "status" if run_match else None
            if route is None:
                return self.reply(404, refusal("BAD_REQUEST", f"no executor route {path}"))
            wanted = "GET" if route == "status" else "POST"
            if method != wanted:
                return self.reply(405, refusal("BAD_REQUEST", f"use {wanted} {path}"))
            headers = {k.lower(): v for k, v in self.headers.items()}
            # Another tenant's request is refused as that, before its signature: it is signed with
            # that tenant's secret, which this executor has not (docs/EXECUTOR-PROTOCOL.md, "The signature").
            tenant = headers.get(H_TENANT)
            if tenant is None:
                return self.reply(401, refusal("UNAUTHORIZED", f"signature: missing {H_TENANT} header"))
            if tenant != executor.tenant:
                return self.reply(401, refusal("UNAUTHORIZED", f"{H_TENANT}: this executor serves another tenant", H_TENANT))
            problem = verify(executor.secret, headers, method, path, raw)
            if problem:
                return self.reply(401, refusal("UNAUTHORIZED", problem))
            if route == "status":
                return self.reply(*executor.status(int(run_match.group(1))))
            try:
                body = json.loads(raw.decode("utf-8")) if raw else None
            except (ValueError, UnicodeDecodeError) as err:
                return self.reply(400, refusal("BAD_REQUEST", f"body: malformed JSON ({err})", "body"))
            if route == "abort":
                return self.reply(*executor.abort(body, int(abort_match.group(1))))
            if route == "batch":
                return self.reply(*executor.dispatch_batch(body, arrived_at))
            return self.reply(*executor.dispatch(body, arrived_at))

        def do_POST(self):
            self.handle_any("POST")

        def do_GET(self):
            self.handle_any("GET")

    return Handler


class ExecutorServer(ThreadingHTTPServer):
    # The listen backlog (http.server's default is 5): an engine opens connections in bursts (a
    # batch's dispatches, aborts, status queries from several engines at once); past the backlog
    # the kernel drops their SYNs and an engine's connect waits a second or more for its retry, or
    # times out. 128 as the Java SDK.
    request_queue_size = 128
    daemon_threads = True


def main():
    executor = Executor(os.environ)
    server = ExecutorServer((executor.host, executor.port), make_handler(executor))
    host, port = server.server_address[:2]
    executor.public_url = executor.public_url or f"http://{host}:{port}"
    threading.Thread(target=server.serve_forever, name="http", daemon=True).start()
    threading.Thread(target=executor.heartbeat_loop, name="heartbeat", daemon=True).start()
    threading.Thread(target=executor.tail_loop, name="log-tail", daemon=True).start()
    # Before READY: a supervisor may send SIGTERM as soon as it reads it, and the default action
    # would kill the process without the graceful stop.
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    print(f"READY {executor.public_url}", flush=True)

    while not stop.wait(0.5):
        pass
    log("stopping gracefully")
    executor.shutdown()  # the server keeps answering (503 for new work) while draining
    server.shutdown()
    sys.exit(0)


if __name__ == "__main__":
    main()
