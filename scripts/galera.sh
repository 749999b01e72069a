#!/usr/bin/env bash
# A private three-node MariaDB Galera cluster for Baton's high-availability development and tests
# (Debian packages mariadb-server and galera-4), every node on 127.0.0.1, each with its own data
# dir under .tmp/galera/<node>/. It never uses the Debian service and never touches a process it
# did not start. Put scripts/haproxy.sh in front of it: Baton writes to ONE node at a time.
#
#   scripts/galera.sh start           start the three nodes (the first bootstraps the cluster when
#                                     no node runs); prints the nodes' URLs, one per line
#   scripts/galera.sh stop            stop the nodes this script started (last node 1, so it may
#                                     bootstrap the next start)
#   scripts/galera.sh status          each node: running or not, and its Galera state
#   scripts/galera.sh url             the nodes' URLs
#   scripts/galera.sh start --lease PID / release PID   as scripts/mariadb.sh, for test runs
#   scripts/galera.sh node N start|stop|status|url   one node (1, 2 or 3); start joins the running ones
#   scripts/galera.sh node N kill     SIGKILL node N (fault tests)
#   scripts/galera.sh node N pid      print node N's mariadbd PID
#   scripts/galera.sh node N synced   exit 0 when node N is Synced in a Primary component
#
# Ports (BATON_GALERA_BASE_PORT, default 18300): node N answers SQL on BASE+N, Galera
# replication (gcomm) on BASE+10+N, IST on BASE+20+N, SST (rsync) on BASE+30+N.
# Account: user `baton`, password `baton` (BATON_MARIADB_PASSWORD), all privileges, database
# `baton` created; user `haproxy_check` (no password, no privilege) for the proxy's check.
#
# The failure detector is tuned for one machine (suspect after 1 s, not 5 s): the survivors of a
# killed node resume commits within about a second. On a real network keep Galera's defaults
# (BATON_GALERA_PROVIDER_OPTIONS replaces these options).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BASE_PORT="${BATON_GALERA_BASE_PORT:-18300}"
DB_USER=baton
DB_PASSWORD="${BATON_MARIADB_PASSWORD:-baton}"
PROVIDER=/usr/lib/galera/libgalera_smm.so
PROVIDER_OPTIONS="${BATON_GALERA_PROVIDER_OPTIONS:-evs.suspect_timeout=PT1S;evs.inactive_timeout=PT2S;evs.keepalive_period=PT0.3S;evs.inactive_check_period=PT0.3S;evs.install_timeout=PT2S;gcache.size=64M}"
NODES=(1 2 3)
SELF="${BASH_SOURCE[0]}"

cluster_address() {
  local n list=""
  for n in "${NODES[@]}"; do list="${list:+$list,}127.0.0.1:$((BASE_PORT + 10 + n))"; done
  echo "gcomm://$list"
}

