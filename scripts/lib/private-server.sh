# shellcheck shell=bash
# Shared by scripts/mariadb.sh and scripts/activemq.sh: a private server per port that this
# script starts, stops, leases to test runs and never confuses with a process it did not start.
# Sourced, not run. The sourcing script sets, before sourcing:
#   NAME           log prefix and .tmp dir name (mariadb, activemq)
#   SCRIPT         the sourcing script's path (its header comment is the usage text)
#   USAGE_LINES    the header's lines, for sed -n (e.g. 2,26)
#   PORT URL START_TIMEOUT BASE PIDFILE LOG LEASES AUTO_MARK LOCKFILE
#   PORT_ENV       the variable that sets the port (named when the port is taken)
#   KIND           "server" or "broker" (log messages)
#   LABEL          the program in log messages (mariadbd, ActiveMQ)
#   OURS_ARG       a command-line argument only our process of this port has
#   READY_WHAT     what start waits for, in the timeout message ("answer", "answer STOMP")
#   READY_POLL     seconds between readiness checks
#   STOP_TIMEOUT   seconds stop waits after STOP_SIGNAL before SIGKILL
#   STOP_SIGNAL    optional, default TERM: the signal that asks the server to shut down
#   RUNNING_WHERE  where, in the "already running" message (e.g. "port <port>")
#   STATUS_WHERE   the tail of the status line (e.g. "data <dir>")
#   SHOWN_URL      optional, default URL: the URL in the status line (a password masked)
# and defines:
#   require_installed, cmd_ensure_installed
#   answers        succeeds once the server answers
#   prepare_start  before launch (initialise the data dir, write the config)
#   launch         starts the server in the background (setsid ... 9>&- &) and logs it
#   after_start    after start, running or already running (provisioning; may be a no-op)

log() { echo "[$NAME.sh] $*" >&2; }
die() { echo "[$NAME.sh] error: $*" >&2; exit 1; }

# apt-get install "$@" without letting the package start its own service (we run a private one).
# $1 names the package in the failure message.
apt_install_no_service() {
  local what="$1"
  shift
  # policy-rc.d exit code 101 = "action forbidden" (Debian's invoke-rc.d policy interface).
  local policy=/usr/sbin/policy-rc.d added_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod 755 "$policy"
    added_policy=1
  fi
  local rc=0
  { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y "$@" </dev/null; } || rc=$?
  if [ "$added_policy" = 1 ]; then rm -f "$policy"; fi
  [ "$rc" = 0 ] || die "apt-get install $what failed (exit $rc)"
}

# Is PID alive (not a zombie) and our server of this port (its command line has $OURS_ARG)?
is_ours() {
  local pid="$1"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  local state
  state="$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || true)"
  [ "$state" != Z ] || return 1
  tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | grep -qxF -- "$OURS_ARG"
}

running_pid() { # prints the PID of our running server, or fails
  [ -f "$PIDFILE" ] || return 1
  local pid
  pid="$(cat "$PIDFILE" 2>/dev/null || true)"
  is_ours "$pid" || return 1
  echo "$pid"
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; }

with_lock() { # runs "$@" holding the per-port lock (parallel test runs, parallel developers)
  mkdir -p "$ROOT/.tmp/$NAME"
  exec 9>"$LOCKFILE"
  flock -w 180 9 || die "could not take $LOCKFILE within 180 s"
  "$@"
  exec 9>&-
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

do_start() {
  local lease="$1"
  mkdir -p "$BASE" "$LEASES"
  local pid
  if pid="$(running_pid)"; then
    log "already running (pid $pid, $RUNNING_WHERE)"
    # Started by hand now: no test run may stop it any more.
    if [ -z "$lease" ]; then rm -f "$AUTO_MARK"; fi
  else
    rm -f "$PIDFILE"
    if port_in_use; then
      die "port $PORT on 127.0.0.1 is taken by another process (not this script's $KIND). Stop it or set $PORT_ENV."
    fi
    prepare_start
    local started=$SECONDS log_from
    log_from=$(($(stat -c %s "$LOG" 2>/dev/null || echo 0) + 1)) # the log tail shown on failure starts here
    launch # in the background, with 9>&-: the server must not inherit the lock's descriptor
    pid=$!
    echo "$pid" >"$PIDFILE"
    until answers; do
      if ! kill -0 "$pid" 2>/dev/null; then
        rm -f "$PIDFILE"
        echo "---- last lines of $LOG ----" >&2
        tail -c "+$log_from" "$LOG" | tail -n 40 >&2 || true
        die "$LABEL (pid $pid) exited during start-up"
      fi
      if [ $((SECONDS - started)) -ge "$START_TIMEOUT" ]; then
        echo "---- last lines of $LOG ----" >&2
        tail -c "+$log_from" "$LOG" | tail -n 40 >&2 || true
        kill -TERM "$pid" 2>/dev/null || true
        rm -f "$PIDFILE"
        die "$LABEL (pid $pid) did not $READY_WHAT within ${START_TIMEOUT} s; stopped it"
      fi
      sleep "$READY_POLL"
    done
    log "up in $((SECONDS - started)) s (pid $pid)"
    if [ -n "$lease" ]; then touch "$AUTO_MARK"; else rm -f "$AUTO_MARK"; fi
  fi
  after_start
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
    log "not running (stale pid file with pid '$pid', which is not this $KIND; removed)"
    rm -f "$PIDFILE" "$AUTO_MARK"
    return 0
  fi
  log "stopping $LABEL (pid $pid)"
  kill "-${STOP_SIGNAL:-TERM}" "$pid"
  local waited=0
  while is_ours "$pid"; do
    if [ "$waited" -ge $((STOP_TIMEOUT * 10)) ]; then
      log "pid $pid still alive after $STOP_TIMEOUT s: sending SIGKILL"
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

do_release() {
  local lease="$1"
  [[ "$lease" =~ ^[0-9]+$ ]] || die "release needs a PID"
  rm -f "$LEASES/$lease"
  if ! running_pid >/dev/null; then return 0; fi
  if [ ! -f "$AUTO_MARK" ]; then
    log "leaving the $KIND running (it was not started by a test run)"
    return 0
  fi
  local n
  n="$(live_leases)"
  if [ "$n" -gt 0 ]; then
    log "leaving the $KIND running ($n other test run(s) use it)"
    return 0
  fi
  do_stop
}

cmd_status() {
  local pid
  if pid="$(running_pid)"; then
    local how="started by hand"
    if [ -f "$AUTO_MARK" ]; then how="auto-started by a test run, $(live_leases) live lease(s)"; fi
    echo "running: pid $pid, ${SHOWN_URL:-$URL} ($how), $STATUS_WHERE"
    return 0
  fi
  echo "stopped (port $PORT, $STATUS_WHERE)"
  return 3
}

usage() {
  sed -n "${USAGE_LINES}p" "$SCRIPT" | sed 's/^# \{0,1\}//' >&2
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
