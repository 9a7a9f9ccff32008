# OTLP delivery end to end: a real tracerd streams to the test receiver (tests/otlp/receiver.js,
# OpenTelemetry's own decoders). Every process span arrives, once after de-duplication by id;
# a receiver that is down, a tracerd killed with kill -9 mid-backlog, and a receiver that hangs,
# answers 100 MB, answers garbage, throttles with Retry-After, fails with 503 or says 401 (an
# expired key) or 404 until it is set right lose nothing and cost tracing nothing: runs are
# still traced, status answers at once and says the collector's reason, VmHWM stays bounded.
# A 400 refuses its batch, and delivery goes on past it.
# lane: daemon cpu: 0.3
. "$(dirname "$0")/lib.sh"

HWM_MAX_KB=$((64 * 1024))
otlp_receiver_start || { finish; exit 1; }
write_config
cat >> "$T/tracer.conf" <<CONF
OtlpEndpoint = $OTLP_URL
OtlpTimeout = 2s
# tries back off to 4 s at most, not 30: a receiver well again is reached as soon after as
# this test's outages are short
OtlpBackoffMax = 4s
CONF
start_daemon || { finish; exit 1; }

# The process spans of unit $1 the receiver holds: "LINES DISTINCT" (lines count resends)
spans() {
  python3 - "$T/otlp/items.jsonl" "$1" <<'PY'
import json, sys
lines, ids = 0, set()
try:
    f = open(sys.argv[1])
except FileNotFoundError:
    print(0, 0); sys.exit()
for l in f:
    try:
        o = json.loads(l)
    except ValueError:
        continue
    a = o.get("attributes", {})
    if o.get("signal") == "traces" and "process.pid" in a and a.get("tracer.unit.name") == sys.argv[2]:
        lines += 1
        ids.add(o["spanId"])
print(lines, len(ids))
PY
}
# The process rows of unit $1 in the store (each a span; folded rows are not)
stored() { db "SELECT COUNT(*) FROM processes WHERE folded IS NULL AND unit IN (SELECT id FROM units WHERE name='$1')"; }
# Wait up to $2 s until every stored process of unit $1 has arrived
arrived() {
  local want got
  for _ in $(seq $(($2 * 4))); do
    want=$(stored "$1"); got=$(spans "$1" | cut -d' ' -f2)
    [ "$want" -gt 0 ] && [ "$got" -ge "$want" ] && return 0
    sleep 0.25
  done
  echo "    unit $1: $got of $want process spans arrived"
  return 1
}
status_field() { # SIGNAL KEY: a number from the export status of a signal
  ctl status --json | python3 -c "
import json, sys
r = json.load(sys.stdin)
for s in r['export']['signals']:
    if s['signal'] == '$1': print(s['$2'])"
}
status_says() { ctl status | grep -qi "$1"; }
# Answers of a status the receiver gave so far
answered() {
  python3 -c "import json; print(json.load(open('$T/otlp/stats.json'))['byStatus'].get('$1', 0))"
}
hwm() { awk '/^VmHWM/ { print $2 }' /proc/$DAEMON_PID/status; }
mode() { echo "$*" > "$T/otlp/control"; }
traced_run() { # NAME N: a traced run of N /bin/true
  ctl run --name "$1" -- sh -c "for i in \$(seq $2); do /bin/true; done" 2> "$T/run.err"
}

# ---- a healthy receiver: each process once
traced_run first 50
check "every process span of a run arrives" arrived first 20
read -r lines ids < <(spans first)
check "each once after de-duplication by id ($ids ids in $lines spans, $(stored first) stored)" \
  [ "$ids" -eq "$(stored first)" ]
check "the span carries the node's resource" \
  grep -q '"slurm.node.name":"'"$NODE"'"' "$T/otlp/items.jsonl"

# ---- the receiver down, then up on the same port: everything arrives, resends counted
otlp_receiver_stop
traced_run outage 100
for _ in $(seq 40); do status_says 'last error.*connect' && break; sleep 0.2; done
check "while the receiver is down, status says why (no connection)" \
  status_says 'last error.*connect'
