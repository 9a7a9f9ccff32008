#!/usr/bin/env bash
# OTLP metrics end to end: a real tracerd (OtlpMetricsInterval = 1s) sends its running units'
# figures to the test receiver (tests/otlp/receiver.js, OpenTelemetry's own decoders), which
# writes one line per data point. A traced run burns 6 s of CPU (by its own CPU clock), then
# sleeps: its CPU sum grows, ends within 5 % of what it burned, carries no pid, and stops when
# the run ends while another run's points go on. A failed request is counted, not retried.
# Then once more in http/json with gzip.
# lane: daemon cpu: 0.3
. "$(dirname "$0")/lib.sh"

BURN=$(prog cpuburn) || exit 1
KEEPER=$T/keeper-$$ # a tool of its own name, this test's alone
cp /bin/sleep "$KEEPER"
otlp_receiver_start || { finish; exit 1; }
write_config
cat >> "$T/tracer.conf" <<CONF
OtlpEndpoint = $OTLP_URL
OtlpTimeout = 2s
OtlpMetricsInterval = 1s
CONF
start_daemon || { finish; exit 1; }

# What the receiver holds of unit $1's points, after time $2 (ns, 0: all), in encoding $3:
# checks and prints as the caller asks ($4: a Python expression over pts, by metric name)
points() {
  python3 - "$T/otlp/items.jsonl" "$1" "${2:-0}" "${3:-protobuf}" "$4" <<'PY'
import json, sys
from collections import defaultdict
path, unit, after, enc, expr = sys.argv[1:6]
pts = defaultdict(list)  # metric name -> points of the unit, in order
allkeys = set()
for l in open(path):
    o = json.loads(l)
    if o["signal"] != "metrics" or o["encoding"] != enc:
        continue
    allkeys.update(o["attributes"])
    if o["attributes"].get("tracer.unit.name") == unit and int(o["time"]) > int(after):
        pts[o["name"]].append(o)
print(eval(expr))
PY
}

echo "== a run burning 6 s of CPU, then sleeping 3 s, beside a run that sleeps on"
# (it sleeps past the checks, slow machine or not: ended once the failed request is seen)
ctl run --name keep -- "$KEEPER" 120 > /dev/null 2>&1 &
KEEP=$!
t_start=$(date +%s%N)
ctl run --name burn -- sh -c "'$BURN' 6; sleep 3" > "$T/burn.out" 2>&1
t_end=$(date +%s%N)
check "the run was traced" grep -q recorded "$T/burn.out"
sleep 3.5

n=$(points burn 0 protobuf 'len(pts["tracer.job.cpu.time"])')
echo "  $n CPU points of the run arrived; receiver: $(cat "$T/otlp/stats.json")"
check "its data points arrived decoded, one a second or so ($n)" [ "$n" -ge 6 ]
check "the receiver decoded every request, refused none" python3 -c "
import json, sys
s = json.load(open('$T/otlp/stats.json'))
sys.exit(0 if s['decoded'] > 0 and s['rejected'] == 0 and s['items']['metrics'] > 0 else 1)"
cpu=$(points burn 0 protobuf '" ".join(str(p["value"]) for p in pts["tracer.job.cpu.time"])')
echo "  CPU seconds at each point: $cpu"
check "the CPU sum is a cumulative, monotonic sum in seconds" \
  [ "$(points burn 0 protobuf 'all(p["type"] == "sum" and p["temporality"] == 2 and p["monotonic"] and p["unit"] == "s" for p in pts["tracer.job.cpu.time"])')" = True ]
check "the CPU sum never goes back and grows" \
  [ "$(points burn 0 protobuf '(lambda v: all(a <= b for a, b in zip(v, v[1:])) and v[-1] > v[0] + 3)([p["value"] for p in pts["tracer.job.cpu.time"]])')" = True ]
last=$(points burn 0 protobuf 'pts["tracer.job.cpu.time"][-1]["value"]')
check "its last point matches the 6 s the burner burned within 5 % ($last s)" \
  awk -v c="$last" 'BEGIN { d = c - 6; if (d < 0) d = -d; exit !(d <= 0.05 * 6) }'
