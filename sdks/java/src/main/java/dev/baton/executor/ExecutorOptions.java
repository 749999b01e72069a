package dev.baton.executor;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An executor's settings, with the Node SDK's defaults. {@link #fromEnv()} reads the same BATON_*
 * variables as the Node SDK's executorOptionsFromEnv; the setters override what they say:
 * {@code ExecutorOptions.fromEnv().app("billing").concurrency(8)}.
 */
public final class ExecutorOptions {
  String tenantId;
  String secret;
  String app = "default";
  List<String> engineUrls = List.of("http://127.0.0.1:8080");
  String publicUrl;
  String host = "127.0.0.1";
  int port = 0;
  int concurrency = 16;
  int queueLimit = 1000;
  int callbackConcurrency = 32;
  long heartbeatIntervalMs = 3000;
  long shutdownGraceMs = 10_000;
  long shutdownFlushMs = 5000;
  long abortGraceMs = 5000;
  long progressIntervalMs = 1000;
  long requestTimeoutMs = 10_000;
  long rerouteAfterMs = 1000;
  long retryBaseMs = 200;
  long retryMaxMs = 30_000;
  int maxResultBytes = 64_000;
  int maxBodyBytes = 1_048_576;
  int recentlyFinishedLimit = 10_000;
  int maxAlarmsPerRun = 100;
  int logTailMaxLines = 200;
  int logTailMaxBytes = 32_768;
  int logTailMaxLineBytes = 4096;
  long maxSkewMs = Signing.DEFAULT_MAX_SKEW_MS;
  /** Null: the default, ./.baton/spool-<app>.jsonl (or a numbered one when another process holds it). */
  Path spoolFile;
  boolean spool = true;

  /** From the process environment. */
  public static ExecutorOptions fromEnv() {
    return fromEnv(System.getenv());
  }

  /**
   * From these variables: BATON_TENANT and BATON_EXECUTOR_SECRET (required), BATON_ENGINE_URLS,
   * BATON_EXECUTOR_APP, _HOST, _PORT, _PUBLIC_URL, _CONCURRENCY, _QUEUE_LIMIT,
   * _CALLBACK_CONCURRENCY, _SPOOL, _HEARTBEAT_MS, _SHUTDOWN_GRACE_MS, _RETRY_BASE_MS, _RETRY_MAX_MS.
   * Throws an {@link ExecutorEnvException} naming a missing or malformed one.
   */
  public static ExecutorOptions fromEnv(Map<String, String> env) {
    ExecutorOptions o = new ExecutorOptions();
    Env e = new Env(env);
    o.tenantId = e.required("BATON_TENANT", "tenant id the executor serves.");
    o.secret = e.required("BATON_EXECUTOR_SECRET", "the tenant's executor secret (signs every request between engine and executor).");
    List<String> urls = e.urlList("BATON_ENGINE_URLS");
    if (urls != null) o.engineUrls = urls;
    o.app = e.string("BATON_EXECUTOR_APP", o.app);
    o.host = e.string("BATON_EXECUTOR_HOST", o.host);
    o.port = (int) e.integer("BATON_EXECUTOR_PORT", o.port);
    o.publicUrl = e.url("BATON_EXECUTOR_PUBLIC_URL");
    o.concurrency = (int) e.integer("BATON_EXECUTOR_CONCURRENCY", o.concurrency);
    o.queueLimit = (int) e.integer("BATON_EXECUTOR_QUEUE_LIMIT", o.queueLimit);
    o.callbackConcurrency = (int) e.integer("BATON_EXECUTOR_CALLBACK_CONCURRENCY", o.callbackConcurrency);
    o.heartbeatIntervalMs = e.integer("BATON_EXECUTOR_HEARTBEAT_MS", o.heartbeatIntervalMs);
    o.shutdownGraceMs = e.integer("BATON_EXECUTOR_SHUTDOWN_GRACE_MS", o.shutdownGraceMs);
    o.retryBaseMs = e.integer("BATON_EXECUTOR_RETRY_BASE_MS", o.retryBaseMs);
    o.retryMaxMs = e.integer("BATON_EXECUTOR_RETRY_MAX_MS", o.retryMaxMs);
    String spool = e.string("BATON_EXECUTOR_SPOOL", null);
    if (spool != null) o.spoolFile = Path.of(spool);
    return o;
  }

  public ExecutorOptions tenantId(String v) { tenantId = v; return this; }
  public ExecutorOptions secret(String v) { secret = v; return this; }
  /** Tasks whose executor app is this run here; executors of one app form a pool. */
  public ExecutorOptions app(String v) { app = v; return this; }
  public ExecutorOptions engineUrls(List<String> v) { engineUrls = List.copyOf(v); return this; }
  /** The base URL engines call, when the bound address is not reachable from them. */
  public ExecutorOptions publicUrl(String v) { publicUrl = v; return this; }
  public ExecutorOptions host(String v) { host = v; return this; }
  public ExecutorOptions port(int v) { port = v; return this; }
  /** Handlers running at once (worker threads; {@code capacity} in heartbeats). */
  public ExecutorOptions concurrency(int v) { concurrency = v; return this; }
  /** Accepted runs waiting for a worker; beyond, dispatches get 429 BUSY. */
  public ExecutorOptions queueLimit(int v) { queueLimit = v; return this; }
  /** Callback requests in flight to the engines at once. */
  public ExecutorOptions callbackConcurrency(int v) { callbackConcurrency = v; return this; }
  public ExecutorOptions heartbeatIntervalMs(long v) { heartbeatIntervalMs = v; return this; }
  /** On stop: time running handlers get before they are aborted. */
  public ExecutorOptions shutdownGraceMs(long v) { shutdownGraceMs = v; return this; }
  /** On stop: time to deliver pending callbacks. */
  public ExecutorOptions shutdownFlushMs(long v) { shutdownFlushMs = v; return this; }
  /** After an abort: time for the handler to return before ABORTED is reported anyway (it keeps its worker until it returns). */
  public ExecutorOptions abortGraceMs(long v) { abortGraceMs = v; return this; }
  /** At most one interim callback (progress, log lines, alarms) per run per this interval. */
  public ExecutorOptions progressIntervalMs(long v) { progressIntervalMs = v; return this; }
  /** Timeout of one request to an engine (callback, heartbeat), ms. Default 10 000. */
  public ExecutorOptions requestTimeoutMs(long v) { requestTimeoutMs = v; return this; }
  /**
   * A callback an engine has not answered within this also goes to the next engine, and that
   * engine is tried after the others for 5 s (again each time it hangs); its request goes on, a
   * late answer still counts, and it no longer holds one of the callbackConcurrency permits. One
   * hanging engine (black-holed, frozen) must not keep finished runs running for the request
   * timeout. Default 1000 (the Node SDK's rerouteAfterMs).
   */
  public ExecutorOptions rerouteAfterMs(long v) { rerouteAfterMs = v; return this; }
  /** Callback retry backoff: exponential from {@code baseMs} to {@code maxMs}, with jitter. */
  public ExecutorOptions callbackRetry(long baseMs, long maxMs) { retryBaseMs = baseMs; retryMaxMs = maxMs; return this; }
  public ExecutorOptions maxResultBytes(int v) { maxResultBytes = v; return this; }
  public ExecutorOptions maxBodyBytes(int v) { maxBodyBytes = v; return this; }
  public ExecutorOptions recentlyFinishedLimit(int v) { recentlyFinishedLimit = v; return this; }
  public ExecutorOptions maxAlarmsPerRun(int v) { maxAlarmsPerRun = v; return this; }
  public ExecutorOptions logTail(int maxLines, int maxBytes, int maxLineBytes) { logTailMaxLines = maxLines; logTailMaxBytes = maxBytes; logTailMaxLineBytes = maxLineBytes; return this; }
  public ExecutorOptions maxSkewMs(long v) { maxSkewMs = v; return this; }
  /** The file where final callbacks wait until an engine takes them, replayed at start (default {@code ./.baton/spool-<app>.jsonl}). */
  public ExecutorOptions spoolFile(Path v) { spoolFile = v; spool = true; return this; }
  /** Final callbacks in memory only: a crash loses the undelivered ones (the engine's watchdog reconciles those runs). */
  public ExecutorOptions noSpool() { spool = false; return this; }

  /** Checks the settings; throws an IllegalArgumentException naming the bad one. */
  void check() {
    if (tenantId == null || tenantId.isBlank()) throw new IllegalArgumentException("executor options: tenantId is required");
    if (secret == null || secret.isBlank()) throw new IllegalArgumentException("executor options: secret is required");
    if (app == null || !app.matches("[A-Za-z0-9._-]+")) throw new IllegalArgumentException("executor options: app \"" + app + "\" may only contain letters, digits, \".\", \"_\" and \"-\"");
    if (engineUrls.isEmpty()) throw new IllegalArgumentException("executor options: engineUrls needs at least one engine base URL");
    List<String> normalized = new ArrayList<>();
    for (String u : engineUrls) {
      String url = normalizeBaseUrl(u, "engineUrls");
      if (!normalized.contains(url)) normalized.add(url);
    }
    engineUrls = List.copyOf(normalized);
    if (publicUrl != null) publicUrl = normalizeBaseUrl(publicUrl, "publicUrl");
    atLeast("port", port, 0);
    atLeast("concurrency", concurrency, 1);
    atLeast("queueLimit", queueLimit, 0);
    atLeast("callbackConcurrency", callbackConcurrency, 1);
    atLeast("heartbeatIntervalMs", heartbeatIntervalMs, 10);
    atLeast("retryBaseMs", retryBaseMs, 1);
    atLeast("retryMaxMs", retryMaxMs, 1);
    atLeast("requestTimeoutMs", requestTimeoutMs, 1);
    atLeast("rerouteAfterMs", rerouteAfterMs, 1);
    atLeast("maxResultBytes", maxResultBytes, 16);
    atLeast("maxAlarmsPerRun", maxAlarmsPerRun, 0);
    // What an engine stores of one callback's alarms (MAX_ALARMS_PER_CALLBACK): more waiting would be lost.
    if (maxAlarmsPerRun > 100) throw new IllegalArgumentException("executor options: maxAlarmsPerRun must be at most 100, what an engine takes from one callback (got " + maxAlarmsPerRun + ")");
  }

  static String normalizeBaseUrl(String url, String what) {
    if (!isHttpUrl(url)) throw new IllegalArgumentException("executor options: " + what + ": \"" + url + "\" is not an http(s) URL");
    return withoutTrailingSlashes(url);
  }

  static String withoutTrailingSlashes(String url) {
    int end = url.length();
    while (end > 0 && url.charAt(end - 1) == '/') end--;
    return url.substring(0, end);
  }

  static boolean isHttpUrl(String value) {
    try {
      URI uri = new URI(value);
      return ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null;
    } catch (Exception e) {
      return false;
    }
  }

  private static void atLeast(String name, long value, long min) {
    if (value < min) throw new IllegalArgumentException("executor options: " + name + " must be an integer ≥ " + min + " (got " + value + ")");
  }

  /** The environment's values, trimmed; an empty one counts as unset. */
  private record Env(Map<String, String> env) {
    String raw(String name) {
      String v = env.get(name);
      return v == null || v.trim().isEmpty() ? null : v.trim();
    }

    String required(String name, String what) {
      String v = raw(name);
      if (v == null) throw new ExecutorEnvException(name, null, "is required: " + what);
      return v;
    }

    String string(String name, String fallback) {
      String v = raw(name);
      return v == null ? fallback : v;
    }

    long integer(String name, long fallback) {
      String v = raw(name);
      if (v == null) return fallback;
      if (!v.matches("\\d{1,15}")) throw new ExecutorEnvException(name, v, "must be a non-negative integer");
      return Long.parseLong(v);
    }

    String url(String name) {
      String v = raw(name);
      if (v != null && !isHttpUrl(v)) throw new ExecutorEnvException(name, v, "must be an http(s) URL");
      return v;
    }

    List<String> urlList(String name) {
      String v = raw(name);
      if (v == null) return null;
      List<String> urls = new ArrayList<>();
      for (String part : v.split(",")) {
        String u = part.trim();
        if (u.isEmpty()) continue;
        if (!isHttpUrl(u)) throw new ExecutorEnvException(name, v, "\"" + u + "\" is not an http(s) URL (a comma-separated list of engine base URLs)");
        urls.add(u);
      }
      if (urls.isEmpty()) throw new ExecutorEnvException(name, v, "must name at least one http(s) URL");
      return urls;
    }
  }
}