check "and shows the backlog" status_says 'backlog: [0-9]* store records, oldest written'
retries=$(status_field traces retries)
check "failed tries are counted as retries ($retries)" [ "${retries:-0}" -ge 1 ]
otlp_receiver_start --port "$OTLP_PORT" || { finish; exit 1; }
check "once it is back, every process of the outage arrives" arrived outage 60
echo "    resent during the outage: $(status_field traces resent) items in $(status_field traces retries) retries"

# ---- tracerd killed with kill -9 mid-backlog and started again: nothing missing
mode fail503
traced_run killed 200
sleep 2
kill -9 $DAEMON_PID; wait $DAEMON_PID 2>/dev/null; DAEMON_PID=
start_daemon || { fail "restart after kill -9"; finish; exit 1; }
rm -f "$T/otlp/control"
check "after kill -9 and a restart, every process span arrives" arrived killed 60
for u in first outage killed; do
  read -r lines ids < <(spans $u)
  check "unit $u: 0 missing, each span id once after de-duplication ($ids of $(stored $u), $lines received)" \
    [ "$ids" -eq "$(stored $u)" ]
done

# ---- hostile and broken receivers: tracing stays whole, status answers at once
attack() { # MODE [N]
  local name="attack_$1" t0 t1
  mode "$@"
  traced_run "$name" 100
  check "receiver $*: tracerctl run still traced" [ "$(stored "$name")" -ge 100 ]
  sleep 3
  t0=$(date +%s%N)
  ctl status > /dev/null
  t1=$(date +%s%N)
  check "receiver $*: status answers within 1 s ($(((t1 - t0) / 1000000)) ms)" [ $((t1 - t0)) -lt 1000000000 ]
  rm -f "$T/otlp/control"
  check "receiver $* then well again: the run's spans arrive" arrived "$name" 60
  check "receiver $*: tracerd's VmHWM $(hwm) kB <= $HWM_MAX_KB kB" [ "$(hwm)" -le $HWM_MAX_KB ]
}
attack hang
attack huge
attack garbage
attack throttle429 3
# Retry-After: 6 s between tries, where the backoff alone would try 2 or 3 times in 4 s
before=$(answered 429)
mode throttle429 6
traced_run throttled 20
# counted from the first 429: the next try is 6 s after it, whenever the run gave it a batch
for _ in $(seq 100); do [ "$(answered 429)" -gt "$before" ] && break; sleep 0.1; done
sleep 4
tries=$(($(answered 429) - before))
check "a 429's Retry-After is honoured: one try in the 4 s after the first ($tries)" [ "$tries" -eq 1 ]
rm -f "$T/otlp/control"
check "and the batch tried again after it arrives" arrived throttled 30
attack fail503
check "the collector's garbage reply is said" grep -q "no Export response" "$T/tracerd.log"
rejected=$(status_field traces rejected)
attack partial 3
check "a partial success is counted as rejected ($rejected, then $(status_field traces rejected))" \
  [ "$(status_field traces rejected)" -ge $((rejected + 3)) ]

# ---- an expired API key: the collector answers 401 until the key is set right; nothing is lost,
# and status says the collector's reason (its control characters escaped)
refused=$(status_field traces refused)
before=$(answered 401)
mode status 401
traced_run denied 50
sleep 4
check "a 401 is tried again ($(($(answered 401) - before)) tries), not refused ($refused, then $(status_field traces refused))" \
  [ $(($(answered 401) - before)) -ge 2 -a "$(status_field traces refused)" -eq "$refused" ]
check "status shows the collector's reason" status_says 'last error.*HTTP 401.*invalid api key'
no_escape() { ! ctl status | grep -q $'\x1b'; }
check "escaped: no escape character reaches the terminal" no_escape
check "the log says the reason too" grep -q 'HTTP 401: tried again later: test receiver: HTTP 401: invalid api key' "$T/tracerd.log"
mode status 404
# the next try comes after the 401s' backoff, up to 8 s and its jitter on a slow machine
for _ in $(seq 40); do status_says 'HTTP 404: tried again later' && break; sleep 0.5; done
check "a 404 (a wrong path) is tried again as well" status_says 'HTTP 404: tried again later'
rm -f "$T/otlp/control"
check "once the key is set right, every span of the run arrives" arrived denied 60
# ---- a 400: the batch itself is refused and skipped, and delivery goes on after it
mode status 400
traced_run poison 5
sleep 3
rm -f "$T/otlp/control"
check "a 400 refuses the batch ($refused, then $(status_field traces refused) refused)" \
  [ "$(status_field traces refused)" -gt "$refused" ]
