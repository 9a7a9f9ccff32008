# tracer-jobstat --timeline against a workload of a known shape, sampled every 500 ms: one busy
# core for 3 s of CPU, then two busy processes for 3 s of CPU each, then 200 MiB held 2 s, then
# 64 MiB written and synced, then the shell sampled with dd reaped. The timeline must show that
# shape, in order, in its table, in -P and in --json (parsed strictly), its CPU must add up to
# the run's TotalCPU, and its writes to the 64 MiB (once: /proc/PID/io of the shell holds dd's
# writes once it has reaped dd). tracerd away for 3 s in another run: the intervals it missed say so and count the
# CPU once. Another user asking for a run's samples, by jobstat or by a request of their own
# making, is told nothing about it.
# lane: daemon cpu: 2
. "$(dirname "$0")/lib.sh"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C
write_config
sed -i 's/^SampleInterval = .*/SampleInterval = 500ms/' "$T/tracer.conf"
start_daemon || exit 1
BURN=$(prog cpuburn) || { fail "build cpuburn"; finish; exit 1; }

cat > "$T/work.sh" <<W
$BURN 3
$BURN 3 & $BURN 3 & wait
python3 -c "import time; b = bytes([1]) * (200 << 20); time.sleep(2)"
dd if=/dev/zero of=$T/out bs=1M count=64 conv=fsync status=none
rm -f $T/out
sleep 1.2
W
ctl run --name shape -- bash "$T/work.sh" 2> "$T/run.out"
check "the workload ran" grep -q "COMPLETED" "$T/run.out"

jobstat -j shape --timeline > "$T/table" 2> "$T/table.err"
check "table: exit 0, nothing on stderr" bash -c "[ $? -eq 0 ] && [ ! -s '$T/table.err' ]"
check "table: its header" grep -Eq '^JobID +Since +Time +NNodes +NProcs +Cores +CPUUtil +RSS +MemUtil +ReadBytes +WriteBytes +CPUWait +IOWait +Note' "$T/table"
jobstat -j shape --timeline -P > "$T/parsable"
jobstat -j shape --timeline --json > "$T/json"
jobstat -j shape -P -n -o TotalCPU --json > "$T/job.json"
jobstat -j shape --timeline --interval=2s --json > "$T/json2"

python3 - "$T" <<'PY' > "$T/checks" 2>&1
import json, sys
T = sys.argv[1]

def strict(path):
    def no_constant(name):
        raise ValueError("not JSON: " + name)
    with open(path, encoding="utf-8") as f:  # strict: control characters, NaN refused
        return json.loads(f.read(), parse_constant=no_constant)

def say(ok, what):
    print(("ok   " if ok else "FAIL ") + what)

doc = strict(T + "/json")
rows = doc["rows"]
total_cpu = strict(T + "/job.json")["jobs"][0]["TotalCPU"]
say(doc["warnings"] == [], "json: no warnings")
say(len(rows) >= 8 and all(r["JobID"] == rows[0]["JobID"] for r in rows),
    "json: %d intervals of the run" % len(rows))
say([r["Since"] for r in rows] == list(range(len(rows))),
    "json: 1 s intervals from the start, in order (%s)" % [r["Since"] for r in rows])
say(all(rows[i + 1]["Time"] - rows[i]["Time"] == 1 for i in range(len(rows) - 1)),
    "json: wall-clock times 1 s apart")
mib = 1 << 20
# the phases by what each interval shows: the processes running, the memory held (an interval
# where one phase ends and the next begins shows some of both)
big = lambda r: r["RSS"] is not None and r["RSS"] >= 195 * mib
one = [r for r in rows if r["NProcs"] == 2 and r["RSS"] < 50 * mib and r["Since"] < 3]
two = [r for r in rows if r["NProcs"] == 3 and not big(r)]
mem = [r for r in rows if big(r)]
say(len(one) >= 2, "one busy process (bash and it): %d intervals" % len(one))
say(len(two) >= 2, "two busy processes (bash and them): %d intervals" % len(two))
say(len(mem) >= 1 and all(r["RSS"] <= 240 * mib for r in mem),
    "200 MiB held: RSS %s MiB" % [round(r["RSS"] / mib) for r in mem])
say(one and two and mem and max(r["Since"] for r in one) < min(r["Since"] for r in two)
    and max(r["Since"] for r in two) < min(r["Since"] for r in mem), "the phases in order")
