#!/usr/bin/env python3
"""What the test receiver (tests/otlp/receiver.js) got from the test cluster's tracerds, against
what their stores hold (tracer-jobstat -j JOB --processes --json in DIR/procs-JOB.json):

  otlp_trace.py arrived ITEMS DIR JOB...        exit 0 once every stored process has its span
  otlp_trace.py shape ITEMS DIR ENCODING JOB... the shape of each job's trace, one "ok   ..." or
                                                "FAIL ..." line per check
"""
import collections
import json
import sys


def arrived(out, t, jobs):
    spans = [json.loads(l) for l in open(out) if l.strip()]
    for j in jobs:
        want = {p["PID"] for p in json.load(open(f"{t}/procs-{j}.json"))["rows"]}
        got = {int(s["attributes"]["process.pid"]) for s in spans
               if s["signal"] == "traces" and s["attributes"].get("slurm.job_id") == j
               and "process.pid" in s["attributes"]}
        if not want or not want <= got:
            sys.exit(1)


def shape(out, t, enc, jobs):
    items = [json.loads(l) for l in open(out) if l.strip()]
    spans = [s for s in items if s["signal"] == "traces"]
    def say(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
    traces = {}
    for j in jobs:
        mine = [s for s in spans if s["attributes"].get("slurm.job_id") == j]
        ids = {s["traceId"] for s in mine}
        say(len(ids) == 1, f"job {j}: one trace ({len(ids)} trace ids over {len(mine)} spans)")
        trace = ids.pop() if len(ids) == 1 else None
        traces[j] = trace
        in_trace = [s for s in spans if s["traceId"] == trace]
        say(all(s["encoding"] == enc for s in in_trace), f"job {j}: every request in {enc}")
        byid = collections.defaultdict(list)
        for s in in_trace:
            byid[s["spanId"]].append(s)
        procs = json.load(open(f"{t}/procs-{j}.json"))["rows"]
        pspans = {sid: v for sid, v in byid.items() if "process.pid" in v[0]["attributes"]}
        pids = sorted(int(v[0]["attributes"]["process.pid"]) for v in pspans.values())
        say(pids == sorted(p["PID"] for p in procs),
            f"job {j}: exactly one span per stored process ({len(pspans)} span ids, {len(procs)} processes)")
        # a process's span sent again says the same thing; a unit's may say more (its row is
        # written again after its end: the job's memory peak at the epilog), under the same id
        def content(s):
            return json.dumps({k: v for k, v in s.items() if k not in ("encoding", "gzip")}, sort_keys=True)
        differ = [v[0]["name"] for v in pspans.values() if len({content(s) for s in v}) > 1]
        say(not differ, f"job {j}: a process span sent again is the same span "
            f"({sum(len(v) - 1 for v in byid.values())} resends; differing: {differ[:3]})")
        roots = [v[0] for v in byid.values() if not v[0].get("parentSpanId")]
        orphans = [v[0]["name"] for v in byid.values()
                   if v[0].get("parentSpanId") and v[0]["parentSpanId"] not in byid]
        nodes = {s["resource"].get("slurm.node.name") for s in in_trace if "process.pid" in s["attributes"]}
        say(roots and all(r["name"] == f"job {j}" for r in roots) and len(roots) == len(nodes) and not orphans,
            f"job {j}: rooted at its allocation on each of its {len(nodes)} nodes ({len(roots)} roots), every other span's parent in the trace (orphans: {orphans[:3]})")
        steps = sorted({v[0]["name"] for v in byid.values() if v[0]["name"].startswith("step ")})
        say(f"step {j}.batch task 0" in steps, f"job {j}: its steps are spans: {steps}")
        batch = [sid for sid, v in byid.items() if v[0]["name"] == f"step {j}.batch task 0"]
        under = [v[0] for v in pspans.values() if v[0]["parentSpanId"] in batch]
        say(under, f"job {j}: the batch script's processes hang under its step ({len(under)})")
        nested = [v[0] for v in pspans.values() if v[0]["parentSpanId"] in pspans]
        say(nested, f"job {j}: child processes hang under their parent process ({len(nested)})")
        bad = [s["name"] for s in in_trace if int(s["end"]) < int(s["start"]) or int(s["start"]) <= 0]
        say(not bad, f"job {j}: every span has its start and end ({bad[:3]})")
        for p in procs:
            if p.get("Tool"):
                have = [v[0] for v in pspans.values()
                        if int(v[0]["attributes"]["process.pid"]) == p["PID"]]
                a = have[0]["attributes"] if have else {}
                named = " ".join(x for x in (a.get("tracer.tool"), a.get("tracer.tool.subcommand")) if x)
                if named != p["Tool"]:
                    say(False, f"job {j}: process {p['PID']} carries its tool {p['Tool']}")
                    break
        else:
            say(True, f"job {j}: each process span carries its tool as the report names it")
    say(len(set(traces.values())) == len(jobs), f"{len(jobs)} jobs, {len(set(traces.values()))} traces")
    json.dump(traces, open(f"{t}/traces.json", "w"))


if __name__ == "__main__":
    if sys.argv[1] == "arrived":
        arrived(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        shape(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