check "and says why" status_says 'HTTP 400: [0-9]* items refused, skipped: test receiver'
traced_run afterpoison 20
check "delivery goes on after a refused batch" arrived afterpoison 30

# ---- what a Slurm job adds, and the log records of a stall's start and of a slow step: the
# cluster's name (tracer.conf's ClusterName), account, partition and nodes (a hostile account and
# a 10 kB partition arrive cleaned and cut), with StallAfter 2 s
stop_daemon
cat >> "$T/tracer.conf" <<CONF
ClusterName = itestcluster
StallAfter = 2s
CONF
start_daemon || { fail "restart with ClusterName"; finish; exit 1; }
# The items of signal $1 whose attribute $2 is $3, as JSON lines
items_where() {
  python3 - "$T/otlp/items.jsonl" "$@" <<'PY'
import json, sys
path, sig, key, val = sys.argv[1:5]
for l in open(path):
    try:
        o = json.loads(l)
    except ValueError:
        continue
    if o.get("signal") == sig and str(o.get("attributes", {}).get(key)) == val:
        print(json.dumps(o))
PY
}
wait_item() { # SIGNAL KEY VALUE SECONDS
  for _ in $(seq $(($4 * 4))); do
    [ -n "$(items_where "$1" "$2" "$3")" ] && return 0
    sleep 0.25
  done
  return 1
}
# the registered process's child, forked once it is tracked, is the one that stalls
sh -c 'sleep 1; sleep 7' & victim=$!
account=$'a"b\nc\x1b[0m\\x\xff'
partition=$(printf 'p%.0s' $(seq 10240))
unit=$(ctl register --uid 0 --pid $victim --job-id 4242 --step-id 0 --task-id 0 \
  --job-name hostile --account "$account" --partition "$partition" --nodelist 'n[1-2]')
check "a job with a hostile account and a 10 kB partition is registered ($unit)" [ -n "$unit" ]
check "its process's stall start arrives as a log record while it runs" \
  wait_item logs tracer.event stall.start 10
check "the process still ran then" kill -0 $victim
wait $victim
ctl unregister "$unit" --status 0 > /dev/null
check "the job's step span arrives" wait_item traces slurm.job_id 4242 20
check "resource, account, partition and nodes arrive clean, on the span, its process's and the stall's log" \
  python3 - "$T/otlp/items.jsonl" <<'PY'
import json, sys
items = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
job = [o for o in items if o.get("attributes", {}).get("slurm.job_id") == "4242"]
unit = [o for o in job if o["signal"] == "traces" and "process.pid" not in o["attributes"]]
stall = [o for o in job if o["signal"] == "logs" and o["attributes"].get("tracer.event") == "stall.start"]
proc = [o for o in job if o["signal"] == "traces" and stall and
        o["attributes"].get("process.pid") == stall[0]["attributes"]["process.pid"]]
assert unit and proc and stall, (len(unit), len(proc), len(stall))
for o in unit + proc + stall:
    a = o["attributes"]
    assert o["resource"]["slurm.cluster"] == "itestcluster", o["resource"]
    assert a["slurm.account"] == 'a"b\\x0ac\\x1b[0m\\x\\xff', a["slurm.account"]
    assert a["slurm.partition"] == "p" * 63, len(a["slurm.partition"])
    assert a["slurm.nodelist"] == "n[1-2]", a["slurm.nodelist"]
s = stall[0]
assert s["severityText"] == "WARN" and "stalled" in s["body"], s
assert s["spanId"] == proc[0]["spanId"] and s["traceId"] == proc[0]["traceId"], (s, proc[0])
assert s["attributes"]["tracer.stall_reason"] == "sleeping", s["attributes"]
assert int(proc[0]["start"]) <= int(s["time"]) < int(proc[0]["end"]), (s["time"], proc[0])
PY
check "the stall's start was sent once (resends keep its identity)" python3 - "$T/otlp/items.jsonl" <<'PY'
import json, sys
keys = {(o["spanId"], o["time"], o["body"]) for o in map(json.loads, open(sys.argv[1]))
        if o.get("signal") == "logs" and o.get("attributes", {}).get("tracer.event") == "stall.start"}
