# tracer-jobstat --timeline of a 2-node job on the test cluster (tests/slurm-docker/cluster,
# SampleInterval 1s): a step whose two tasks each hold 60 MiB and burn 4 s of CPU, one on each
# node. Its intervals are summed over both nodes' tracerds (asked over their sockets, then over
# TCP with MUNGE credentials: the same rows): NNodes 2 while both ran, RSS the
# sum of the two tasks' 60 MiB, Cores adding up to the step's TotalCPU, CPUUtil and MemUtil
# against its allocation; the job's own rows sum its steps. Another user sees none of it.
# The cluster is shared: it is brought up (idempotent) and left running.
# lane: cluster nodes: 2 cpu: 0.5
. "$(dirname "$0")/lib.sh"
cluster_up
JOBS=$T/jobs; mkdir -p "$JOBS"; chmod 777 "$JOBS"

# hold MIB SECONDS: keep MIB MiB resident while one core spins for SECONDS of CPU time
cat > "$JOBS/hold.c" <<'C'
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(int argc, char **argv)
{
        size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 0;
        double secs = argc > 2 ? atof(argv[2]) : 1, t0 = now();
        volatile unsigned long x = 0;
        char *p = mib ? malloc(mib << 20) : NULL;
        if (p) memset(p, 1, mib << 20);
        while (now() - t0 < secs) for (int i = 0; i < 100000; i++) x += i;
        return p ? p[mib] != 1 : 0;
}
C
gcc -O1 -o "$JOBS/hold" "$JOBS/hold.c" || { fail "build the job program"; finish; exit 1; }
chmod 755 "$JOBS/hold"

J=$(submit tracertest "-N2 -w $BOTH -n2 --mem=200M -t 5 -J tl2 -o /dev/null --wrap 'sleep 1; srun -N2 -n2 $JOBS/hold 60 4'")
check "the 2-node job $J ran" wait_ended "$J"
as tracertest "$BUILD/tracer-jobstat -j $J --timeline --json" > "$T/tl.json" 2> "$T/tl.err"
as tracertest "$BUILD/tracer-jobstat -j $J --json" > "$T/job.json"
as tracertest "$BUILD/tracer-jobstat -j $J --timeline -P" > "$T/tl.P"
as tracertest "$BUILD/tracer-jobstat -j $J --timeline" > "$T/tl.table"
cat "$T/tl.table"

python3 - "$T" "$J" <<'PY' > "$T/checks" 2>&1
import json, sys
T, J = sys.argv[1], sys.argv[2]
def no_constant(name):
    raise ValueError("not JSON: " + name)
def strict(path):
    with open(path, encoding="utf-8") as f:
        return json.loads(f.read(), parse_constant=no_constant)
def say(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
mib = 1 << 20
doc, job = strict(T + "/tl.json"), strict(T + "/job.json")["jobs"][0]
rows = doc["rows"]
step = {s["JobID"]: s for s in job["steps"]}[J + ".0"]
say(doc["warnings"] == [], "no warnings: every node answered (%s)" % doc["warnings"])
ids = [r["JobID"] for r in rows]
say(ids[0] == J and ids.index(J + ".batch") < ids.index(J + ".0"),
    "the job's intervals first, then each step's: %s" % sorted(set(ids)))
s0 = [r for r in rows if r["JobID"] == J + ".0"]
both = [r for r in s0 if r["NNodes"] == 2]
say(len(both) >= 2, "step 0 sampled on both nodes in %d intervals" % len(both))
say(any(110 * mib <= (r["RSS"] or 0) <= 160 * mib for r in both),
    "step 0's RSS: both tasks' 60 MiB (%s MiB)" % [round((r["RSS"] or 0) / mib) for r in both])
say(all(r["AllocCPUS"] == step["AllocCPUS"] for r in s0) and
    all(r["CPUUtil"] is None or abs(r["CPUUtil"] - 100 * r["Cores"] / step["AllocCPUS"]) < 1 for r in s0),
    "CPUUtil: Cores of the step's %s CPUs" % step["AllocCPUS"])
say(any(r["MemUtil"] is not None and r["MemUtil"] > 0 for r in s0), "MemUtil against the step's memory")
cpu = sum(r["TotalCPU"] or 0 for r in s0)
say(abs(cpu - step["TotalCPU"]) <= 0.05 * step["TotalCPU"] + 0.1,
    "step 0's intervals add up to its TotalCPU: %.2f s and %.2f s" % (cpu, step["TotalCPU"]))
total = [r for r in rows if r["JobID"] == J]
by_since = {}
for r in rows:
    if r["JobID"] != J and r["TotalCPU"] is not None:
        by_since[r["Since"]] = by_since.get(r["Since"], 0) + r["TotalCPU"]
say(total and all(abs((r["TotalCPU"] or 0) - by_since.get(r["Since"], 0)) < 0.005 for r in total),
    "the job's intervals sum its steps'")
lines = open(T + "/tl.P", encoding="utf-8").read().splitlines()
say(len(lines) - 1 == len(rows) and all(len(l.split("|")) == 14 for l in lines),
    "-P: %d rows of 14 fields" % (len(lines) - 1))
PY
while read -r word what; do
  if [ "$word" = ok ]; then ok "$what"; else fail "$what"; fi
done < "$T/checks"
grep -v '^ok \|^FAIL ' "$T/checks" && fail "the checks' script: see above"

# the same from a host without the nodes' sockets: both asked over TCP with MUNGE credentials
mkdir -p "$T/nosock"
sed "s|^SocketDir = .*|SocketDir = $T/nosock|" "$TRACER_CONF" > "$T/tcp.conf"
chmod 644 "$T/tcp.conf"
as tracertest "$BUILD/tracer-jobstat -c $T/tcp.conf -j $J --timeline --json" > "$T/tcp.json" 2> "$T/tcp.err"
check "over TCP: the same intervals as over the local sockets" \
  python3 -c "import json; assert json.load(open('$T/tcp.json')) == json.load(open('$T/tl.json'))"
[ $FAILED -eq 0 ] || cat "$T/tcp.err"

as tracertest2 "$BUILD/tracer-jobstat -j $J --timeline -P" > "$T/other" 2> "$T/other.err"
check "another user: none of the job's intervals" bash -c "[ \$(wc -l < '$T/other') -le 1 ]"
finish
