#!/usr/bin/env python3
"""Checks for test_workflow.sh: what `tracer-jobstat --workflow --json` and `--processes --json`
show for one pipeline, against the workflow's steps and tools and against GNU time's report
(`/usr/bin/time -v -o FILE`) of each tool invocation. Prints "ok ..." / "FAIL ..." lines (the
test counts them) and the comparison table.

Usage: compare.py snakemake|nextflow PIPELINE WORKFLOW.json PROCESSES.json TIMEFILE...
       compare.py same SNAKEMAKE-WORKFLOW.json NEXTFLOW-WORKFLOW.json

Bounds (the collect core's): CPU within 1 % or 10 ms, peak RSS within 1 % or 256 KiB. GNU time
prints user and system time cut (not rounded) to 10 ms each, so the invocation's CPU lies in
[user + system, user + system + 20 ms); tracer's value must lie within the bound of that
interval. tracer-jobstat's JSON gives CPU in seconds to the millisecond, RSS in bytes."""
import json
import re
import sys

# rule -> the tools it runs (Nextflow process VARIANT_CALLING:<RULE in upper case>)
STEPS = {
    "bwa_index": ["bwa index"],
    "bwa_map": ["bwa mem", "samtools view"],
    "samtools_sort": ["samtools sort"],
    "samtools_index": ["samtools index"],
    "bcftools_call": ["bcftools mpileup", "bcftools call"],
}
JOBS = {"bwa_index": 1, "bwa_map": 2, "samtools_sort": 2, "samtools_index": 2, "bcftools_call": 1}
ENGINE_TOOLS = {"snakemake": {"snakemake"}, "nextflow": set()}  # the engine's own processes

failures = 0


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what)
    failures += not cond


def step_name(engine, rule):
    return rule if engine == "snakemake" else "VARIANT_CALLING:" + rule.upper()


def load_view(path, pipeline=None):
    """{step: {"row": step row, "tools": {tool: row}}} of the pipeline's one run, and the run"""
    d = json.load(open(path))
    pipes = [p for p in d["pipelines"] if pipeline is None or p["Pipeline"] == pipeline]
    if len(pipes) != 1 or len(pipes[0]["runs"]) != 1:
        return None, None, pipes
    run = pipes[0]["runs"][0]
    steps = {s["Step"]: {"row": s, "tools": {t["Tool"]: t for t in s["tools"]}} for s in run["steps"]}
    return steps, run, pipes


def parse_time(path):
    text = open(path).read()
    get = lambda key: re.search(r"^\s*" + re.escape(key) + r": (.*)$", text, re.M).group(1)
    return {"file": path, "cmd": get("Command being timed").strip('"'),
            "user": float(get("User time (seconds)")), "sys": float(get("System time (seconds)")),
            "rss_kb": int(get("Maximum resident set size (kbytes)")), "exit": int(get("Exit status"))}


def cpu_ok(tracer_s, user, sys_):
    lo, hi = user + sys_, user + sys_ + 0.020
    dist = max(lo - tracer_s, tracer_s - hi, 0.0)
    return dist <= max(0.01 * (lo + 0.010), 0.010) + 0.0005, dist  # + JSON's millisecond rounding


def rss_ok(tracer_kb, time_kb):
    return abs(tracer_kb - time_kb) <= max(0.01 * time_kb, 256)