c1 = sum(r["Cores"] for r in one) / max(len(one), 1)
c2 = max((r["Cores"] for r in two), default=0)
say(c1 > 0.2 and c2 > 1.25 * c1, "cores: %.2f with one busy, up to %.2f with two" % (c1, c2))
# the interval before the first one holding it all may hold part of it: a slow machine takes
# most of a second to touch 200 MiB
say(mem and all(r["RSS"] < 50 * mib for r in rows if r["Since"] < mem[0]["Since"] - 1),
    "no large RSS before the allocation (the interval it began in aside)")
cpu = sum(r["TotalCPU"] for r in rows)
say(abs(cpu - total_cpu) <= 0.05 * total_cpu + 0.1,
    "the intervals' CPU adds up to the run's TotalCPU: %.2f s and %.2f s" % (cpu, total_cpu))
say(all(abs(r["Cores"] - r["TotalCPU"]) < 0.011 for r in rows[:-1]),
    "Cores: the CPU time of a whole 1 s interval")
written = sum(r["WriteBytes"] for r in rows)
say(63 * mib <= written <= 66 * mib, "the intervals' writes add up to 64 MiB: %.1f MiB" % (written / mib))
say(all(r["WriteBytes"] == 0 for r in one + two), "nothing written before dd")
say(all(r["WriteRate"] == r["WriteBytes"] for r in rows[:-1]), "rates of 1 s intervals: bytes/s")
# the last interval may hold no sampling round (the run ended before the next): its processes
# and RSS are then unknown, its CPU and I/O from the exits
say(all(r["Note"] is None for r in rows) and all(r["NNodes"] == 1 for r in rows[:-1])
    and rows[-1]["NNodes"] in (1, None), "one node, no gaps")
say(all(r["AllocCPUS"] is None and r["CPUUtil"] is None and r["MemUtil"] is None for r in rows),
    "a run outside Slurm: no allocation, no shares")
keys = ["JobID", "Since", "Time", "NNodes", "NProcs", "AllocCPUS", "TotalCPU", "Cores", "CPUUtil", "RSS",
        "MemUtil", "ReadBytes", "WriteBytes", "ReadRate", "WriteRate", "CPUWait", "IOWait", "Note"]
say(all(list(r) == keys for r in rows), "json: every field of the view")

# -P: the same intervals, one line each, as many fields as the header
lines = open(T + "/parsable", encoding="utf-8").read().splitlines()
head = lines[0].split("|")
say(head[:6] == ["JobID", "Since", "Time", "NNodes", "NProcs", "Cores"], "-P: header %s" % head)
say(len(lines) - 1 == len(rows) and all(len(l.split("|")) == len(head) for l in lines[1:]),
    "-P: %d lines of %d fields" % (len(lines) - 1, len(head)))
p_since = [l.split("|")[1] for l in lines[1:]]
say(p_since[:3] == ["00:00:00", "00:00:01", "00:00:02"], "-P: Since as elapsed time")
p_cores = [float(l.split("|")[5]) for l in lines[1:]]
say(all(abs(a - r["Cores"]) < 0.011 for a, r in zip(p_cores, rows)), "-P: the same cores as JSON")

# the table: one line per interval under the header and its dashes
table = open(T + "/table", encoding="utf-8").read().split("\n\n")[0].splitlines()
say(len(table) == len(rows) + 2, "table: %d lines" % len(table))

# 2 s intervals: half as many, the same CPU
rows2 = strict(T + "/json2")["rows"]
say(len(rows2) == (len(rows) + 1) // 2 and [r["Since"] for r in rows2] == list(range(0, 2 * len(rows2), 2)),
    "--interval=2s: %d intervals" % len(rows2))
say(abs(sum(r["Cores"] for r in rows2[:-1]) * 2 - sum(r["Cores"] for r in rows[:2 * (len(rows2) - 1)])) < 0.2,
    "--interval=2s: the same CPU")
PY
while read -r word what; do
  if [ "$word" = ok ]; then ok "$what"; else fail "$what"; fi
done < "$T/checks"
grep -v '^ok \|^FAIL ' "$T/checks" && fail "the checks' script: see above"
[ $FAILED -eq 0 ] || { cat "$T/table"; }

