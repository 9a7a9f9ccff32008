#!/usr/bin/env bash
# An unprivileged user against the export stage and the Prometheus endpoint, on a real tracerd
# that streams to the test OTLP receiver (tests/otlp/receiver.js) and serves MetricsListen:
#  1. behind a proxy with a 512 KiB body limit (the receiver's --max-body: 413; 128 of these
#     spans: a slow machine's batch of a second holds more), the user runs
#     processes with 4 kB command lines while root traces a run: a batch over the limit is sent
#     again in halves, so every span of both arrives and none is refused;
#  2. the user holds idle connections to the metrics endpoint and opens new ones as they are
#     cut (slowloris): root's scrapes are answered all the same, since one user holds one of
#     its slots at most;
#  3. a storm of 4000 of the user's processes, more than a batch waiting at each read while
#     root traces a run: every span of both arrives, none jumped over;
#  4. the user reads status (text and JSON) and the log: the logs endpoint's password and the
#     api key in its query are shown as *** to them;
#  5. the user runs 1600 programs of distinct names at once in one traced run while root runs
#     a tool: root's tool series is still in the scrape (a unit writes 16 tool series at most,
#     the rest summed as "(other tools)"), and nothing is cut.
# lane: daemon cpu: 1
. "$(dirname "$0")/lib.sh"

ATTACKER=tracer-attacker
id $ATTACKER >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin $ATTACKER
asattacker() { setpriv --reuid=$ATTACKER --regid="$(id -g $ATTACKER)" --clear-groups "$@"; }
HWM_MAX_KB=65536

otlp_receiver_start --max-body 524288 || { finish; exit 1; }
MPORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
write_config
cat >> "$T/tracer.conf" <<CONF
OtlpEndpoint = $OTLP_URL
OtlpTimeout = 2s
MetricsListen = $MPORT
CONF
# the logs signal's own endpoint, with a password and a token in its query
export OTEL_EXPORTER_OTLP_LOGS_ENDPOINT="http://tracer:pAsSw0rd@127.0.0.1:$OTLP_PORT/v1/logs?api_key=T0kEn"
start_daemon || { finish; exit 1; }
unset OTEL_EXPORTER_OTLP_LOGS_ENDPOINT

# Process spans the receiver holds, by unit name: "NAME COUNT" lines
spans_by_unit() {
  python3 - "$T/otlp/items.jsonl" <<'PY'
import collections, json, sys
c = collections.Counter()
try:
    for l in open(sys.argv[1]):
        a = json.loads(l).get("attributes", {})
        if "process.pid" in a:
            c[a.get("tracer.unit.name")] += 1
except FileNotFoundError:
    pass
for k, v in c.items():
    print(k, v)
PY
}
stored() { db "SELECT COUNT(*) FROM processes WHERE folded IS NULL AND unit IN (SELECT id FROM units WHERE name='$1')"; }
arrived() { spans_by_unit | awk -v u="$1" '$1 == u {print $2}'; }
status_field() { # SIGNAL KEY
  ctl status --json | python3 -c "
import json, sys
for s in json.load(sys.stdin)['export']['signals']:
    if s['signal'] == '$1': print(s['$2'])"
}

echo "1. batches over a proxy's body limit"
ARG=$(printf 'x%.0s' $(seq 1000))
asattacker env TRACER_CONF="$TRACER_CONF" "$BUILD/tracerctl" -N $NODE run --name fat -- \
  sh -c "for i in \$(seq 300); do /bin/true $ARG $ARG $ARG $ARG; done" > /dev/null 2>&1 &
ATK=$!
ctl run --name rootjob -- sh -c 'for i in $(seq 30); do /bin/true; sleep 0.01; done' > /dev/null 2>&1
wait $ATK
for _ in $(seq 40); do
  [ "$(arrived rootjob)" = "$(stored rootjob)" ] && [ "$(arrived fat)" = "$(stored fat)" ] && break
  sleep 0.25
done
echo "    root's spans $(arrived rootjob) of $(stored rootjob), the user's $(arrived fat) of $(stored fat);" \
  "refused $(status_field traces refused), 413s $(python3 -c "import json; print(json.load(open('$T/otlp/stats.json'))['byStatus'].get('413', 0))" )"
check "root's spans all arrive past a 413" [ "$(arrived rootjob)" = "$(stored rootjob)" -a "$(stored rootjob)" -ge 31 ]
check "the user's spans all arrive too" [ "$(arrived fat)" = "$(stored fat)" -a "$(stored fat)" -ge 301 ]
check "nothing refused" [ "$(status_field traces refused)" = 0 ]
grep -q "HTTP 413 for .* sent again in halves" "$T/tracerd.log"
check "the log says the batch was halved" [ $? = 0 ]

echo "2. a user's idle connections to the metrics endpoint"
cat > "$T/slowloris.py" <<'PY'
import socket, sys, time
port, end = int(sys.argv[1]), time.time() + float(sys.argv[2])
held, opened = [], 0
while time.time() < end:
    alive = []
    for s in held:
        try:
            if s.recv(1) == b"":
                s.close(); continue
        except BlockingIOError:
            pass
        except OSError:
            s.close(); continue
        alive.append(s)
    held = alive
    while len(held) < 8:
        s = socket.socket(); s.settimeout(1)
        try:
            s.connect(("127.0.0.1", port)); s.send(b"G"); s.setblocking(False)
            held.append(s); opened += 1
        except OSError:
            s.close(); break
    time.sleep(0.05)
