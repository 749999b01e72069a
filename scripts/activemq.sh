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
# URL printed by start/url (stdout, nothing else there): stomp://127.0.0.1:<port>, or
# stomp://<user>:<password>@127.0.0.1:<port> with authentication (BATON_BROKER_URL for engines and
# consoles; executors never get it).
#
# Environment: BATON_ACTIVEMQ_STOMP_PORT (default 61613), BATON_ACTIVEMQ_START_TIMEOUT (seconds,
# default 90), BATON_ACTIVEMQ_HEAP (default 256M), BATON_ACTIVEMQ_JAVA (default: java on PATH).
# Authentication: BATON_ACTIVEMQ_USER and BATON_ACTIVEMQ_PASSWORD (both or neither) turn on
# ActiveMQ's simple authentication with that one user and refuse anonymous connections (and the
# network connectors below log in as that user); without them anyone who reaches the port may
# publish and subscribe, which is for development on loopback only (docs/OPERATIONS.md, Broker).
# A network of brokers (high availability, `baton cluster --ha`): BATON_ACTIVEMQ_NETWORK_PORT adds
# an OpenWire connector on 127.0.0.1:<port> for the other brokers, and BATON_ACTIVEMQ_NETWORK_TO
# (a space-separated list of host:port) a duplex network connector to each of those brokers, so a
# message published on one broker reaches the subscribers of the others.
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
AMQ_USER="${BATON_ACTIVEMQ_USER:-}"
AMQ_PASSWORD="${BATON_ACTIVEMQ_PASSWORD:-}"
URL="stomp://127.0.0.1:${PORT}"
SHOWN_URL="$URL"

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

NAME=activemq
SCRIPT="${BASH_SOURCE[0]}"
USAGE_LINES=2,34
PORT_ENV=BATON_ACTIVEMQ_STOMP_PORT
KIND=broker
LABEL=ActiveMQ
OURS_ARG="-Dactivemq.base=$BASE"
READY_WHAT="answer STOMP"
READY_POLL=0.25
STOP_TIMEOUT=30
STATUS_WHERE="base $BASE"
# shellcheck source=lib/private-server.sh
. "$ROOT/scripts/lib/private-server.sh"

[[ "$PORT" =~ ^[0-9]+$ ]] && [ "$PORT" -gt 0 ] && [ "$PORT" -lt 65536 ] || die "BATON_ACTIVEMQ_STOMP_PORT must be a port number (got '$PORT')"

# `a b` → `a%20b`, byte by byte: credentials in the URL (parseBrokerUrl decodes them).
url_encode() {
  local LC_ALL=C s="$1" out="" c i
  for ((i = 0; i < ${#s}; i++)); do
    c="${s:i:1}"
    case "$c" in [A-Za-z0-9._~-]) out+="$c" ;; *) out+="$(printf '%%%02X' "'$c")" ;; esac
  done
  printf '%s' "$out"
}

# For an XML attribute value.
xml_escape() { printf '%s' "$1" | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g' -e "s/'/\&apos;/g"; }

if [ -n "$AMQ_USER" ] || [ -n "$AMQ_PASSWORD" ]; then
  [ -n "$AMQ_USER" ] && [ -n "$AMQ_PASSWORD" ] || die "set both BATON_ACTIVEMQ_USER and BATON_ACTIVEMQ_PASSWORD (authentication), or neither"
  [[ "$AMQ_USER$AMQ_PASSWORD" != *$'\n'* && "$AMQ_USER$AMQ_PASSWORD" != *$'\r'* ]] || die "BATON_ACTIVEMQ_USER and BATON_ACTIVEMQ_PASSWORD must be one line each"
  URL="stomp://$(url_encode "$AMQ_USER"):$(url_encode "$AMQ_PASSWORD")@127.0.0.1:${PORT}"
  SHOWN_URL="stomp://$(url_encode "$AMQ_USER"):***@127.0.0.1:${PORT}"
fi
RUNNING_WHERE="$SHOWN_URL"

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
  apt_install_no_service activemq activemq default-jre-headless
  installed || die "activemq was installed but $AMQ_JAR or java is still missing"
  log "installed activemq $(dpkg-query -W -f='${Version}' activemq 2>/dev/null || true)"
}

# A STOMP CONNECT answered by CONNECTED: the broker is up (not just the port).
answers() {
  local reply
  reply="$(
    {
      exec 3<>"/dev/tcp/127.0.0.1/$PORT" || exit 1
      if [ -n "$AMQ_USER" ]; then
        printf 'CONNECT\naccept-version:1.2\nhost:localhost\nlogin:%s\npasscode:%s\n\n\0' "$AMQ_USER" "$AMQ_PASSWORD" >&3
      else
        printf 'CONNECT\naccept-version:1.2\nhost:localhost\n\n\0' >&3
      fi
      timeout 3 head -c 9 <&3 || true
      printf 'DISCONNECT\n\n\0' >&3 || true
    } 2>/dev/null
  )" || return 1
  [ "$reply" = CONNECTED ]
}