assert len(keys) == 1, keys
PY
# the prolog passes the job's account, partition and nodes from its environment as Slurm's
# slurmd gives it (22.05: the node list as SLURM_NODELIST); tracerd cleans and cuts them
SLURM_JOB_ID=4343 SLURM_JOB_UID=0 SLURMD_NODENAME=$NODE SLURM_JOB_ACCOUNT="$account" \
  SLURM_JOB_PARTITION="$(printf 'q%.0s' $(seq 3000))" SLURM_NODELIST='n[1-3]' "$BUILD/tracer-prolog"
SLURM_JOB_ID=4343 SLURM_JOB_UID=0 SLURMD_NODENAME=$NODE "$BUILD/tracer-epilog"
check "the prolog's job arrives" wait_item traces slurm.job_id 4343 20
check "with its account, partition and nodes cleaned and cut" python3 - "$T/otlp/items.jsonl" <<'PY'
import json, sys
a = [o for o in map(json.loads, open(sys.argv[1]))
     if o.get("signal") == "traces" and o["attributes"].get("slurm.job_id") == "4343"][0]["attributes"]
assert a["slurm.account"] == 'a"b\\x0ac\\x1b[0m\\x\\xff', a
assert a["slurm.partition"] == "q" * 63 and a["slurm.nodelist"] == "n[1-3]", a
PY
# slower than usual: three runs of a step in about 0.3 s, then one of 3.5 s
for j in 1 2 3 4; do
  sleep 30 & p=$!
  u=$(ctl register --uid 0 --pid $p --job-id $((5000 + j)) --step-id 0 --task-id 0 --job-name same)
  if [ $j -lt 4 ]; then sleep 0.3; else sleep 3.5; fi
  kill $p; wait $p 2>/dev/null
  ctl unregister "$u" --status 0 > /dev/null
done
check "a step slower than its earlier runs gives a WARN log record at its end" \
  wait_item logs tracer.event slower_than_usual 20
check "only that one, on its step's span, with its usual time" python3 - "$T/otlp/items.jsonl" <<'PY'
import json, sys
items = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
slow = [o for o in items if o.get("signal") == "logs" and o["attributes"].get("tracer.event") == "slower_than_usual"]
assert {o["attributes"].get("slurm.job_id") for o in slow} == {"5004"}, slow
o = slow[0]
span = [s for s in items if s.get("signal") == "traces" and s["attributes"].get("slurm.job_id") == "5004"
        and "process.pid" not in s["attributes"]][0]
assert o["spanId"] == span["spanId"] and o["traceId"] == span["traceId"]
assert o["severityText"] == "WARN" and "its median of the last 3 runs" in o["body"], o["body"]
assert o["attributes"]["tracer.history_runs"] == "3"
assert 2e8 < int(o["attributes"]["tracer.usual_elapsed_ns"]) < 2e9, o["attributes"]
PY

# ---- the other encoding, compressed
stop_daemon
cat >> "$T/tracer.conf" <<CONF
OtlpProtocol = http/json
OtlpCompression = gzip
CONF
start_daemon || { fail "restart with http/json"; finish; exit 1; }
traced_run json 20
check "http/json with gzip: every process span arrives" arrived json 20
check "decoded as JSON from a gzip body" \
  grep -q '"encoding":"json","gzip":true' "$T/otlp/items.jsonl"

# ---- a store made anew under old cursors: what it holds is sent all the same
stop_daemon
rm -f "$T/state/$NODE"/tracer.db*
start_daemon || { fail "restart with a new store"; finish; exit 1; }
traced_run anew 10
check "a new store under the old cursors: its spans arrive" arrived anew 20
check "and that is said" grep -q "the store is new" "$T/tracerd.log"

# ---- a hung receiver does not hold tracerd's exit past the bound
mode hang
traced_run last 10
sleep 2
t0=$(date +%s%N)
stop_daemon
t1=$(date +%s%N)
check "tracerd stops within 5 s while a post hangs ($(((t1 - t0) / 1000000)) ms)" \
  [ $((t1 - t0)) -lt 5000000000 ]
rm -f "$T/otlp/control"
finish
