import { parseGroupMap } from '@baton/domain';
import { checkTopicPrefix, parseBrokerUrl } from '@baton/messaging';
import { MAX_START_IN_MS } from '@baton/protocol';
import { EXECUTOR_ENV } from '@baton/executor-sdk/env/executor-env';
import type { AuxiliaryVariable, BatonProcess, ConfigVariable } from './config-variable';

/** A check beyond the type: throws with the reason when `value` cannot be used. */
export type ValueCheck = (value: string) => void;

/** Checks of the variables whose format is more than their type (the reason is the thrown message). */
export const VALUE_CHECKS: Readonly<Record<string, ValueCheck>> = {
  BATON_DB_URL: (url) => {
    if (!/^(mysql:\/\/|mariadb:\/\/|sqlite:)/.test(url)) throw new Error('must be mysql://user:pass@host:3306/db or sqlite:path');
  },
  BATON_ENGINE_GROUPS: (list) => {
    if (!list.split(',').some((group) => group.trim())) throw new Error('must name at least one engine group');
  },
  BATON_BROKER_URL: (url) => void parseBrokerUrl(url),
  BATON_ALARM_TOPIC_PREFIX: (prefix) => void checkTopicPrefix(prefix),
  BATON_SSO_GROUP_MAP: (list) => void parseGroupMap(list.split(',').filter((entry) => entry.trim())),
  BATON_TRACE_URL_TEMPLATE: (template) => {
    if (!template.includes('{traceId}')) throw new Error('must contain {traceId}, e.g. http://jaeger:16686/trace/{traceId}');
    if (!/^https?:\/\//.test(template)) throw new Error('must be an http(s) URL');
  },
};

const SERVERS: readonly BatonProcess[] = ['embedded', 'console', 'engine'];
const CONSOLES: readonly BatonProcess[] = ['embedded', 'console'];
/** The engine's tuning: the embedded mode runs an engine too. */
const ENGINES: readonly BatonProcess[] = ['engine', 'embedded'];

const DB_URL = 'Baton database: `mysql://user:pass@host:3306/db` (MySQL 8 / MariaDB ≥ 10.6, cluster mode) or `sqlite:path` (one engine only).';

const ms = (name: string, dflt: number, description: string, min = 0): ConfigVariable => ({
  name,
  type: 'duration-ms',
  default: String(dflt),
  min,
  processes: ENGINES,
  description,
});
const int = (name: string, dflt: number, description: string, min = 0): ConfigVariable => ({
  name,
  type: 'integer',
  default: String(dflt),
  min,
  processes: ENGINES,
  description,
});

/** The variables of the servers: embedded mode, console, engine, and the CLI's own. */
const SERVER_VARIABLES: readonly ConfigVariable[] = [
  { name: 'BATON_LOG_LEVEL', type: 'enum', default: 'info', values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], processes: [...SERVERS, 'executor'], description: 'Least severe log level written. JSON lines on stdout (stderr for the executor), human-readable on a terminal; `debug` adds the route mappings and module start lines.' },
  // Database.
  { name: 'BATON_DB_URL', type: 'url', default: 'sqlite:./data/baton.sqlite', processes: ENGINES, description: `${DB_URL} A relative SQLite path is relative to the working directory.` },
  { name: 'BATON_DB_URL', type: 'url', required: true, processes: ['console'], description: DB_URL },
  { name: 'BATON_DB_URL', type: 'url', processes: ['cli'], description: `${DB_URL} \`baton migrate\` runs the migrations on it (required unless given as its argument).` },
  // HTTP of the console (the embedded mode serves console, API and engine callbacks on it).
  { name: 'BATON_HOST', type: 'string', default: '127.0.0.1', processes: ['embedded', 'console'], description: 'Address the console (and in embedded mode the engine callbacks) listens on. The default keeps the demo logins off the network.' },
  { name: 'BATON_CONSOLE_PORT', type: 'port', default: '8080', processes: ['embedded', 'console'], description: 'Port of the web console and its REST API (`/api`, docs at `/api/docs`); in embedded mode the engine callbacks too. 0: any free port.' },
  { name: 'BATON_CONSOLE_WEB_DIR', type: 'string', defaultText: '`dist/console-web`', processes: ['embedded', 'console'], description: "Folder of the web console's production build (`npm run build:web`)." },
  { name: 'BATON_TRACE_URL_TEMPLATE', type: 'string', processes: CONSOLES, description: "Link from a run's page to its trace in your tracing UI: a URL in which `{traceId}` is replaced by the run's trace id (e.g. `http://jaeger:16686/trace/{traceId}`). Default none: the page shows the trace id only. Traces themselves are turned on by the standard `OTEL_*` variables (docs/OPERATIONS.md, \"Tracing\")." },
  { name: 'BATON_CONSOLE_CORS_ORIGINS', type: 'list', processes: ['console'], description: 'Browser origins (comma list) allowed to connect to the live alarms (socket.io) from another origin. Default none: same origin only.' },
  // Logins.
  { name: 'BATON_SESSION_COOKIE_SECURE', type: 'enum', default: 'auto', values: ['auto', 'always'], processes: ['embedded', 'console'], description: "When the web console's session cookie (HttpOnly, SameSite=Strict) is marked Secure: `auto`, when the login came over https (a TLS connection, or a proxy's `X-Forwarded-Proto: https`); `always`, for a TLS proxy that sends no `X-Forwarded-Proto`. Plain http on loopback (the default setup) needs `auto`: a browser never returns a Secure cookie over http." },
  { name: 'BATON_OPERATOR_USERNAME', type: 'string', processes: ['console'], description: 'With `BATON_OPERATOR_PASSWORD`: this operator is created on start when missing (the first login of a new cluster).' },
  { name: 'BATON_OPERATOR_PASSWORD', type: 'string', processes: ['console'], description: "Password of `BATON_OPERATOR_USERNAME`'s operator when it is created; an existing user's password is not changed." },
  { name: 'BATON_OPERATOR_PASSWORD', type: 'string', default: 'operator-password', processes: ['embedded'], description: 'Password of the demo operator `operator`, set when the demo is seeded (an empty database).' },
  { name: 'BATON_DEMO_PASSWORD', type: 'string', default: 'demo-password', processes: ['embedded'], description: 'Password of `demo`, the demo tenant\'s admin, set when the demo is seeded (an empty database).' },
  // Single sign-on (console and embedded mode): OpenID Connect and LDAP, one group mapping for both.
  { name: 'BATON_OIDC_ISSUER', type: 'url', processes: CONSOLES, description: 'OpenID Connect: the identity provider\'s issuer URL (its `/.well-known/openid-configuration` is read at the first sign-in). Unset: no OIDC sign-in. Plain http is accepted only on loopback.' },
  { name: 'BATON_OIDC_CLIENT_ID', type: 'string', processes: CONSOLES, description: 'OpenID Connect: Baton\'s client id at the provider (required with `BATON_OIDC_ISSUER`).' },
  { name: 'BATON_OIDC_CLIENT_SECRET', type: 'string', processes: CONSOLES, description: 'OpenID Connect: the client secret (confidential client, `client_secret_basic`). Unset: a public client (PKCE alone).' },
  { name: 'BATON_OIDC_REDIRECT_URL', type: 'url', processes: CONSOLES, description: 'OpenID Connect: the redirect URL registered at the provider: `<console URL>/api/auth/oidc/callback` (required with `BATON_OIDC_ISSUER`).' },
  { name: 'BATON_OIDC_SCOPES', type: 'string', default: 'openid profile email groups', processes: CONSOLES, description: 'OpenID Connect: scopes asked for (space separated); must include `openid` and whatever scope releases the groups claim.' },
  { name: 'BATON_OIDC_GROUPS_CLAIM', type: 'string', default: 'groups', processes: CONSOLES, description: 'OpenID Connect: the ID token (or userinfo) claim listing the user\'s groups, matched against `BATON_SSO_GROUP_MAP`.' },
  { name: 'BATON_OIDC_USERNAME_CLAIM', type: 'string', default: 'preferred_username', processes: CONSOLES, description: 'OpenID Connect: the claim that names the Baton user (falls back to `email`, then `sub`).' },
  { name: 'BATON_OIDC_NAME', type: 'string', default: 'single sign-on', processes: CONSOLES, description: 'OpenID Connect: the provider\'s name on the login page\'s "Sign in with …" button.' },
  { name: 'BATON_LDAP_URL', type: 'url', processes: CONSOLES, description: 'LDAP: the directory (`ldap://host:389`, `ldaps://host:636`). Unset: no LDAP sign-in.' },
  { name: 'BATON_LDAP_USER_DN', type: 'string', processes: CONSOLES, description: 'LDAP: the DN a user binds as, `{username}` replaced by the (escaped) login name, e.g. `uid={username},ou=people,dc=example,dc=com` (required with `BATON_LDAP_URL`).' },
  { name: 'BATON_LDAP_GROUP_BASE', type: 'string', processes: CONSOLES, description: 'LDAP: where the groups are searched, e.g. `ou=groups,dc=example,dc=com` (required with `BATON_LDAP_URL`).' },
  { name: 'BATON_LDAP_GROUP_FILTER', type: 'string', default: '(&(objectClass=groupOfNames)(member={dn}))', processes: CONSOLES, description: 'LDAP: filter of the user\'s groups, searched as the user after its bind; `{dn}` is the user\'s DN (escaped).' },
  { name: 'BATON_LDAP_GROUP_ATTRIBUTE', type: 'string', default: 'cn', processes: CONSOLES, description: 'LDAP: the group attribute matched against `BATON_SSO_GROUP_MAP`.' },
  { name: 'BATON_SSO_GROUP_MAP', type: 'list', processes: CONSOLES, description: 'OIDC and LDAP: which groups give which access, comma list of `group=tenant:TENANT_ADMIN`, `group=tenant:TENANT_VIEWER` or `group=OPERATOR`. A user gets the first entry whose group it is in (list stronger grants first); in none, it has no access (its account is disabled at its next sign-in).' },
  // The CLI's tasks-as-code commands (`baton export | plan | apply`) talk to a console.
  { name: 'BATON_API_URL', type: 'url', default: 'http://127.0.0.1:8080', processes: ['cli'], description: '`baton export|plan|apply`: the console the CLI talks to.' },
  { name: 'BATON_API_KEY', type: 'string', processes: ['cli'], description: '`baton export|plan|apply`: a tenant API key (TENANT_ADMIN to plan and apply; a viewer key can export).' },
  // The engine node.
  { name: 'BATON_ENGINE_ID', type: 'string', defaultText: '`<hostname>-<pid>-<random>`', processes: ENGINES, description: 'Unique id of this engine node. Fixed across restarts, the node takes its own row back.' },
  { name: 'BATON_ENGINE_GROUPS', type: 'list', default: 'default', processes: ENGINES, description: 'Engine groups served (comma list); a tenant is served by the engines of its group.' },
  { name: 'BATON_ENGINE_HOST', type: 'string', default: '127.0.0.1', processes: ['engine'], description: 'Address the callback API, `/health` and `/metrics` listen on.' },
  { name: 'BATON_ENGINE_PORT', type: 'port', default: '8090', processes: ['engine'], description: 'Port of the callback API, `/health` and `/metrics`. 0: any free port.' },
  { name: 'BATON_ENGINE_URL', type: 'url', defaultText: '`http://<host>:<bound port>`', processes: ['engine'], description: 'URL executors call back on, when the bound address is not reachable from them (a proxy, a container).' },
  int('BATON_ENGINE_SLOTS', 64, 'Dispatches in flight at once: a slot is held from send to ack. A tenant leaves 2 of them for each other tenant with runs on the engine (at most a quarter of them; at least 1 its own): a tenant whose executors are slow to answer cannot hold them all.', 1),
  int('BATON_ENGINE_ON_TIME_SLOTS', 4, "Slots beyond BATON_ENGINE_SLOTS kept for runs still on time (their due instant at most 100 ms ago): the on-time lane first (a run due alone for its tenant, one of a tenant at a time, started ahead of its instant by what the lane's recent DISPATCHED marks took, ≤ 100 ms, and sent at it), then the newest run still on time in all of them but the last, which is kept for a run due alone: a run due alone goes out on time instead of behind a backlog, whoever holds the general slots. 0: none.", 0),
  ms('BATON_LOOK_AHEAD_MS', 10_000, "Scheduled fires due within this are planned, and runs due within it claimed ahead into the in-memory queue, so an instant with many fires is prepared before it comes (20,000 due at once take this machine's pipeline ~6 s: docs/SCALING.md). A pause withdraws the prepared fires whose instant has not come; an edit of a field a fire carries (schedule, params, priority, app, handler, timeout, concurrency, fan-out) withdraws those more than a second ahead, and the planner plans them again as the task now says — one that an engine may have sent ahead, only once its executor says it never started it (docs/MANUAL.md, \"Prepared fires follow the task\")."),
  { ...ms('BATON_SEND_AHEAD_MS', 10_000, "A run whose start is only its DISPATCHED mark (concurrency ALLOW, or a shard) is sent up to this long before its instant to executors that start it at the instant themselves (executor protocol 2 or later: the Node, Go and Java SDKs and the Python executor; runs for an executor of protocol 1 are sent at their instant): its claim, DISPATCHED mark, request and ack are done by then, and a burst due at one instant starts on the executors' clocks. The run waits on its executor in a queue place; cancelling it aborts it there. If that executor dies, an executor of protocol 3 (every one here) costs only the runs due within its sent-ahead lease (BATON_EXECUTOR_DEAD_AFTER_MS): the later ones are sent again elsewhere. 0: every run is sent at its instant.", 0), max: MAX_START_IN_MS },
  int('BATON_CLAIM_BATCH', 500, 'Most runs claimed in one query.', 1),
  int('BATON_MAX_HELD', 20_000, 'Most runs held in memory at once; claiming pauses above it. Divided among the tenants with due work by weighted max-min fair shares, each tenant capped at twice its executors\' advertised places.', 1),
  ms('BATON_CLAIM_INTERVAL_MS', 200, 'Poll period of the claimer when nothing new was found.', 1),
  { ...ms('BATON_ACK_HOLD_MS', 250, "How long the engine holds an executor's 202 before writing the run's ACCEPTED mark. A run whose outcome comes back to this engine meanwhile (a short handler) has its Accepted time written with the outcome: one row write of five fewer per run, the same timeline. A longer run shows ACCEPTED this much later (its timeout still counts from the 202). 0: every mark written at once.", 0), max: 1_000 },
  ms('BATON_WAKE_FLOOR_MS', 20, "Spacing of the claim turns one tenant's wake-ups start on this engine beyond a burst of 10, for the wake-ups that do not bring their runs' rows (a tenant's own `POST /baton/wake`, a re-run, an approval): a token bucket, 10 at once and one more each floor; a wake-up within it claims at once, the ones beyond it coalesce into one turn at the next allowed time (a claim by id of the runs they name). Bounds what a tenant signing wake-ups back to back costs an engine: 10 + 50 claim turns a second at most. A console's wake-up for the runs it has just written brings their rows and claims at once: its claim reads nothing, and a console writes a tenant's submissions in at most 2 transactions at a time (docs/BENCHMARKS.md, on demand). 0: no floor.", 0),
  // A tenant's signed requests (callbacks, batches, heartbeats, wake-ups, cancel notices) on one engine: TenantAdmission.
  int('BATON_TENANT_REQUESTS_IN_FLIGHT', 4, "Signed requests of one tenant (callbacks, callback batches, heartbeats, wake-ups, cancel notices; the tenant its signature verified) this engine works on at once; more wait in line (BATON_TENANT_REQUESTS_WAITING). A fifth of the MySQL pool (20 connections): a tenant signing requests back to back holds at most 4 connections, and its callbacks are read and committed together with everyone's (4 at once), so 4 of its requests keep that going. 0: no bound.", 0),
  int('BATON_TENANT_REQUESTS_WAITING', 256, "Signed requests of one tenant that may wait for one of its BATON_TENANT_REQUESTS_IN_FLIGHT places on this engine, first come first served; the next is answered 429 TENANT_BUSY with `Retry-After: 1`. A Node, Go or Java executor has at most 2 callback requests in flight to an engine and 1 heartbeat: 256 is a fleet of ~85 executors all sending at the same instant (a couple hundred executors do not: their requests spread over time). Waiting costs memory only. 0: none wait.", 0),
  int('BATON_TENANT_REQUEST_RATE', 2000, "Signed requests of one tenant this engine admits per second, sustained (token bucket); beyond, 429 TENANT_RATE_LIMITED with `Retry-After`. What a heavy tenant sends one engine: a heartbeat per executor every 3.3 s (1,000 executors: 300/s), an interim callback per running run that logs or reports progress at most every second (200 executors × 4 workers, over 2 engines: 400/s), its final callbacks (one per run, at most the tenant's dispatch rate on this engine, `rate_per_sec` 1,000 by default, and batched up to 100 a request when they end together: ~50 a request in a burst), wake-ups (one per tenant per event-loop turn of the console): ~1,700/s at most. 0: no rate bound.", 0),
  int('BATON_TENANT_REQUEST_BURST', 10_000, "Signed requests of one tenant this engine admits at once after a quiet spell (the bucket of BATON_TENANT_REQUEST_RATE). 10,000: the final callbacks of a 20,000-run burst over 2 engines, even if none were batched (the SDKs batch them: ~200 requests).", 1),
  ms('BATON_PLAN_INTERVAL_MS', 500, 'Poll period of the planner (turns triggers into runs).', 1),
  int('BATON_PLAN_BATCH', 200, 'Most tasks claimed by the planner in one query.', 1),
  ms('BATON_LEASE_MS', 15_000, 'Lease on a claimed run; renewed every third of it while held (a claim grants one third more, so a run claimed since the last renewal is not rewritten by the next). A run whose lease ran out is taken over by another engine; one the engine holds in the database but not in memory at two renewals in a row is given back.', 1),
  ms('BATON_HEARTBEAT_MS', 2000, 'Heartbeat period of this node.', 1),
  ms('BATON_CLOCK_SKEW_ALARM_MS', 500, "At each heartbeat the engine measures its clock against the database's (a SELECT of its time, corrected by half the round trip) and schedules on the database's time. Beyond this offset (either way) it raises CLOCK_SKEW, once per episode, to the tenants of its groups: its machine's clock needs fixing (NTP). 0: no alarm."),
  ms('BATON_CLOCK_SKEW_STOP_MS', 2000, 'Beyond this offset the engine claims no runs (the other engines of its groups take them) until an offset in bound is measured again: a clock this far off may move again between heartbeats, and a run fired at the wrong time is worse than one fired by another engine. 0: never stop.'),
  ms('BATON_ENGINE_DEAD_AFTER_MS', 8000, 'A node silent for this long is dead; its leases are taken over.', 1),
  ms('BATON_LIVENESS_POLL_MS', 250, "MySQL/MariaDB: how often an engine checks the other engines' liveness locks; a crashed engine's runs are taken over within about this (a silent one still after BATON_ENGINE_DEAD_AFTER_MS). 0 turns the locks off.", 0),
  ms('BATON_EXECUTOR_DEAD_AFTER_MS', 10_000, "An executor silent (no heartbeat) for this long is DOWN. An engine counts that silence only while it could record heartbeats: from its start, and after its database was down (or its process frozen: two BATON_HEARTBEAT_MS without its own heartbeat written) from its first heartbeat written again — an outage does not make every executor DOWN; one still silent this long after it is. Executors heartbeat every third of it (0.5–5 s), and one of protocol 3 (every SDK here) starts a run sent ahead only within twice that of its last answered heartbeat (the sent-ahead lease, 6.7 s by default): when it goes DOWN, the runs it held whose instants come later than that are handed back at once (sent to another executor, not counted as an attempt), so a crashed executor costs the runs due within the lease of its last heartbeat, not every run sent ahead to it. The engines of a group must share it.", 1),
  ms('BATON_EXECUTOR_GRACE_MS', 30_000, 'Accepted runs of a DOWN executor are reconciled (failed or retried) after this grace, but those it held for instants past its sent-ahead lease, which it never started: they are handed back as soon as it is DOWN.'),
  ms('BATON_WATCHDOG_INTERVAL_MS', 500, 'Period of the watchdog (timeouts, late starts, DOWN executors).', 1),
  ms('BATON_LOAD_SAMPLE_MS', 5000, "Period of the engine's read of its tenants' load (due, held, in flight, oldest due run): the per-tenant metrics and the BACKLOG_LATE check.", 100),
  { name: 'BATON_METRICS_TOKEN', type: 'string', processes: ENGINES, description: "Token `GET /metrics` requires (`Authorization: Bearer <token>`; 401 without it), and then labels the per-tenant series by tenant id. Unset: `/metrics` answers anyone, and the per-tenant series are labelled by an opaque id instead (`t_` and 12 hex digits of an HMAC-SHA256 of the tenant id, keyed with a secret the cluster makes once and keeps in its database, so every engine gives a tenant the same label), so a stranger learns neither the tenants' names nor whose load is whose, and cannot check a guessed name. The operator finds a tenant's label on the operator page (**Tenants**, *Metrics label*; `GET /api/operator/tenants` → `metricsLabel`)." },
  int('BATON_LOAD_METRIC_TENANTS', 50, "Tenants with a `tenant` label of their own in the per-tenant load metrics, the oldest due run first; the others are summed under `tenant=\"_other\"`. 0: only `_other`.", 0),
  ms('BATON_BACKLOG_ALARM_MS', 60_000, "BACKLOG_LATE alarm when a tenant's oldest due run has waited longer than this (once per episode; a tenant may have its own, `backlogAlarmMs`). 0: no such alarm.", 0),
  { name: 'BATON_ROUTING', type: 'enum', default: 'LEAST_BUSY', values: ['ROUND_ROBIN', 'LEAST_BUSY', 'CONSISTENT_HASH', 'FAILOVER'], processes: ENGINES, description: 'How a run picks one of the executors of its app.' },
  ms('BATON_DISPATCH_TIMEOUT_MS', 5000, 'Timeout of one dispatch POST, send to ack.', 1),
  int('BATON_TASK_RATE', 0, "A cap on one task's runs: each engine sends at most this many of a task's runs a second (a token bucket per task, BATON_TASK_BURST its burst), for every task alike. 0 (the default): none, a task's runs go at its tenant's rate. No cap is needed for fairness: a tenant's tasks take its turns in turn on each engine, so one task's backlog costs another task's run one run of it, not the backlog.", 0),
  int('BATON_TASK_BURST', 1000, "The burst of BATON_TASK_RATE's bucket (runs of one task sent at once after a pause); with BATON_TASK_RATE 0, unused.", 1),
  { ...int('BATON_RETRY_BUDGET_PERCENT', 20, "A tenant's retry budget on this engine: retries (a failed or timed-out attempt's next attempt) a second, beyond the floor BATON_RETRY_BUDGET_PER_SEC, earned as this percent of the tenant's first attempts a second that ended on this engine over the last 10 s. A tenant starting 100 runs a second retries 10 + 20 a second at its backoff's time; more wait in line at that rate (a burst of one second's worth at once). A task that fails now and then retries as its policy says; a storm of failures retried at once (backoff 0, a hundred attempts) cannot take the engines and the database from the other tenants (docs/BENCHMARKS.md, Failing storm).", 0), max: 1_000 },
  int('BATON_RETRY_BUDGET_PER_SEC', 10, "A tenant's retries a second on this engine whatever its first attempts (the floor of its retry budget, BATON_RETRY_BUDGET_PERCENT). A retry past the budget's rate is due at its place in the line or at its backoff's time, whichever is later: never earlier than its policy says. 0: no budget, every retry at its backoff's time."),
  { name: 'BATON_SYNCHRONOUS_DISPATCH', type: 'boolean', default: 'false', processes: ENGINES, description: "Benchmarks only: hold the slot until the run ends (the synchronous dispatch of the MTHPT paper's baseline)." },
  // History: rollups and retention (docs/CONFIGURATION.md "Retention").
  { name: 'BATON_RUN_RETENTION_MS', type: 'duration-ms', default: String(30 * 86_400_000), min: 60_000, processes: SERVERS, description: "Ended runs are purged this long after they ended (with their logs): the cluster's ceiling and every tenant's default. A tenant admin may shorten it for the tenant, a task keep longer up to it. Never sooner than 5–6 minutes after the run ended: it is counted in the statistics first, 5 minutes after its minute. Default 30 days." },
  { name: 'BATON_LOG_RETENTION_MS', type: 'duration-ms', default: String(7 * 86_400_000), min: 60_000, processes: SERVERS, description: 'Run logs are purged this long after their run ended (never later than the run, never sooner than 5–6 minutes after it ended, as the run): ceiling and default. Default 7 days.' },
  { name: 'BATON_ALARM_RETENTION_MS', type: 'duration-ms', default: String(30 * 86_400_000), min: 60_000, processes: SERVERS, description: 'Alarms are purged this long after they were raised, once published: ceiling and default. Default 30 days.' },
  { name: 'BATON_MAX_RUNS_KEPT', type: 'integer', default: '100', min: 0, processes: SERVERS, description: "The most newest runs of a task a tenant's or task's `minRunsKept` may keep whatever their age: the ceiling of that floor (0: no run outlives the run retention). Default 100." },
  ms('BATON_AUDIT_RETENTION_MS', 365 * 86_400_000, "The audit log's records are purged this long after they were written: the operator's ceiling, which no tenant can shorten (the log is append-only otherwise). Default 365 days.", 86_400_000),
  ms('BATON_STATS_RETENTION_MS', 400 * 86_400_000, 'Hourly statistics (rollups) are kept this long; minute rollups 48 hours. Default 400 days.', 86_400_000),
  ms('BATON_HISTORY_INTERVAL_MS', 10_000, "Period of the history job (statistics rollups, then purge of what retention lets go), each tenant on one engine at a time. A turn visits only the tenants with runs ended since their last rollup or a purge due: a tenant is purged every tenth of its shortest retention, at most every 10 minutes, and at the next turn after its retention changes.", 1000),
  int('BATON_PURGE_BATCH', 500, 'Runs (or alarms) deleted per purge transaction: small, so no lock is held long.', 1),
  // Alarms.
  { name: 'BATON_BROKER_URL', type: 'string', processes: SERVERS, description: 'ActiveMQ STOMP broker(s) for alarms: `stomp://[user:pass@]host:61613`, a comma failover list or `failover:(…)`. Engines publish, consoles subscribe; executors never get it. The broker must require a login and be reachable by engines and consoles only (docs/OPERATIONS.md). Default none: the in-process bus (embedded mode; a console alone then gets no live alarms).' },
  { name: 'BATON_CLUSTER_ADDRESSES', type: 'url-list', processes: ENGINES, description: "The cluster's other listening addresses (comma list of URLs, e.g. `http://console-1:8080,http://console-2:8080`), where no tenant's executor may be registered: its consoles, a proxy before them. An engine knows without it its own address, the other engines' (engine_nodes), the database's and the broker's. A heartbeat naming one is refused (403 naming `url`); so is a dispatch to a name that resolves to one at its port. A host name here is compared as written, not resolved: list a console on another machine by each name and address an executor URL could use (one on the engine's machine is matched through any of its spellings). Default none." },
  { name: 'BATON_ALARM_TOPIC_PREFIX', type: 'string', default: 'baton.alarms.', processes: SERVERS, description: 'Alarms of tenant T go to the topic `<prefix>T`; ends with a dot.' },
  ms('BATON_ALARM_RELAY_INTERVAL_MS', 250, 'Poll period of the alarm relay (outbox → bus) when no local alarm woke it.', 1),
  int('BATON_ALARM_RELAY_BATCH', 200, 'Most alarms of one tenant published per relay transaction.', 1),
];

