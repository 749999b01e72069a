#!/usr/bin/env bash
# A private ActiveMQ broker for Baton's development and tests: one broker per STOMP port, its
# configuration and data under .tmp/activemq/<port>/ in the repository, speaking STOMP on
# 127.0.0.1 only (no OpenWire, no other connector). It never uses the Debian package's service
# (which stays stopped) and never touches a process it did not start.
#
#   scripts/activemq.sh ensure-installed   install activemq with apt if it is missing (root only)
#   scripts/activemq.sh start              start the broker (waits until STOMP answers); prints its URL
#   scripts/activemq.sh stop               stop the broker this script started (the PID in its pid file)
#   scripts/activemq.sh status             running or not (exit 0 when running, 3 when stopped)
#   scripts/activemq.sh url                print the broker URL
#
# For the test runner (test/support/global-setup.ts):
#   scripts/activemq.sh start --lease PID  as start, and registers PID as a user of the broker; a broker
#                                          started this way is "auto-started"
#   scripts/activemq.sh release PID        drops PID's lease; stops an auto-started broker once no live
#                                          lease is left (parallel test runs never stop each other's
#                                          broker, and a broker started by hand is never stopped by tests)
#
# URL printed by start/url (stdout, nothing else there): stomp://127.0.0.1:<port>
# (BATON_BROKER_URL for engines, consoles and executors).
#
# Environment: BATON_ACTIVEMQ_STOMP_PORT (default 61613), BATON_ACTIVEMQ_START_TIMEOUT (seconds,
# default 90), BATON_ACTIVEMQ_HEAP (default 256M), BATON_ACTIVEMQ_JAVA (default: java on PATH).
#
# The configuration is the Debian package's activemq.xml (instances-available/main), copied, with
# its OpenWire connector (61616) replaced by one STOMP connector on 127.0.0.1:<port>. The broker is
# started with java directly as the current user (the Debian wrapper switches to the `activemq`
# user, which cannot write a private data dir); it is up when the STOMP port answers (10-20 s).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PORT="${BATON_ACTIVEMQ_STOMP_PORT:-61613}"
START_TIMEOUT="${BATON_ACTIVEMQ_START_TIMEOUT:-90}"
HEAP="${BATON_ACTIVEMQ_HEAP:-256M}"
URL="stomp://127.0.0.1:${PORT}"

AMQ_HOME=/usr/share/activemq
AMQ_JAR="$AMQ_HOME/bin/activemq.jar"
DEBIAN_CONF=/etc/activemq/instances-available/main

BASE="$ROOT/.tmp/activemq/$PORT"
CONF="$BASE/conf"
DATA="$BASE/data"
PIDFILE="$BASE/baton-activemq.pid"
LOG="$BASE/activemq.log"
LEASES="$BASE/leases"
AUTO_MARK="$BASE/auto-started"
LOCKFILE="$ROOT/.tmp/activemq/$PORT.lock"

log() { echo "[activemq.sh] $*" >&2; }
die() { echo "[activemq.sh] error: $*" >&2; exit 1; }

[[ "$PORT" =~ ^[0-9]+$ ]] && [ "$PORT" -gt 0 ] && [ "$PORT" -lt 65536 ] || die "BATON_ACTIVEMQ_STOMP_PORT must be a port number (got '$PORT')"

java_cmd() {
  if [ -n "${BATON_ACTIVEMQ_JAVA:-}" ]; then echo "$BATON_ACTIVEMQ_JAVA"; return 0; fi
  command -v java 2>/dev/null || { [ -x /usr/lib/jvm/default-java/bin/java ] && echo /usr/lib/jvm/default-java/bin/java; } || return 1
}

installed() { [ -f "$AMQ_JAR" ] && [ -f "$DEBIAN_CONF/activemq.xml" ] && java_cmd >/dev/null; }

require_installed() {
  installed || die "ActiveMQ is not installed (need $AMQ_JAR, $DEBIAN_CONF/activemq.xml and java). Install it with: sudo scripts/activemq.sh ensure-installed (apt-get install activemq)"
  command -v flock >/dev/null 2>&1 || die "flock not found (package util-linux)"
}

