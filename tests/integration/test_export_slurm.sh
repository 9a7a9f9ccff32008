# OTLP export from the real test cluster to a real receiver (tests/otlp/receiver.js decodes
# with OpenTelemetry's published decoders), in JSON: a 2-node batch job with srun steps arrives
# as one trace, with a span a process of the job sends itself, under the TRACEPARENT it
# inherited, joining it. The trace holds its steps and processes, parented right, exactly one
# span for every process the store holds (otlp_trace.py). The Snakemake workflow's traces, in
# protobuf, are test_workflow.sh's. The cluster's tracerds export while this runs and are
# restarted without export at its end.
# lane: cluster nodes: 2 cpu: 0.3
. "$(dirname "$0")/lib.sh"
OUT=$T/otlp/items.jsonl

otlp_receiver_start || { finish; exit 1; }
cluster_up

# --- a 2-node job with srun steps, exported in JSON; a process of it sends its own span
cluster_export http/json
cat > "$T/job.sh" <<EOF
#!/bin/bash
srun -N2 -n2 sh -c 'sleep 0.2; cat /proc/self/status > /dev/null'
srun -N1 -n1 python3 -c '
import json, os, urllib.request
tp = os.environ["TRACEPARENT"].split("-")
span = {"traceId": tp[1], "spanId": "00000000000000ab", "parentSpanId": tp[2],
        "name": "user-span", "kind": 1, "startTimeUnixNano": "1", "endTimeUnixNano": "2"}
body = {"resourceSpans": [{"resource": {"attributes": []},
        "scopeSpans": [{"scope": {"name": "user"}, "spans": [span]}]}]}
req = urllib.request.Request("$OTLP_URL/v1/traces", json.dumps(body).encode(),
                             {"Content-Type": "application/json"})
urllib.request.urlopen(req, timeout=5).read()
'
EOF
chmod 755 "$T/job.sh"
J=$(submit tracertest "-N2 -w $BOTH -o /dev/null $T/job.sh")
wait_ended "$J"
check "every process of the 2-node job $J arrived as a span" otlp_arrived "$J"
otlp_shape json "$J"
check "the job's own span joined its trace, under the batch script's span" python3 - "$OUT" "$J" <<'PY'
import json, sys
out, j = sys.argv[1], sys.argv[2]
spans = [json.loads(l) for l in open(out) if l.strip()]
user = [s for s in spans if s.get("name") == "user-span"]
batch = [s for s in spans if s.get("name") == f"step {j}.batch task 0"]
assert user and batch, (len(user), len(batch))
assert user[-1]["traceId"] == batch[0]["traceId"], (user[-1]["traceId"], batch[0]["traceId"])
assert user[-1]["parentSpanId"] == batch[0]["spanId"]
PY
for _ in $(seq 40); do # accounting may fill the job's record in a moment after its end
  IFS='|' read -r acct part nodes < <(sacct -n -X -P -j "$J" -o Account,Partition,NodeList)
  [ -n "$acct" ] && [ -n "$part" ] && [ -n "$nodes" ] && break
  sleep 0.25
done
check "its spans carry the job's account ($acct), partition ($part) and nodes ($nodes), the resource the cluster" \
  python3 - "$OUT" "$J" "$acct" "$part" "$nodes" <<'PY'
import json, sys
out, j, acct, part, nodes = sys.argv[1:6]
items = [json.loads(l) for l in open(out) if l.strip()]
spans = [o for o in items if o.get("signal") == "traces" and o["attributes"].get("slurm.job_id") == j]
units = [o for o in spans if "process.pid" not in o["attributes"]]
assert units and len(spans) > len(units), (len(units), len(spans))
for o in spans:
    a = o["attributes"]
    assert o["resource"].get("slurm.cluster") == "tracertest", o["resource"]
    assert a.get("slurm.account") == acct, (o["name"], a.get("slurm.account"))
    assert a.get("slurm.partition") == part, (o["name"], a.get("slurm.partition"))
    assert a.get("slurm.nodelist") == nodes, (o["name"], a.get("slurm.nodelist"))
PY
check "the receiver refused nothing" python3 -c "
import json; s = json.load(open('$T/otlp/stats.json')); assert s['rejected'] == 0, s"
finish