/** The executor SDK's variables (`executorOptionsFromEnv()`): defined by the SDK, which must not depend on this lib. */
const EXECUTOR_VARIABLES: readonly ConfigVariable[] = [
  ...EXECUTOR_ENV.map(
    (spec): ConfigVariable => ({
      name: spec.name,
      type: spec.type,
      default: spec.default,
      required: spec.required,
      min: spec.min,
      max: spec.max,
      processes: ['executor'],
      description: spec.description,
    }),
  ),
  { name: 'BATON_DEMO_RECORD_FILE', type: 'string', processes: ['executor'], description: 'Demo executor only: a JSONL file with one line per handler invocation (the tests read it). Default none.' },
];

/** Every `BATON_*` variable a Baton process reads. */
export const CONFIG_VARIABLES: readonly ConfigVariable[] = [...SERVER_VARIABLES, ...EXECUTOR_VARIABLES];

/** Variables of the tests, benchmarks and scripts/: documented so they are not "unknown", never validated. */
export const AUXILIARY_VARIABLES: readonly AuxiliaryVariable[] = [
  { name: 'BATON_TEST_MYSQL_URL', usedBy: 'tests', description: 'A MySQL/MariaDB server (`mysql://user:pass@host:port/`, no database) the tests create their databases on; unset: they start a private MariaDB.' },
  { name: 'BATON_TEST_MYSQL_ERROR', usedBy: 'tests', description: 'Set by the tests\' global setup when no MySQL could be had (the MySQL tests then fail with this reason).' },
  { name: 'BATON_TEST_SCALE', usedBy: 'tests', description: "`1`: also run the suites' scale cases that `npm test` leaves out for time (the 5,000-job XXL-JOB import, several minutes)." },
  { name: 'BATON_SKIP_MYSQL', usedBy: 'tests', description: '`1`: skip the tests that need MySQL.' },
  { name: 'BATON_TEST_BROKER_URL', usedBy: 'tests', description: 'An ActiveMQ STOMP broker for the alarm tests; unset: they start a private one.' },
  { name: 'BATON_TEST_BROKER_ERROR', usedBy: 'tests', description: 'Set by the tests\' global setup when no broker could be had.' },
  { name: 'BATON_SKIP_BROKER', usedBy: 'tests', description: '`1`: skip the tests that need ActiveMQ.' },
  { name: 'BATON_OUTAGE_BROKER_PORT', usedBy: 'tests', default: '61623', description: 'Port of the private broker the broker-outage test stops and starts.' },
  { name: 'BATON_AUTH_BROKER_PORT', usedBy: 'tests', default: '61624', description: 'Port of the private broker with a login (BATON_ACTIVEMQ_USER) that the STOMP adapter test starts and stops.' },
  { name: 'BATON_KEEP_CLUSTER_LOGS', usedBy: 'tests', description: '`1`: keep the process logs of the cluster tests.' },
  { name: 'BATON_CHROMIUM', usedBy: 'tests', default: '/usr/bin/chromium', description: 'Chromium binary of the browser tests.' },
  { name: 'BATON_PYTHON', usedBy: 'tests', default: 'python3', description: 'Python of the Python-executor tests.' },
  { name: 'BATON_CONSOLE_URL', usedBy: 'web console dev server (vite)', default: 'http://127.0.0.1:8080', description: 'Console the dev server proxies `/api` and `/socket.io` to.' },
  { name: 'BATON_MARIADB_PORT', usedBy: 'scripts/mariadb.sh', default: '3407', description: 'Port of the private MariaDB (`npm run db:start`).' },
  { name: 'BATON_MARIADB_PASSWORD', usedBy: 'scripts/mariadb.sh', default: 'baton', description: 'Password of its user `baton`.' },
  { name: 'BATON_MARIADB_START_TIMEOUT', usedBy: 'scripts/mariadb.sh', default: '60', description: 'Seconds to wait for it to start.' },
  { name: 'BATON_MARIADB_ARGS', usedBy: 'scripts/mariadb.sh', description: 'Extra mariadbd options (word-split).' },
  { name: 'BATON_ACTIVEMQ_STOMP_PORT', usedBy: 'scripts/activemq.sh', default: '61613', description: 'STOMP port of the private ActiveMQ (`npm run mq:start`).' },
  { name: 'BATON_ACTIVEMQ_START_TIMEOUT', usedBy: 'scripts/activemq.sh', default: '90', description: 'Seconds to wait for it to start.' },
  { name: 'BATON_ACTIVEMQ_HEAP', usedBy: 'scripts/activemq.sh', default: '256M', description: 'Its Java heap.' },
  { name: 'BATON_ACTIVEMQ_JAVA', usedBy: 'scripts/activemq.sh', description: 'The `java` to run it with. Default: `java` on PATH.' },
  { name: 'BATON_ACTIVEMQ_USER', usedBy: 'scripts/activemq.sh', description: "With BATON_ACTIVEMQ_PASSWORD: ActiveMQ's simple authentication with this one user, anonymous connections refused (the network connectors log in as it too); the URL it prints carries both. Default none: no login (development on loopback only)." },
  { name: 'BATON_ACTIVEMQ_PASSWORD', usedBy: 'scripts/activemq.sh', description: 'The password of BATON_ACTIVEMQ_USER.' },
  { name: 'BATON_ACTIVEMQ_NETWORK_PORT', usedBy: 'scripts/activemq.sh', description: 'Network of brokers (`baton cluster --ha`): an OpenWire connector on 127.0.0.1:<port> for the other brokers. Default none.' },
  { name: 'BATON_ACTIVEMQ_NETWORK_TO', usedBy: 'scripts/activemq.sh', description: 'Network of brokers: `host:port` list of the brokers to bridge to (duplex; set it on one side only). Default none.' },
  { name: 'BATON_GALERA_BASE_PORT', usedBy: 'scripts/galera.sh', default: '18300', description: 'The Galera cluster of `baton cluster --ha`: node N answers SQL on base+N, replication on base+10+N, IST on base+20+N, state transfer on base+30+N.' },
  { name: 'BATON_GALERA_START_TIMEOUT', usedBy: 'scripts/galera.sh', default: '120', description: 'Seconds to wait for a node to be Synced.' },
  { name: 'BATON_GALERA_PROVIDER_OPTIONS', usedBy: 'scripts/galera.sh', description: 'wsrep_provider_options replacing the local ones (failure detection after 1 s; keep Galera\'s defaults on a real network).' },
  { name: 'BATON_HAPROXY_DB_PORT', usedBy: 'scripts/haproxy.sh', default: '18340', description: 'HAProxy\'s database front: every connection to one Galera node (18940 with `BATON_HAPROXY_DATABASE=replica`).' },
  { name: 'BATON_HAPROXY_STATS_PORT', usedBy: 'scripts/haproxy.sh', default: '18341', description: 'HAProxy\'s stats page (18941 with `BATON_HAPROXY_DATABASE=replica`).' },
  { name: 'BATON_HAPROXY_CONSOLE_PORT', usedBy: 'scripts/haproxy.sh', default: '18350', description: 'HAProxy\'s front for the consoles (HTTP and websockets; 18950 with `BATON_HAPROXY_DATABASE=replica`).' },
  { name: 'BATON_HAPROXY_GALERA_PORTS', usedBy: 'scripts/haproxy.sh', default: '18301 18302 18303', description: 'The Galera nodes behind it, in order of preference.' },
  { name: 'BATON_HAPROXY_CONSOLE_PORTS', usedBy: 'scripts/haproxy.sh', default: '18381 18382', description: 'The consoles behind it.' },
  { name: 'BATON_HAPROXY_DATABASE', usedBy: 'scripts/haproxy.sh', default: 'galera', description: 'What the database front is before: `galera` (the Galera nodes, a Galera-state check) or `replica` (a primary and its replica, only the one with `read_only=OFF`: the replica once promoted).' },
  { name: 'BATON_HAPROXY_REPLICA_PORTS', usedBy: 'scripts/haproxy.sh', default: '18921 18922', description: 'With `BATON_HAPROXY_DATABASE=replica`: the primary and the replica behind it.' },
  { name: 'BATON_REPLICA_BASE_PORT', usedBy: 'scripts/mariadb-replica.sh', default: '18920', description: 'The primary + replica pair: node N (1 or 2) answers SQL on base+N.' },
  { name: 'BATON_REPLICA_SEMI_SYNC', usedBy: 'scripts/mariadb-replica.sh', default: 'on', description: '`on`: semi-synchronous replication (a commit the primary answered is on the replica: a promotion loses none); `off`: asynchronous. Applied at every start.' },
  { name: 'BATON_REPLICA_SEMI_SYNC_TIMEOUT_MS', usedBy: 'scripts/mariadb-replica.sh', default: '2000', description: 'How long the primary waits for the replica\'s acknowledgement before it goes on asynchronously (until the replica catches up).' },
  { name: 'BATON_REDIS_PORT', usedBy: 'scripts/redis.sh', default: '19900', description: 'The private Redis of `npm run bench -- peers` (BullMQ), on 127.0.0.1.' },
  { name: 'BATON_REDIS_START_TIMEOUT', usedBy: 'scripts/redis.sh', default: '30', description: 'Seconds to wait for it to start.' },
  { name: 'BATON_REDIS_APPENDFSYNC', usedBy: 'scripts/redis.sh', default: 'everysec', description: 'Its AOF fsync policy (`always`, `everysec`, `no`).' },
  { name: 'BATON_POSTGRES_PORT', usedBy: 'scripts/postgres.sh', default: '19910', description: 'The private PostgreSQL of `npm run bench -- peers` (graphile-worker), on 127.0.0.1.' },
  { name: 'BATON_POSTGRES_START_TIMEOUT', usedBy: 'scripts/postgres.sh', default: '60', description: 'Seconds to wait for it to start.' },
  { name: 'BATON_POSTGRES_BIN', usedBy: 'scripts/postgres.sh', default: '/usr/lib/postgresql/15/bin', description: 'Where Debian\'s PostgreSQL binaries are.' },
  { name: 'BATON_POSTGRES_ARGS', usedBy: 'scripts/postgres.sh', description: 'Extra `postgres` command-line arguments. Default none.' },
];

/** The variables `process` reads, one entry per name. */
export function variablesOf(process: BatonProcess): ConfigVariable[] {
  return CONFIG_VARIABLES.filter((v) => v.processes.includes(process));
}

/** Every name the schema knows (any process, tests and scripts). */
export function knownVariableNames(): Set<string> {
  return new Set([...CONFIG_VARIABLES.map((v) => v.name), ...AUXILIARY_VARIABLES.map((v) => v.name)]);
}