node_main() {
  local node="$1"
  shift
  [[ "$node" =~ ^[123]$ ]] || { echo "[galera.sh] error: node must be 1, 2 or 3 (got '$node')" >&2; exit 2; }
  PORT=$((BASE_PORT + node))
  START_TIMEOUT="${BATON_GALERA_START_TIMEOUT:-120}"
  URL="mysql://${DB_USER}:${DB_PASSWORD}@127.0.0.1:${PORT}/"
  BASE="$ROOT/.tmp/galera/$node"
  DATADIR="$BASE/data"
  PIDFILE="$BASE/baton-mariadbd.pid"
  LOG="$BASE/mariadbd.log"
  LEASES="$BASE/leases"
  AUTO_MARK="$BASE/auto-started"
  LOCKFILE="$ROOT/.tmp/galera/$node.lock"
  SOCKET="$BASE/mariadbd.sock"
  if [ "${#SOCKET}" -gt 100 ]; then
    SOCKET="${TMPDIR:-/tmp}/baton-galera-$PORT-$(printf '%s' "$BASE" | md5sum | cut -c1-8).sock"
  fi
  NAME=galera
  SCRIPT="$SELF"
  USAGE_LINES=2,27
  PORT_ENV=BATON_GALERA_BASE_PORT
  KIND="node"
  LABEL="galera node $node (mariadbd)"
  OURS_ARG="--datadir=$DATADIR"
  READY_WHAT="answer as a Synced member"
  READY_POLL=0.3
  STOP_TIMEOUT=60
  RUNNING_WHERE="port $PORT"
  STATUS_WHERE="data $DATADIR"
  # shellcheck source=lib/private-server.sh
  . "$ROOT/scripts/lib/private-server.sh"

  require_installed() {
    command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || die "mariadbd not found (apt-get install mariadb-server)"
    [ -f "$PROVIDER" ] || die "$PROVIDER not found (apt-get install galera-4)"
    command -v rsync >/dev/null 2>&1 || die "rsync not found: Galera's state transfer uses it (apt-get install rsync)"
  }
  cmd_ensure_installed() {
    if [ -f "$PROVIDER" ] && command -v rsync >/dev/null 2>&1 && { command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ]; }; then
      log "galera-4, mariadb-server and rsync are installed"
      return 0
    fi
    [ "$(id -u)" = 0 ] || die "galera-4 / mariadb-server / rsync missing and this is not root: apt-get install -y galera-4 mariadb-server rsync"
    apt_install_no_service galera-4 galera-4 mariadb-server rsync
  }

  client() { mariadb --no-defaults --protocol=socket --socket="$SOCKET" -uroot --connect-timeout=3 "$@"; }
  answers() { [ "$(client -N -e "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME='WSREP_LOCAL_STATE'" 2>/dev/null)" = 4 ]; }

  others_running() {
    local n
    for n in "${NODES[@]}"; do
      [ "$n" = "$node" ] && continue
      "$SELF" node "$n" status >/dev/null 2>&1 && return 0
    done
    return 1
  }

  prepare_start() {
    mkdir -p "$BASE"
    if [ ! -d "$DATADIR/mysql" ]; then
      log "node $node: first use, initialising $DATADIR"
      rm -rf "$DATADIR"
      mariadb-install-db --no-defaults --datadir="$DATADIR" --user="$(id -un)" \
        --auth-root-authentication-method=normal --skip-test-db --skip-name-resolve >>"$LOG" 2>&1 </dev/null ||
        die "mariadb-install-db failed (log: $LOG)"
    fi
    BOOTSTRAP=()
    if ! others_running; then
      # No member to join: this node starts a new primary component with the data it has. Only
      # the node Galera marked safe (the last to stop cleanly) may, when one is marked: another
      # would start from older data and hand it to the others.
      local n
      for n in "${NODES[@]}"; do
        [ "$n" = "$node" ] && continue
        if grep -q '^safe_to_bootstrap: 1' "$ROOT/.tmp/galera/$n/data/grastate.dat" 2>/dev/null &&
          ! grep -q '^safe_to_bootstrap: 1' "$DATADIR/grastate.dat" 2>/dev/null; then
          die "node $node: node $n stopped last and holds the newest data: start it first (scripts/galera.sh start does)"
        fi
      done
      BOOTSTRAP=(--wsrep-new-cluster)
      if [ -f "$DATADIR/grastate.dat" ]; then sed -i 's/^safe_to_bootstrap:.*/safe_to_bootstrap: 1/' "$DATADIR/grastate.dat"; fi
      log "node $node: no other node runs, bootstrapping a new cluster"
    fi
  }

  launch() {
    log "starting galera node $node on 127.0.0.1:$PORT (gcomm $((BASE_PORT + 10 + node)), data: $DATADIR, log: $LOG)"
    # Galera's rsync state transfer runs an rsync daemon, which drops to `nobody` when started by
    # root, and `nobody` cannot write this data dir: as root, the nodes use the state transfer
    # method baton_rsync (scripts/lib/wsrep_sst_baton_rsync), whose rsync daemon stays root.
    local path="$PATH" sst=rsync
    if [ "$(id -u)" = 0 ]; then
      mkdir -p "$ROOT/.tmp/galera/bin"
      ln -sf "$ROOT/scripts/lib/galera-rsync-as-root" "$ROOT/.tmp/galera/bin/rsync"
      ln -sf "$ROOT/scripts/lib/wsrep_sst_baton_rsync" "$ROOT/.tmp/galera/bin/wsrep_sst_baton_rsync"
      path="$ROOT/.tmp/galera/bin:$PATH"
      sst=baton_rsync
    fi
    PATH="$path" setsid "$(command -v mariadbd || echo /usr/sbin/mariadbd)" --no-defaults --datadir="$DATADIR" --socket="$SOCKET" --port="$PORT" \
      --bind-address=127.0.0.1 --user="$(id -un)" --pid-file="$BASE/mariadbd.server.pid" \
      --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci \
      --skip-name-resolve --max-connections=1000 --innodb-buffer-pool-size=96M \
      --binlog-format=ROW --default-storage-engine=InnoDB --innodb-autoinc-lock-mode=2 \
      --innodb-flush-log-at-trx-commit=2 \
      --wsrep-on=ON --wsrep-provider="$PROVIDER" --wsrep-cluster-name=baton-ha \
      --wsrep-cluster-address="$(cluster_address)" --wsrep-node-name="node$node" \
      --wsrep-node-address="127.0.0.1:$((BASE_PORT + 10 + node))" \
      --wsrep-node-incoming-address="127.0.0.1:$PORT" \
      --wsrep-sst-receive-address="127.0.0.1:$((BASE_PORT + 30 + node))" \
      --wsrep-provider-options="gmcast.listen_addr=tcp://127.0.0.1:$((BASE_PORT + 10 + node));ist.recv_addr=127.0.0.1:$((BASE_PORT + 20 + node));$PROVIDER_OPTIONS" \
      --wsrep-sst-method="$sst" --wsrep-slave-threads=2 \
      "${BOOTSTRAP[@]}" </dev/null >>"$LOG" 2>&1 9>&- &
  }

  after_start() {
    client <<SQL
CREATE USER IF NOT EXISTS '${DB_USER}'@'127.0.0.1' IDENTIFIED BY '${DB_PASSWORD}';
CREATE USER IF NOT EXISTS '${DB_USER}'@'localhost' IDENTIFIED BY '${DB_PASSWORD}';
GRANT ALL PRIVILEGES ON *.* TO '${DB_USER}'@'127.0.0.1' WITH GRANT OPTION;
GRANT ALL PRIVILEGES ON *.* TO '${DB_USER}'@'localhost' WITH GRANT OPTION;
CREATE USER IF NOT EXISTS 'haproxy_check'@'127.0.0.1';
CREATE DATABASE IF NOT EXISTS baton CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
SQL
  }

  case "${1:-}" in
    kill)
      local pid
      pid="$(running_pid)" || die "node $node is not running"
      kill -KILL "$pid"
      log "node $node (pid $pid) killed with SIGKILL"
      ;;
    pid) running_pid ;;
    synced) answers ;;
    status)
      if pid="$(running_pid)"; then
        echo "node $node: running, pid $pid, $URL, state $(client -N -e "SELECT GROUP_CONCAT(VARIABLE_VALUE ORDER BY VARIABLE_NAME SEPARATOR ' / ') FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN ('WSREP_LOCAL_STATE_COMMENT','WSREP_CLUSTER_STATUS','WSREP_CLUSTER_SIZE')" 2>/dev/null || echo unknown)"
      else
        echo "node $node: stopped ($URL)"
        return 3
      fi
      ;;
    *) main "$@" ;;
  esac
}