# options: whole seconds; --interval only with --timeline; finer than SampleInterval widened
jobstat -j shape --timeline --interval=500ms > /dev/null 2> "$T/err"
check "--interval=500ms: a usage error (exit 2)" bash -c "[ $? -eq 2 ] && grep -q 'whole seconds' '$T/err'"
jobstat -j shape --interval=5s > /dev/null 2> "$T/err"
check "--interval without --timeline: refused" bash -c "[ $? -ne 0 ] && grep -q 'timeline only' '$T/err'"
jobstat -j shape --timeline --tools > /dev/null 2>&1
check "--timeline with --tools: refused" [ $? -ne 0 ]
jobstat -j shape --timeline -o JobID,State > /dev/null 2> "$T/err"
check "-o State: no such field in timeline rows" grep -q "timeline rows" "$T/err"
sed -i 's/^SampleInterval = .*/SampleInterval = 5s/' "$T/tracer.conf" # the client's reading
jobstat -j shape --timeline --interval=1s --json > "$T/json5" 2> "$T/err"
check "--interval finer than SampleInterval: widened, said on stderr and in the warnings" \
  python3 -c "
import json, sys
d = json.load(open('$T/json5'))
assert d['rows'][1]['Since'] == 5 and 'widened' in d['warnings'][0], d['warnings']
assert 'widened' in open('$T/err').read()"
sed -i 's/^SampleInterval = .*/SampleInterval = 500ms/' "$T/tracer.conf"

# tracerd away for 3 s in the middle of a run (killed, its programs gone, then started again):
# the intervals it missed say so, what the process did meanwhile is spread over them, and it is
# counted once (the process found again after the restart is the same process)
ctl run --name gap -- "$BURN" 7 2> "$T/gap.out" &
GAP_RUN=$!
sleep 2
kill -9 $DAEMON_PID; wait $DAEMON_PID 2>/dev/null; DAEMON_PID=
rm -rf "$PINS"
sleep 3
start_daemon || { fail "restart"; finish; exit 1; }
wait $GAP_RUN
check "the run outlived tracerd's absence" grep -q "COMPLETED" "$T/gap.out"
jobstat -j gap --timeline --json > "$T/gap.json"
jobstat -j gap --json > "$T/gapjob.json"
check "the intervals tracerd missed say so; the CPU is counted once" python3 -c "
import json
rows = json.load(open('$T/gap.json'))['rows']
total = json.load(open('$T/gapjob.json'))['jobs'][0]['TotalCPU']
away = [r for r in rows if r['Note'] and r['Note'].startswith('tracerd away')]
cpu = sum(r['TotalCPU'] or 0 for r in rows)
print('    %d of %d intervals away, CPU %.2f s of %.2f s' % (len(away), len(rows), cpu, total))
assert 3 <= len(away) <= 6, [r['Note'] for r in rows]
assert all(r['Cores'] is not None and r['Cores'] > 0.2 for r in away)
assert all(r['Note'] is None for r in rows if r not in away)
assert abs(cpu - total) <= 0.05 * total + 0.1"

# another user: jobstat shows them nothing, and a samples request of their own for the run's
# unit (or a made-up one, or a malformed one) is refused without telling which (no unit at all
# is no unit found, as for processes and tools)
asnobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups env TRACER_CONF="$TRACER_CONF" "$@"; }
asnobody "$BUILD/tracer-jobstat" -N $NODE -j shape --timeline -P > "$T/other" 2> "$T/other.err"
check "another user: no row of the run (exit 1)" bash -c "[ $? -eq 1 ] && [ \$(wc -l < '$T/other') -le 1 ]"
unit=$(db "SELECT id FROM units WHERE name='shape'")
asnobody python3 - "$T/run/tracerd-$NODE.sock" "$unit" > "$T/raw" <<'PY'
import json, socket, sys
def ask(req):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    s.sendall((json.dumps(req) + "\n").encode())
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
    return json.loads(buf)
unit = int(sys.argv[2])
for req in ({"v": 1, "op": "samples", "unit": unit}, {"v": 1, "op": "samples", "unit": 999999},
            {"v": 1, "op": "samples", "unit": str(unit)}, {"v": 1, "op": "samples", "unit": -1},
            {"v": 1, "op": "samples"}):
    r = ask(req)
    print(r.get("code"), "samples" in r)
PY
check "raw samples requests: the run's and a made-up unit alike not_found, bad ones malformed" \
  bash -c "[ \"\$(tr '\n' ' ' < '$T/raw')\" = 'not_found False not_found False malformed False malformed False not_found False ' ]"
[ $FAILED -eq 0 ] || cat "$T/raw"
check "tracerd still answers" ctl status > /dev/null
finish