cmd_ensure_installed() {
  if installed; then
    log "activemq is installed ($(dpkg-query -W -f='${Version}' activemq 2>/dev/null || echo 'version unknown'), $("$(java_cmd)" -version 2>&1 | head -n1))"
    return 0
  fi
  if [ "$(id -u)" != 0 ]; then
    die "ActiveMQ is not installed and this is not root. Run as root: apt-get update && apt-get install -y activemq (or sudo scripts/activemq.sh ensure-installed)"
  fi
  command -v apt-get >/dev/null 2>&1 || die "ActiveMQ is not installed and apt-get is not available: install ActiveMQ 5.17 by hand"
  log "installing activemq with apt-get"
  # Keep the package from starting its own service: we run a private broker instead.
  # policy-rc.d exit code 101 = "action forbidden" (Debian's invoke-rc.d policy interface).
  local policy=/usr/sbin/policy-rc.d added_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod 755 "$policy"
    added_policy=1
  fi
  local rc=0
  { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y activemq default-jre-headless </dev/null; } || rc=$?
  if [ "$added_policy" = 1 ]; then rm -f "$policy"; fi
  [ "$rc" = 0 ] || die "apt-get install activemq failed (exit $rc)"
  installed || die "activemq was installed but $AMQ_JAR or java is still missing"
  log "installed activemq $(dpkg-query -W -f='${Version}' activemq 2>/dev/null || true)"
}

# Is PID alive (not a zombie) and the java of this broker (its activemq.base)?
is_ours() {
  local pid="$1"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  local state
  state="$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || true)"
  [ "$state" != Z ] || return 1
  tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | grep -qxF -- "-Dactivemq.base=$BASE"
}

running_pid() { # prints the PID of our running broker, or fails
  [ -f "$PIDFILE" ] || return 1
  local pid
  pid="$(cat "$PIDFILE" 2>/dev/null || true)"
  is_ours "$pid" || return 1
  echo "$pid"
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; }

# A STOMP CONNECT answered by CONNECTED: the broker is up (not just the port).
answers() {
  local reply
  reply="$(
    {
      exec 3<>"/dev/tcp/127.0.0.1/$PORT" || exit 1
      printf 'CONNECT\naccept-version:1.2\nhost:localhost\n\n\0' >&3
      timeout 3 head -c 9 <&3 || true
      printf 'DISCONNECT\n\n\0' >&3 || true
    } 2>/dev/null
  )" || return 1
  [ "$reply" = CONNECTED ]
}

with_lock() { # runs "$@" holding the per-port lock (parallel test runs, parallel developers)
  mkdir -p "$ROOT/.tmp/activemq"
  exec 9>"$LOCKFILE"
  flock -w 180 9 || die "could not take $LOCKFILE within 180 s"
  "$@"
  exec 9>&-
}

write_config() {
  mkdir -p "$CONF" "$DATA"
  local connector="<transportConnector name=\"stomp\" uri=\"stomp://127.0.0.1:${PORT}?transport.closeAsync=false\"/>"
  # Copy of the Debian instance config: every transportConnector removed, ours added; the broker
  # named after the port (two private brokers on one machine stay apart).
  awk -v connector="$connector" -v name="baton-$PORT" '
    /<transportConnector[^>]*\/>/ { next }
    /<transportConnectors>/ { print; print "            " connector; next }
    { gsub(/brokerName="[^"]*"/, "brokerName=\"" name "\""); print }
  ' "$DEBIAN_CONF/activemq.xml" >"$CONF/activemq.xml.new"
  grep -qF "stomp://127.0.0.1:${PORT}" "$CONF/activemq.xml.new" || die "could not add the STOMP connector to a copy of $DEBIAN_CONF/activemq.xml (no <transportConnectors> element?)"
  if grep -E 'uri="(tcp|amqp|mqtt|ws|nio|ssl|auto)' "$CONF/activemq.xml.new" >/dev/null; then
    die "the copy of $DEBIAN_CONF/activemq.xml still has a connector other than STOMP"
  fi
  mv "$CONF/activemq.xml.new" "$CONF/activemq.xml"
  if [ -f "$DEBIAN_CONF/log4j2.properties" ]; then cp "$DEBIAN_CONF/log4j2.properties" "$CONF/log4j2.properties"; fi
}