check "every point of its sum starts at the run's start, before the first point" \
  [ "$(points burn 0 protobuf '(lambda s: len(s) == 1 and '"$t_start"' - 10**9 < list(s)[0] <= min(int(p["time"]) for p in pts["tracer.job.cpu.time"]))({int(p["start"]) for p in pts["tracer.job.cpu.time"]})')" = True ]
check "its attributes: its name, its user, its id; its tool's too" \
  [ "$(points burn 0 protobuf 'pts["tracer.job.cpu.time"][-1]["attributes"].keys() == {"tracer.unit.name", "user.name", "tracer.unit.id"} and pts["tracer.job.cpu.time"][-1]["attributes"]["user.name"] == "root" and any(p["attributes"].get("tracer.tool") == "cpuburn" for p in pts["tracer.tool.processes.running"])')" = True ]
check "no attribute of any point is a pid" \
  [ "$(points burn 0 protobuf '[k for k in allkeys if "pid" in k]')" = "[]" ]
check "the figures of a job are all there" \
  [ "$(points burn 0 protobuf 'sorted(k for k in pts if k.startswith("tracer.job."))')" = "['tracer.job.cpu.time', 'tracer.job.cpu.wait', 'tracer.job.disk.read', 'tracer.job.disk.write', 'tracer.job.io.wait', 'tracer.job.memory.rss', 'tracer.job.processes.running', 'tracer.job.processes.started']" ]
after=$(points burn "$t_end" protobuf 'sum(len(v) for v in pts.values())')
kept=$(points keep "$((t_end + 2000000000))" protobuf 'len(pts["tracer.job.cpu.time"])')
check "no point of the run after it ended ($after), while the other run's go on ($kept)" \
  [ "$after" = 0 -a "${kept:-0}" -ge 1 ]
sent=$(ctl status --json | python3 -c "
import json, sys
r = json.load(sys.stdin)
print(' '.join(str(s['sent']) + '/' + str(s['batches']) for s in r['export']['signals'] if s['signal'] == 'metrics'))")
check "status counts the metrics sent (points/requests: $sent)" bash -c '[ -n "$1" ] && [ "${1%%/*}" -gt 0 ]' _ "$sent"
metric_status() { # KEY of the metrics signal's status
  ctl status --json | python3 -c "
import json, sys
r = json.load(sys.stdin)
print([s['$1'] for s in r['export']['signals'] if s['signal'] == 'metrics'][0])"
}
echo fail503 > "$T/otlp/control" # the collector fails while the other run goes on
check "the other run goes on" kill -0 $KEEP
refused0=$(metric_status refused)
sleep 2.5
rm -f "$T/otlp/control"
refused=$(metric_status refused) retries=$(metric_status retries)
check "a failed metrics request is counted ($refused0 -> $refused refused) and not retried ($retries)" \
  [ "${refused:-0}" -gt "${refused0:-0}" -a "$retries" = 0 ]
pkill -x "keeper-$$"
wait $KEEP 2>/dev/null

echo "== http/json with gzip"
stop_daemon
cat >> "$T/tracer.conf" <<CONF
OtlpProtocol = http/json
OtlpCompression = gzip
CONF
start_daemon || { finish; exit 1; }
ctl run --name burnj -- sh -c "'$BURN' 2; sleep 2" > /dev/null 2>&1
cpu=$(points burnj 0 json '[p["value"] for p in pts["tracer.job.cpu.time"]]')
echo "  CPU seconds at each point: $cpu"
check "JSON points arrive and the last holds the 2 s burned within 5 %" \
  [ "$(points burnj 0 json '(lambda v: len(v) >= 2 and all(a <= b for a, b in zip(v, v[1:])) and abs(v[-1] - 2) <= 0.1)([p["value"] for p in pts["tracer.job.cpu.time"]])')" = True ]
check "the JSON points were gzipped" \
  python3 -c "import json, sys; sys.exit(0 if all(json.loads(l)['gzip'] for l in open('$T/otlp/items.jsonl') if '\"json\"' in l and '\"metrics\"' in l) else 1)"
check "tracerd still answers" bash -c "\"$BUILD/tracerctl\" -N $NODE status > /dev/null"

finish