case "${1:-}" in
  node) shift; node_main "$@" ;;
  start)
    # The node that stopped last (Galera marks it safe_to_bootstrap) first — node 1 on first use —:
    # it bootstraps when nothing runs; the others join it.
    shift
    first=1
    for n in "${NODES[@]}"; do
      if grep -q '^safe_to_bootstrap: 1' "$ROOT/.tmp/galera/$n/data/grastate.dat" 2>/dev/null; then first=$n; break; fi
    done
    for n in "$first" "${NODES[@]}"; do
      [ "$n" = "$first" ] && [ "${started_first:-}" = 1 ] && continue
      if [ "${started_first:-}" = 1 ]; then
        # A joiner once more if it gave up: on a loaded machine the group's view change can time out
        # (a member "failed to commit for install message"; the node exits 'failed to reach primary view').
        "$SELF" node "$n" start "$@" || { echo "[galera.sh] node $n did not join; starting it once more" >&2; "$SELF" node "$n" start "$@"; }
      else
        "$SELF" node "$n" start "$@"
      fi
      started_first=1
    done
    ;;
  release)
    # Test runs: drops the lease of PID (start --lease PID); an auto-started node with no live
    # lease left stops (node 1 last).
    shift
    for n in 3 2 1; do "$SELF" node "$n" release "$@"; done
    ;;
  stop)
    for n in 3 2 1; do "$SELF" node "$n" stop; done
    ;;
  url)
    for n in "${NODES[@]}"; do "$SELF" node "$n" url; done
    ;;
  ensure-installed)
    "$SELF" node 1 ensure-installed
    ;;
  status)
    rc=0
    for n in "${NODES[@]}"; do "$SELF" node "$n" status || rc=3; done
    exit "$rc"
    ;;
  *) sed -n '2,27p' "$SELF" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