do_start() {
  local lease="$1"
  mkdir -p "$BASE" "$LEASES"
  local pid
  if pid="$(running_pid)"; then
    log "already running (pid $pid, $URL)"
    # Started by hand now: no test run may stop it any more.
    if [ -z "$lease" ]; then rm -f "$AUTO_MARK"; fi
  else
    rm -f "$PIDFILE"
    if port_in_use; then
      die "port $PORT on 127.0.0.1 is taken by another process (not this script's broker). Stop it or set BATON_ACTIVEMQ_STOMP_PORT."
    fi
    write_config
    local started=$SECONDS log_from java
    java="$(java_cmd)"
    log_from=$(($(stat -c %s "$LOG" 2>/dev/null || echo 0) + 1)) # the log tail shown on failure starts here
    log "starting ActiveMQ, STOMP on 127.0.0.1:$PORT (base: $BASE, log: $LOG)"
    setsid "$java" -Xms64M "-Xmx$HEAP" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true \
      "-Dactivemq.home=$AMQ_HOME" "-Dactivemq.base=$BASE" "-Dactivemq.conf=$CONF" "-Dactivemq.data=$DATA" \
      "-Dactivemq.classpath=$CONF" "-Dlog4j2.configurationFile=$CONF/log4j2.properties" \
      -jar "$AMQ_JAR" start "xbean:file:$CONF/activemq.xml" </dev/null >>"$LOG" 2>&1 9>&- &
    # (9>&-: the broker must not inherit the lock's descriptor, or it would hold the lock.)
    pid=$!
    echo "$pid" >"$PIDFILE"
    until answers; do
      if ! kill -0 "$pid" 2>/dev/null; then
        rm -f "$PIDFILE"
        echo "---- last lines of $LOG ----" >&2
        tail -c "+$log_from" "$LOG" | tail -n 40 >&2 || true
        die "ActiveMQ (pid $pid) exited during start-up"
      fi
      if [ $((SECONDS - started)) -ge "$START_TIMEOUT" ]; then
        echo "---- last lines of $LOG ----" >&2
        tail -c "+$log_from" "$LOG" | tail -n 40 >&2 || true
        kill -TERM "$pid" 2>/dev/null || true
        rm -f "$PIDFILE"
        die "ActiveMQ (pid $pid) did not answer STOMP within ${START_TIMEOUT} s; stopped it"
      fi
      sleep 0.25
    done
    log "up in $((SECONDS - started)) s (pid $pid)"
    if [ -n "$lease" ]; then touch "$AUTO_MARK"; else rm -f "$AUTO_MARK"; fi
  fi
  if [ -n "$lease" ]; then
    [[ "$lease" =~ ^[0-9]+$ ]] || die "--lease needs a PID"
    touch "$LEASES/$lease"
  fi
  echo "$URL"
}

do_stop() {
  local pid
  if [ ! -f "$PIDFILE" ]; then
    log "not running (no pid file)"
    return 0
  fi
  pid="$(cat "$PIDFILE" 2>/dev/null || true)"
  if ! is_ours "$pid"; then
    log "not running (stale pid file with pid '$pid', which is not this broker; removed)"
    rm -f "$PIDFILE" "$AUTO_MARK"
    return 0
  fi
  log "stopping ActiveMQ (pid $pid)"
  kill -TERM "$pid"
  local waited=0
  while is_ours "$pid"; do
    if [ "$waited" -ge 300 ]; then # 30 s
      log "pid $pid still alive after 30 s: sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
      break
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  rm -f "$PIDFILE" "$AUTO_MARK"
  rm -rf "$LEASES"
  log "stopped"
}

prune_leases() {
  mkdir -p "$LEASES"
  local f
  for f in "$LEASES"/*; do
    [ -e "$f" ] || continue
    kill -0 "$(basename "$f")" 2>/dev/null || rm -f "$f"
  done
}

live_leases() { prune_leases; find "$LEASES" -mindepth 1 -maxdepth 1 | wc -l; }

do_release() {
  local lease="$1"
  [[ "$lease" =~ ^[0-9]+$ ]] || die "release needs a PID"
  rm -f "$LEASES/$lease"
  if ! running_pid >/dev/null; then return 0; fi
  if [ ! -f "$AUTO_MARK" ]; then
    log "leaving the broker running (it was not started by a test run)"
    return 0
  fi
  local n
  n="$(live_leases)"
  if [ "$n" -gt 0 ]; then
    log "leaving the broker running ($n other test run(s) use it)"
    return 0
  fi
  do_stop
}

cmd_status() {
  local pid
  if pid="$(running_pid)"; then
    local how="started by hand"
    if [ -f "$AUTO_MARK" ]; then how="auto-started by a test run, $(live_leases) live lease(s)"; fi
    echo "running: pid $pid, $URL ($how), base $BASE"
    return 0
  fi
  echo "stopped (port $PORT, base $BASE)"
  return 3
}

usage() {
  sed -n '2,30p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

main() {
  local cmd="${1:-}"
  shift || true
  case "$cmd" in
    ensure-installed) cmd_ensure_installed ;;
    start)
      local lease=""
      if [ "${1:-}" = --lease ]; then lease="${2:-}"; [ -n "$lease" ] || die "--lease needs a PID"; fi
      require_installed
      with_lock do_start "$lease"
      ;;
    stop) with_lock do_stop ;;
    release) with_lock do_release "${1:-}" ;;
    status) cmd_status ;;
    url) echo "$URL" ;;
    *) usage ;;
  esac
}

main "$@"