write_config() {
  mkdir -p "$CONF" "$DATA"
  local connector="<transportConnector name=\"stomp\" uri=\"stomp://127.0.0.1:${PORT}?transport.closeAsync=false\"/>"
  local network_port="${BATON_ACTIVEMQ_NETWORK_PORT:-}" network="" peer
  if [ -n "$network_port" ]; then
    connector="$connector<transportConnector name=\"network\" uri=\"tcp://127.0.0.1:${network_port}\"/>"
  fi
  local plugins="" login=""
  if [ -n "$AMQ_USER" ]; then
    # Every connection logs in (STOMP login/passcode, the network's OpenWire too); anonymous ones are refused.
    plugins="<plugins><simpleAuthenticationPlugin anonymousAccessAllowed=\"false\"><users><authenticationUser username=\"$(xml_escape "$AMQ_USER")\" password=\"$(xml_escape "$AMQ_PASSWORD")\" groups=\"baton\"/></users></simpleAuthenticationPlugin></plugins>"
    login=" userName=\"$(xml_escape "$AMQ_USER")\" password=\"$(xml_escape "$AMQ_PASSWORD")\""
  fi
  for peer in ${BATON_ACTIVEMQ_NETWORK_TO:-}; do
    # Duplex: one connection carries both directions; reconnects by itself while the peer is down.
    network="$network<networkConnector name=\"to-${peer//[:.]/-}\" uri=\"static:(tcp://${peer})?maxReconnectDelay=1000\" duplex=\"true\"$login/>"
  done
  [ -z "$network" ] || network="<networkConnectors>$network</networkConnectors>"
  # Copy of the Debian instance config: every transportConnector removed, ours added; the broker
  # named after the port (two private brokers on one machine stay apart).
  # (awk -v would read backslashes in the values as escapes: ENVIRON passes them as they are.)
  CONNECTOR="$connector" NETWORK="$network" PLUGINS="$plugins" awk -v name="baton-$PORT" '
    BEGIN { connector = ENVIRON["CONNECTOR"]; network = ENVIRON["NETWORK"]; plugins = ENVIRON["PLUGINS"] }
    /<transportConnector[^>]*\/>/ { next }
    /<transportConnectors>/ { if (plugins != "") print "        " plugins; if (network != "") print "        " network; print; print "            " connector; next }
    { gsub(/brokerName="[^"]*"/, "brokerName=\"" name "\""); print }
  ' "$DEBIAN_CONF/activemq.xml" >"$CONF/activemq.xml.new"
  grep -qF "stomp://127.0.0.1:${PORT}" "$CONF/activemq.xml.new" || die "could not add the STOMP connector to a copy of $DEBIAN_CONF/activemq.xml (no <transportConnectors> element?)"
  if grep -E 'transportConnector name="[^"]*" uri="(amqp|mqtt|ws|nio|ssl|auto)' "$CONF/activemq.xml.new" >/dev/null ||
    { [ -z "$network_port" ] && grep -E 'transportConnector name="[^"]*" uri="tcp' "$CONF/activemq.xml.new" >/dev/null; }; then
    die "the copy of $DEBIAN_CONF/activemq.xml still has a connector other than STOMP (and OpenWire for the network)"
  fi
  mv "$CONF/activemq.xml.new" "$CONF/activemq.xml"
  if [ -f "$DEBIAN_CONF/log4j2.properties" ]; then cp "$DEBIAN_CONF/log4j2.properties" "$CONF/log4j2.properties"; fi
}

prepare_start() { write_config; }

launch() {
  local java
  java="$(java_cmd)"
  log "starting ActiveMQ, STOMP on 127.0.0.1:$PORT (base: $BASE, log: $LOG)"
  setsid "$java" -Xms64M "-Xmx$HEAP" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true \
    "-Dactivemq.home=$AMQ_HOME" "-Dactivemq.base=$BASE" "-Dactivemq.conf=$CONF" "-Dactivemq.data=$DATA" \
    "-Dactivemq.classpath=$CONF" "-Dlog4j2.configurationFile=$CONF/log4j2.properties" \
    -jar "$AMQ_JAR" start "xbean:file:$CONF/activemq.xml" </dev/null >>"$LOG" 2>&1 9>&- &
}

after_start() { :; }

main "$@"
