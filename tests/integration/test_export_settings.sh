# The export's settings checked when tracerd starts, and what it says of them: an endpoint's
# port outside 1-65535 and a TLS file that cannot be read (missing, unreadable, a directory)
# are refused at start with the path; a TLS failure at delivery names the files in status; a
# tracer.conf that every user reads and that holds OtlpHeaders or an endpoint's password is
# warned about, and the same settings through the environment (a root-only EnvironmentFile)
# are not. Status says metrics have nothing to send while no unit runs.
# lane: daemon cpu: 0.4
. "$(dirname "$0")/lib.sh"

otlp_receiver_start || { finish; exit 1; }
write_config
cp "$T/tracer.conf" "$T/base.conf"
conf() { cp "$T/base.conf" "$T/tracer.conf"; printf '%s\n' "$@" >> "$T/tracer.conf"; }
# tracerd with the current tracer.conf must refuse to start, saying $1
refused() {
  : > "$T/tracerd.log"
  timeout 30 "$BUILD/tracerd" -f -N $NODE -c "$T/tracer.conf" >> "$T/tracerd.log" 2>&1
  local rc=$?
  [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q -- "$1" "$T/tracerd.log" ||
    { echo "    exit $rc:"; tail -3 "$T/tracerd.log"; return 1; }
}
ATTACKER=tracer-attacker
id $ATTACKER >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin $ATTACKER

# ---- ports
conf "OtlpEndpoint = http://127.0.0.1:99999"
check "a port above 65535 is refused at start" refused "OtlpEndpoint: bad value .*from 1 to 65535"
conf "OtlpEndpoint = http://127.0.0.1:43l8"
check "a port that is no number is refused at start" refused "from 1 to 65535"

# ---- TLS files: checked at start, each named
conf "OtlpEndpoint = https://127.0.0.1:$OTLP_PORT" "OtlpCertificate = $T/missing-ca.pem"
check "a missing OtlpCertificate is refused, its path said" \
  refused "OtlpCertificate .*$T/missing-ca.pem: No such file or directory"
mkdir "$T/ca-dir"
conf "OtlpEndpoint = https://127.0.0.1:$OTLP_PORT" "OtlpCertificate = $T/ca-dir"
check "a directory as OtlpCertificate is refused" refused "$T/ca-dir: not a regular file"
cp /etc/ssl/certs/ca-certificates.crt "$T/ca.pem"
: > "$T/client.pem"
conf "OtlpEndpoint = https://127.0.0.1:$OTLP_PORT" "OtlpCertificate = $T/ca.pem" \
  "OtlpClientCertificate = $T/client.pem" "OtlpClientKey = $T/missing-key.pem"
check "a missing OtlpClientKey is refused, its path said" \
  refused "OtlpClientKey .*$T/missing-key.pem: No such file or directory"
# root reads any mode; the variable's check is the same one
OTEL_EXPORTER_OTLP_CERTIFICATE=$T/nope.pem
export OTEL_EXPORTER_OTLP_CERTIFICATE
conf "OtlpEndpoint = https://127.0.0.1:$OTLP_PORT"
check "a missing file named by OTEL_EXPORTER_OTLP_CERTIFICATE is refused too" \
  refused "OtlpCertificate .*$T/nope.pem"
unset OTEL_EXPORTER_OTLP_CERTIFICATE

# ---- a TLS failure at delivery names the files: https to the plain-HTTP receiver
conf "OtlpEndpoint = https://127.0.0.1:$OTLP_PORT" "OtlpCertificate = $T/ca.pem"
start_daemon || { finish; exit 1; }
ctl run --name tls -- /bin/true 2>/dev/null
tls_said() {
  for _ in $(seq 40); do
    ctl status | grep -q "last error.*TLS with CA file $T/ca.pem, no client certificate" && return 0
    sleep 0.25
  done
  ctl status | grep 'last error'
  return 1
}
check "a TLS failure names the CA file in status" tls_said
stop_daemon

# ---- secrets in tracer.conf: warned about while every user can read it
chmod 644 "$T/tracer.conf"
conf "OtlpEndpoint = $OTLP_URL" "OtlpHeaders = api-key=s3cret"
: > "$T/tracerd.log"
start_daemon || { finish; exit 1; }
check "a world-readable tracer.conf with OtlpHeaders is warned about" \
  grep -q "tracer.conf is readable by every user and holds OtlpHeaders" "$T/tracerd.log"
check "which every user can read indeed" setpriv --reuid=$ATTACKER --regid="$(id -g $ATTACKER)" \
  --clear-groups grep -q s3cret "$T/tracer.conf"
stop_daemon
conf "OtlpEndpoint = http://tracer:pAsSw0rd@127.0.0.1:$OTLP_PORT"
: > "$T/tracerd.log"
start_daemon || { finish; exit 1; }
check "and one with a password in OtlpEndpoint" \
  grep -q "holds an OtlpEndpoint with credentials" "$T/tracerd.log"
check "the warning itself shows no secret" bash -c "! grep -q pAsSw0rd '$T/tracerd.log'"
stop_daemon
# the documented way: the endpoint in tracer.conf, the key in tracerd's environment
conf "OtlpEndpoint = $OTLP_URL"
printf 'OTEL_EXPORTER_OTLP_HEADERS=api-key=s3cret\n' > "$T/otlp.env"
chmod 600 "$T/otlp.env"
: > "$T/tracerd.log"
set -a; . "$T/otlp.env"; set +a
start_daemon || { finish; exit 1; }
unset OTEL_EXPORTER_OTLP_HEADERS
check "the key in tracerd's environment: no warning" bash -c "! grep -q 'readable by every user' '$T/tracerd.log'"
ctl run --name envkey -- /bin/true 2>/dev/null
unit_arrived() {
  for _ in $(seq 80); do
    grep -q "\"tracer.unit.name\":\"$1\"" "$T/otlp/items.jsonl" && return 0
    sleep 0.25
  done
  return 1
}
check "and delivery works with it" unit_arrived envkey
threads=$(cat /proc/$DAEMON_PID/task/*/comm | sort | tr '\n' ' ')
echo "  tracerd's threads: $threads"
check "its threads are named for what they do (ps -L, top -H)" \
  bash -c "echo '$threads' | grep -q 'tracerd tracerd-export tracerd-store'"
check "the env file is root's alone" bash -c "! setpriv --reuid=$ATTACKER --regid=\$(id -g $ATTACKER) --clear-groups cat '$T/otlp.env' 2>/dev/null"
stop_daemon
chmod 600 "$T/tracer.conf"
conf "OtlpEndpoint = $OTLP_URL" "OtlpHeaders = api-key=s3cret" "OtlpMetricsInterval = 1s"
chmod 600 "$T/tracer.conf"
: > "$T/tracerd.log"
start_daemon || { finish; exit 1; }
check "a tracer.conf only root reads: no warning" bash -c "! grep -q 'readable by every user' '$T/tracerd.log'"
# ---- status: metrics with no unit running have nothing to send, not "never" delivered
idle_said() {
  for _ in $(seq 20); do
    ctl status | grep -q 'last delivery none: nothing to send (no unit runs)' && return 0
    sleep 0.25
  done
  ctl status | grep -A3 'metrics'
  return 1
}
check "metrics with no unit running: status says nothing to send" idle_said
finish