def view(engine, pipeline, wf_path, procs_path, time_files):
    steps, run, pipes = load_view(wf_path, pipeline)
    check(steps is not None, f"{engine}: one pipeline '{pipeline}' with one run "
          f"({[(p['Pipeline'], [r['Run'] for r in p['runs']]) for p in pipes]})")
    if steps is None:
        return
    if engine == "snakemake":
        check(run["Run"] not in (None, "---"), f"snakemake: the run is named ({run['Run']})")
    else:
        check(run["Run"] is None, f"nextflow: no run name in what a task carries: Run unknown ({run['Run']})")
    for rule, tools in STEPS.items():
        name = step_name(engine, rule)
        s = steps.get(name)
        check(s is not None, f"{engine}: step {name} present")
        if not s:
            continue
        want = set(tools) | ENGINE_TOOLS[engine]
        check(set(s["tools"]) == want, f"{engine}: step {name} has tools {sorted(s['tools'])} (want {sorted(want)})")
        check(s["row"]["NJobs"] == JOBS[rule], f"{engine}: step {name} ran as {s['row']['NJobs']} job(s) "
              f"(want {JOBS[rule]})")
        for t in tools:
            row = s["tools"].get(t)
            if row:  # each invocation: the tool and its /usr/bin/time wrapper (named after the tool)
                check(row["NProcs"] == 2 * JOBS[rule], f"{engine}: {name} / {t}: {row['NProcs']} processes "
                      f"(the tool and its time wrapper, {JOBS[rule]} time(s))")
    extra = set(steps) - {step_name(engine, r) for r in STEPS}
    check(not extra, f"{engine}: no other steps ({sorted(extra)})")

    procs = [p for p in json.load(open(procs_path))["rows"] if p.get("Pipeline") == pipeline]
    # the tool rows are the processes grouped: same count, CPU sum, and the largest RSS of the
    # tool's own processes: a wrapper's (GNU time, forked from Snakemake's 70 MB python, keeps
    # python's peak as its ru_maxrss) is not the tool's
    def wrapper(p):
        return (p.get("Command") or "").split(" ")[0].rsplit("/", 1)[-1] == "time"

    for sname, s in steps.items():
        for tname, trow in s["tools"].items():
            mine = [p for p in procs if p.get("Step") == sname and p.get("Tool") == tname]
            cpu = sum(p["TotalCPU"] or 0 for p in mine)
            rss = max((p["MaxRSS"] or 0 for p in mine if not wrapper(p)),
                      default=0)
            check(len(mine) == trow["NProcs"] and abs(cpu - trow["TotalCPU"]) <= 0.001 * (len(mine) + 1)
                  and rss == trow["MaxRSS"],
                  f"{engine}: {sname} / {tname}: the tool row ({trow['NProcs']} procs, {trow['TotalCPU']:.3f} s, "
                  f"{trow['MaxRSS'] // 1024} KiB) sums its processes ({len(mine)}, {cpu:.3f} s, {rss // 1024} KiB)")

    table = [f"{engine}: each tool invocation, tracer's record of the tool's process vs /usr/bin/time -v of "
             "that invocation (time CPU: user + system as time prints them, each cut to 10 ms; d ms: "
             "distance of tracer's CPU from the interval they leave)",
             f"{'step':<30} {'command':<56} {'time CPU s':>10} {'tracer CPU':>10} {'d ms':>5}"
             f" {'time RSS KiB':>12} {'tracer RSS':>10} {'d KiB':>5}"]
    n = 0
    for path in time_files:
        t = parse_time(path)
        hits = [p for p in procs if p["Command"] == t["cmd"]]
        check(len(hits) == 1, f"{engine}: {t['cmd'][:60]}: one process recorded ({len(hits)})")
        if len(hits) != 1:
            continue
        p = hits[0]
        c_ok, dist = cpu_ok(p["TotalCPU"], t["user"], t["sys"])
        tr_kb = p["MaxRSS"] // 1024
        r_ok = rss_ok(tr_kb, t["rss_kb"])
        table.append(f"{p['Step']:<30} {t['cmd'][:56]:<56} {t['user'] + t['sys']:>10.2f} {p['TotalCPU']:>10.3f}"
                     f" {dist * 1000:>5.1f} {t['rss_kb']:>12} {tr_kb:>10} {tr_kb - t['rss_kb']:>5}")
        check(c_ok, f"{engine}: {t['cmd'][:50]}: CPU {p['TotalCPU']:.3f} s vs time -v "
              f"{t['user']:.2f}+{t['sys']:.2f} s (interval distance {dist * 1000:.1f} ms)")
        check(r_ok, f"{engine}: {t['cmd'][:50]}: peak RSS {tr_kb} KiB vs time -v {t['rss_kb']} KiB")
        check(p["ExitCode"] == f"{t['exit']}:0", f"{engine}: {t['cmd'][:50]}: exit {p['ExitCode']}")
        n += 1
    check(n == len(time_files) and n >= 8, f"{engine}: {n} invocations compared with time -v")
    for line in table:
        print("| " + line)


def same(smk_path, nf_path):
    smk, _, _ = load_view(smk_path)
    nf, _, _ = load_view(nf_path)
    if smk is None or nf is None:
        check(False, "both views loaded")
        return
    for rule in STEPS:
        a, b = smk.get(rule), nf.get(step_name("nextflow", rule))
        if not a or not b:
            check(False, f"step {rule} in both")
            continue
        ta = {k: v["NProcs"] for k, v in a["tools"].items() if k not in ENGINE_TOOLS["snakemake"]}
        tb = {k: v["NProcs"] for k, v in b["tools"].items()}
        check(ta == tb and a["row"]["NJobs"] == b["row"]["NJobs"],
              f"same view: {rule} = {step_name('nextflow', rule)}: tools and processes {sorted(ta.items())}, "
              f"{a['row']['NJobs']} job(s)")


if __name__ == "__main__":
    if sys.argv[1] == "same":
        same(sys.argv[2], sys.argv[3])
    else:
        view(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    sys.exit(1 if failures else 0)