print(opened)
PY
chmod 644 "$T/slowloris.py"
asattacker /usr/bin/python3 "$T/slowloris.py" $MPORT 12 > "$T/slowloris.out" &
ATK=$!
sleep 1.5
good=0
for _ in $(seq 16); do
  [ "$(curl -s -m 2 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MPORT/metrics")" = 200 ] && good=$((good + 1))
  sleep 0.5
done
wait $ATK
refusals=$(curl -s "http://127.0.0.1:$MPORT/metrics" | awk '/^tracer_metrics_scrape_refusals_total/ {print $2}')
echo "    root's scrapes answered: $good of 16; the user opened $(cat "$T/slowloris.out") connections, $refusals refused"
check "root's scrapes are answered while a user holds idle connections" [ $good = 16 ]
check "the user's extra connections are refused" [ "${refusals:-0}" -gt 8 ]
check "one user holds one slot: a refusal says so" grep -q "its user or address has a connection open already" "$T/tracerd.log"

echo "3. a storm of processes, more than a batch at each read"
asattacker env TRACER_CONF="$TRACER_CONF" "$BUILD/tracerctl" -N $NODE run --name storm -- \
  sh -c 'for i in $(seq 4000); do /bin/true; done' > /dev/null 2>&1 &
ATK=$!
sleep 1
ctl run --name rootjob2 -- /bin/true > /dev/null 2>&1
wait $ATK
for _ in $(seq 80); do
  [ "$(arrived storm)" = "$(stored storm)" ] && [ "$(arrived rootjob2)" = "$(stored rootjob2)" ] && break
  sleep 0.25
done
echo "    the storm's spans $(arrived storm) of $(stored storm), root's $(arrived rootjob2) of $(stored rootjob2);" \
  "backlog $(status_field traces behind)"
check "every span of the storm arrives" [ "$(arrived storm)" = "$(stored storm)" -a "$(stored storm)" -ge 4001 ]
check "root's run during the storm arrives" [ "$(arrived rootjob2)" = "$(stored rootjob2)" -a "$(stored rootjob2)" -ge 1 ]

echo "4. what a user is shown of the endpoints"
asattacker env TRACER_CONF="$TRACER_CONF" "$BUILD/tracerctl" -N $NODE status > "$T/status.txt" 2>&1
asattacker env TRACER_CONF="$TRACER_CONF" "$BUILD/tracerctl" -N $NODE status --json > "$T/status.json" 2>&1
grep "logs    to" "$T/status.txt"
check "the user reads status" grep -q "logs    to http://\*\*\*@127.0.0.1:$OTLP_PORT/v1/logs?\*\*\*" "$T/status.txt"
check "no password or token in status, its JSON or the log" \
  test -z "$(grep -l -e pAsSw0rd -e T0kEn "$T/status.txt" "$T/status.json" "$T/tracerd.log")"

echo "5. a unit of 1600 differently named programs"
mkdir -m 755 "$T/bin"
for i in $(seq 1600); do ln -s /bin/sleep "$T/bin/t$i"; done
ln -s /bin/sleep "$T/bin/roottool"
# paced (a pause every 50), so that the programs' execs are not what the ring drops first on a
# slow machine: this part is about the series, not about the storm (test_storm_fairness's);
# they sleep until killed after the scrape
printf 'for i in $(seq 1600); do %s/bin/t$i 300 & [ $((i %% 50)) = 0 ] && sleep 0.1; done; wait\n' \
  "$T" > "$T/bin/spawn.sh"
asattacker env TRACER_CONF="$TRACER_CONF" "$BUILD/tracerctl" -N $NODE run --name many -- \
  sh "$T/bin/spawn.sh" > "$T/many.out" 2>&1 &
ATK=$!
for _ in $(seq 240); do
  [ "$(ps -u $ATTACKER -o comm= | grep -c '^t[0-9]')" -ge 1600 ] && break
  sleep 0.25
done
ctl run --name rootjob3 -- "$T/bin/roottool" 4 > /dev/null 2>&1 &
sleep 2
curl -s "http://127.0.0.1:$MPORT/metrics" > "$T/scrape.txt"
pkill -u $ATTACKER -f "^$T/bin/t[0-9]"
wait $ATK
echo "    tool series $(grep -c '^tracer_tool_processes_running' "$T/scrape.txt"), the user's unit's" \
  "$(grep '^tracer_tool_processes_running' "$T/scrape.txt" | grep -c 'unit="many"'), root's" \
  "$(grep '^tracer_tool_processes_running' "$T/scrape.txt" | grep -c 'unit="rootjob3",unit_id="[0-9]*",tool="roottool"');" \
  "$(grep '^tracer_metrics_series_cut' "$T/scrape.txt")"
echo "    the user's run: $(grep -E "processes|lost|untraced" "$T/many.out" | tr -s " " | tr "\\n" " ")"
grep '^tracer_job_processes_running{.*unit="many"' "$T/scrape.txt" | sed 's/^/    /'
check "root's tool is in the scrape" grep -q '^tracer_tool_processes_running{.*unit="rootjob3",unit_id="[0-9]*",tool="roottool"} 1$' "$T/scrape.txt"
check "the user's unit writes 16 tool series, the rest summed" \
  [ "$(grep '^tracer_tool_processes_running' "$T/scrape.txt" | grep -c 'unit="many"')" = 16 ]
check "nothing cut" grep -q '^tracer_metrics_series_cut{node="'"$NODE"'"} 0$' "$T/scrape.txt"
check "promtool check metrics is clean" promtool check metrics < "$T/scrape.txt"

hwm=$(awk '/^VmHWM/ {print $2}' /proc/$DAEMON_PID/status)
echo "    tracerd VmHWM ${hwm} kB"
check "tracerd's peak RSS within 64 MiB" [ "$hwm" -le $HWM_MAX_KB ]
finish
