# OTLP export through an outage, on the real test cluster: the receiver (tests/otlp/receiver.js)
# is down for 4 times the export's backoff cap (OtlpBackoffMax 5 s: 20 s; 2 minutes with the
# default cap of 30 s) while a 2 000-process batch job runs, and meanwhile the node's tracerd
# is killed with kill -9 and started again. Once the receiver is back, every process the store
# holds has arrived as a span (counted by id: 0 missing, each id once after de-duplication),
# with how many were sent again; tracerd's memory stays bounded through the outage.
# lane: cluster cpu: 0.2
. "$(dirname "$0")/lib.sh"
OUT=$T/otlp/items.jsonl
NPROCS=2000
# the tries back off to their cap and stay there a while: the outage outlasts it several times
BACKOFF_MAX=5
OUTAGE=${TRACER_OUTAGE_S:-$((4 * BACKOFF_MAX))}

otlp_receiver_start || { finish; exit 1; }
cluster_up
cluster_export http/protobuf "OtlpCompression = gzip
OtlpBackoffMax = ${BACKOFF_MAX}s"
pidfile=$BASE/run/tracerd-$N1.pid
hwm() { awk '/VmHWM/ {print $2}' "/proc/$(cat "$pidfile")/status" 2>/dev/null || echo 0; }

# NPROCS short processes over about OUTAGE + 20 s
cat > "$T/job.sh" <<EOF
#!/bin/bash
for i in \$(seq $NPROCS); do /bin/true; sleep $(python3 -c "print(round(($OUTAGE + 20) / $NPROCS, 4))"); done
EOF
chmod 755 "$T/job.sh"
J=$(submit tracertest "-w $N1 -o /dev/null $T/job.sh")
sleep 5
otlp_receiver_stop
down=$(date +%s)
echo "  receiver down at $(date +%T), job $J running"
sleep $((OUTAGE / 4))
hwm1=$(hwm)
kill -9 "$(cat "$pidfile")"
sleep 3
"$CLUSTER" tracerd $N1 > /dev/null 2>&1 # starts it again, on the same config
echo "  tracerd of $N1 killed (VmHWM $hwm1 kB) and started again"
while [ $(($(date +%s) - down)) -lt "$OUTAGE" ]; do sleep 2; done
hwm2=$(hwm)
backlog=$("$BUILD/tracerctl" -N $N1 status --json 2>/dev/null | python3 -c '
import json, sys
e = json.load(sys.stdin).get("export", {})
print(max((s.get("behind", 0) for s in e.get("signals", [])), default=0))' 2>/dev/null)
otlp_receiver_start --port "$OTLP_PORT" || { finish; exit 1; }
echo "  receiver back after $(($(date +%s) - down)) s; backlog then $backlog records; tracerd VmHWM $hwm2 kB"
check "tracerd's VmHWM through the outage stays within 64 MB ($hwm1 kB, then $hwm2 kB)" \
  [ "$hwm1" -le 65536 -a "$hwm2" -le 65536 ]
wait_ended "$J"
for _ in $(seq 240); do
  # read again each time: the job's last exits may reach the store after Slurm ends it
  "$BUILD/tracer-jobstat" -j "$J" --processes --json > "$T/procs.json"
  python3 - "$OUT" "$T/procs.json" "$J" > "$T/count" <<'PY' && break
import json, sys
out, procs, j = sys.argv[1:]
rows = json.load(open(procs))["rows"]
want = {p["PID"] for p in rows}
lines = [json.loads(l) for l in open(out) if l.strip()]
mine = [s for s in lines if s["signal"] == "traces" and s["attributes"].get("slurm.job_id") == j
        and "process.pid" in s["attributes"]]
ids = {s["spanId"] for s in mine}
got = {int(s["attributes"]["process.pid"]) for s in mine}
print(len(rows), len(want - got), len(ids), len(mine) - len(ids))
sys.exit(0 if want and want == got and len(ids) == len(rows) else 1)
PY
  sleep 0.5
done
read -r stored missing unique resent < "$T/count"
[ "$missing" = 0 ] || "$BUILD/tracerctl" -N $N1 status --json | python3 -c '
import json, sys; print("  export:", json.dumps(json.load(sys.stdin).get("export")))'
echo "  $stored processes stored, $unique span ids arrived, $missing missing, $resent sent again"
check "every process of the job arrived as one span ($stored stored, $missing missing, $unique ids)" \
  [ "$missing" = 0 -a "$unique" = "$stored" -a "$stored" -ge "$NPROCS" ]
check "nothing the receiver refused" python3 -c "
import json; s = json.load(open('$T/otlp/stats.json')); assert s['rejected'] == 0, s"
finish
