# tracer-jobstat on real jobs of the test cluster (tests/slurm-docker/cluster): -P parses by
# sacct's rules, Elapsed/AllocCPUS/ReqMem/State equal sacct's, TotalCPU within 2 % of sacct's,
# rightsizing of a 2-CPU job that uses one core and 300 MiB, and of the hard cases (an OOM kill,
# 2 nodes, a tiny job, an array, a TIMEOUT), a failing pipeline named, array summaries,
# per-tool and per-process views, a node whose tracerd cannot be reached, another user's job
# refused, exit statuses and messages.
# The cluster is shared: it is brought up (idempotent) and left running.
# lane: cluster nodes: 2 cpu: 1
. "$(dirname "$0")/lib.sh"
cluster_up
JS=$BUILD/tracer-jobstat
JOBS=$T/jobs; mkdir -p "$JOBS"; chmod 777 "$JOBS"

secs() { # sacct's [D-][HH:]MM:SS[.mmm] to seconds
  awk -F'[-:]' '{ n = NF; s = $n + 60 * $(n - 1); if (n >= 3) s += 3600 * $(n - 2); if (n >= 4) s += 86400 * $(n - 3); printf "%.3f\n", s }' <<< "$1"
}
within() { awk -v m="$1" -v r="$2" -v rel="$3" 'BEGIN { d = m - r; if (d < 0) d = -d; exit !(d <= rel * r) }'; }

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

# --- the jobs: the rightsizing case alone on N1, the others on N2 (2 CPUs per node)
JA=$(submit tracertest "-w $N1 -c 2 --mem=4000M -t 10 -J hold300 -o /dev/null --wrap '$JOBS/hold 300 25'")
cat > "$JOBS/steps.sh" <<JOB
#!/bin/bash
#SBATCH -w $N2 -n2 --mem=600M -t 5 -o /dev/null
$JOBS/hold 0 1.5
srun -n2 $JOBS/hold 20 1.2
srun -n1 bash -c '$JOBS/hold 50 1; for i in \$(seq 20); do /bin/true; done'
JOB
chmod 644 "$JOBS/steps.sh"
JB=$(submit tracertest "$JOBS/steps.sh")
JC=$(submit tracertest "-w $N2 -n1 --mem=100M -J 'pipe|name' -o /dev/null --wrap '$JOBS/hold 0 1.1'")
JD=$(submit tracertest "-w $N2 --array=1-3 -n1 --mem=50M -o /dev/null --wrap '$JOBS/hold 0 0.\$SLURM_ARRAY_TASK_ID'")
JD=${JD%%_*}
JE=$(submit tracertest "-N2 -w $BOTH -n2 --mem=200M -o /dev/null --wrap 'srun -N2 -n2 $JOBS/hold 10 1.2'")
# the hard cases of rightsizing: an OOM kill at a fifth of the need, 2 nodes of 60 MiB each,
# a tiny job, a failing pipeline, a time limit hit (all but the 2-node one, which runs after
# the CPU-bound jobs, leave the CPUs to the others: both nodes share this host's)
JF=$(submit tracertest "-w $N2 --mem=60M -J oom -o /dev/null --wrap '$JOBS/hold 300 2'")
JH=$(submit tracertest "-w $N2 --mem=2M -J tiny -o /dev/null --wrap /bin/true")
JI=$(submit tracertest "-w $N2 --mem=100M -J pipe -o /dev/null --wrap 'ls /nonexistent | grep x; exit 3'")
JT=$(submit tracertest "-w $N2 -t 1 -J slow -o /dev/null --wrap 'sleep 300'")
check "jobs ran and ended ($JA $JB $JC ${JD}_[1-3] $JE $JF $JH $JI)" \
  wait_ended "$JA" "$JB" "$JC" "$JD" "$JE" "$JF" "$JH" "$JI"
JG=$(submit tracertest "-N2 -w $BOTH -n2 --mem=100M -J twonode -o /dev/null --wrap 'srun -N2 -n2 $JOBS/hold 60 1.2'")

# --- -P parses by sacct's rules: one field per column on every line, none added at the end;
# -p: a delimiter at the end of every line
for j in "$JA" "$JB" "$JE"; do
  out=$("$JS" -j "$j" -P 2>/dev/null)
  cols=$(head -1 <<< "$out" | awk -F'|' '{ print NF }')
  check "-P for $j: $(wc -l <<< "$out") lines of $cols fields" \
    [ "$(awk -F'|' -v n="$cols" 'NF != n' <<< "$out" | wc -l)" -eq 0 -a "$cols" -ge 10 ]
done
check "-p: every line ends with the delimiter" \
  bash -c "'$JS' -j $JB -p | awk '!/\\|\$/ { bad++ } END { exit bad > 0 }'"

# --- golden: JobID, Elapsed, AllocCPUS, ReqMem, State as sacct prints them, every row
for j in "$JA" "$JB" "$JC" "$JE" "${JD}_2"; do
  mine=$("$JS" -j "$j" -P -n -o JobID,Elapsed,AllocCPUS,ReqMem,State 2>&1)
  theirs=$(sacct -j "$j" -P -n -o JobID,Elapsed,AllocCPUS,ReqMem,State)
  if [ "$mine" = "$theirs" ]; then ok "job $j: JobID, Elapsed, AllocCPUS, ReqMem, State equal sacct's ($(wc -l <<< "$mine") rows)"
  else fail "job $j differs from sacct"; diff <(echo "$mine") <(echo "$theirs") | head; fi
done
for j in "$JA" "$JE" "$JF"; do
  mine=$("$JS" -j "$j" -P -n -o JobID,Account,QOS,Submit,Reserved 2>&1)
  theirs=$(sacct -j "$j" -P -n -o JobID,Account,QOS,Submit,Reserved)
  if [ "$mine" = "$theirs" ]; then ok "job $j: Account, QOS, Submit, Reserved equal sacct's ($(head -1 <<< "$mine"))"
  else fail "job $j: Account, QOS, Submit, Reserved differ from sacct's"; diff <(echo "$mine") <(echo "$theirs") | head; fi
done
check "job $JC: the aligned view cuts JobName as sacct does" \
  bash -c "[ \"\$('$JS' -j $JC -X -n -o JobName | head -1)\" = \"\$(sacct -j $JC -X -n -o JobName)\" ]"

# --- TotalCPU within 2 % of sacct's, for the rows with at least a second of CPU
n=0
while IFS='|' read -r id mine; do
  theirs=$(sacct -j "${id%%.*}" -P -n -o JobID,TotalCPU | awk -F'|' -v id="$id" '$1 "" == id "" { print $2 }')
  a=$(secs "$mine") b=$(secs "$theirs")
  awk -v b="$b" 'BEGIN { exit !(b >= 1) }' || continue
  n=$((n + 1))
  check "$id: TotalCPU $mine within 2% of sacct's $theirs" within "$a" "$b" 0.02
done < <("$JS" -j "$JA,$JB,$JC,$JE" -P -n -o JobID,TotalCPU)
check "TotalCPU compared on at least 8 rows ($n)" [ "$n" -ge 8 ]

# --- a '|' in a job name: -P breaks a line (as sacct's does, with a warning), --delimiter not
line=$("$JS" -j "$JC" -X -P -n -o JobID,JobName,State 2>"$T/err")
check "-P with '|' in the name: 4 fields where 3 were asked (sacct's rule)" [ "$(awk -F'|' '{ print NF }' <<< "$line")" -eq 4 ]
check "... and a warning names --delimiter" grep -q -- "--delimiter" "$T/err"
line=$("$JS" -j "$JC" -X -P -n --delimiter=';' -o JobID,JobName,State)
check "--delimiter=';': 3 fields, the name whole ($line)" \
  [ "$(awk -F';' '{ print NF "/" $2 }' <<< "$line")" = "3/pipe|name" ]

# --- rightsizing: 2 CPUs and 4000M asked, one core busy and 300 MiB resident
sug=$("$JS" -j "$JA" -X -P -n -o Suggest)
echo "  job $JA suggests: $sug"
check "one busy core: --cpus-per-task=1" grep -q -- "--cpus-per-task=1" <<< "$sug"
mem=$(grep -o -- '--mem=[0-9]*M' <<< "$sug" | grep -o '[0-9]*')
check "300 MiB resident: --mem=${mem}M, about 360M (330-400)" awk -v m="${mem:-0}" 'BEGIN { exit !(m >= 330 && m <= 400) }'
check "a --time for the completed job" grep -q -- "--time=00:01:00" <<< "$sug"
notes=$("$JS" -j "$JA")
echo "$notes" | sed -n '/^Job /,$p' | sed 's/^/  | /'
check "notes: used 1 of 2 allocated cores" grep -q "used 1 of 2 allocated cores" <<< "$notes"
check "notes: busy cores from live samples (SampleInterval 10s, 25 s job)" grep -q "from live samples" <<< "$notes"
# one busy core of two: about 50 % on a quiet machine; on a loaded one the job waits for the CPU,
# so the check is seff's formula on the row's own figures, and at most half
IFS='|' read -r eff tcpu el ncpu < <("$JS" -j "$JA" -X -P -n -o CPUEff,TotalCPU,Elapsed,AllocCPUS --units=K)
secs() { awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }' <<< "$1"; }
echo "  CPUEff $eff: TotalCPU $tcpu, Elapsed $el, AllocCPUS $ncpu"
check "CPUEff is TotalCPU / (Elapsed x AllocCPUS), at most 50 % (one of two cores)" \
  awk -v e="${eff%\%}" -v t="$(secs "$tcpu")" -v w="$(secs "$el")" -v n="$ncpu" \
    'BEGIN { x = 100 * t / (w * n); d = e - x; if (d < 0) d = -d; exit !(w > 0 && d <= 2 && e <= 52 && e > 20) }'

# --- rightsizing that learns from failure
mem_of() { grep -o -- '--mem=[0-9]*M' <<< "$1" | grep -o '[0-9]*'; }
sug=$("$JS" -j "$JF" -X -P -n -o Suggest)
notes=$("$JS" -j "$JF")
echo "$notes" | sed -n '/^Job /,$p' | sed 's/^/  | /'
check "OOM-killed at 60M (needs 300M): --mem=$(mem_of "$sug")M, at least twice the limit" \
  [ "$(mem_of "$sug")" -ge 120 ]
check "... the notes say it needed more than its limit" grep -q "killed by the OOM killer at its 60M limit.*needed more than the limit" <<< "$notes"
victim=$("$JS" -j "$JF" --processes -P -n -o PID,Tool | awk -F'|' '$2 == "hold" { print $1 }')
check "... and name the victim (hold, PID $victim, step $JF.batch)" \
  grep -q "the OOM killer stopped process $victim (hold, step $JF.batch): $JOBS/hold 300 2" <<< "$notes"
check "... its Tool is the victim's" [ "$("$JS" -j "$JF" -X -P -n -o Tool)" = hold ]
red_not_green() { grep -q $'\033\[31m' <<< "$1" && ! grep -q $'\033\[32m' <<< "$1"; }
check "... its MemEff is red on a terminal, never green" \
  red_not_green "$(script -qec "'$JS' -j $JF -X -n -o JobID,MemEff" /dev/null)"

check "2-node job $JG and TIMEOUT job $JT ended" wait_ended "$JG" "$JT"
peak=$("$JS" -j "$JG" -X -P -n --units=M -o PeakMem | tr -d M)
sug=$("$JS" -j "$JG" -X -P -n -o Suggest)
check "2 nodes, PeakMem ${peak}M summed: --mem=$(mem_of "$sug")M is per node (below 1.2 x the sum, at least 1.2 x half)" \
  awk -v m="$(mem_of "$sug")" -v p="$peak" 'BEGIN { exit !(m < 1.2 * p * 0.9 && m >= 1.2 * p / 2) }'
check "... the notes give the highest node against --mem per node" \
  bash -c "'$JS' -j $JG | grep -q 'over 2 nodes, .* on the highest, of 100M requested per node'"
check "... MaxRSSNode names that node, one of its 2 ($("$JS" -j "$JG" -X -P -n -o MaxRSSNode))" \
  bash -c "'$JS' -j $JG -X -P -n -o MaxRSSNode | grep -qxE '$N1|$N2'"

peak=$("$JS" -j "$JH" -X -P -n --units=M -o PeakMem | tr -d M)
sug=$("$JS" -j "$JH" -X -P -n -o Suggest)
check "tiny job (PeakMem ${peak}M, --mem=2M): --mem=$(mem_of "$sug")M, not below Slurm's smallest limit nor 1.2 x its peak" \
  awk -v m="$(mem_of "$sug")" -v p="$peak" 'BEGIN { exit !(m >= 30 && m >= 1.2 * p) }'
check "... the notes say why" bash -c "'$JS' -j $JH | grep -q \"Slurm's smallest memory limit\""

notes=$("$JS" -j "$JD")
check "array $JD: one recommendation for its 3 tasks" [ "$(grep -c 'next time' <<< "$notes")" -eq 1 ]
check "... from the highest needs of its tasks" grep -q "next time, for every task of array $JD (from the highest needs of its 3 tasks)" <<< "$notes"
check "... the same in --array-summary's Suggest" \
  [ "$("$JS" -j "$JD" --array-summary -P -n -o Suggest)" = "$(sed -n 's/.*of its 3 tasks): //p' <<< "$notes")" ]

sug=$("$JS" -j "$JT" -X -P -n -o Suggest)
t=$(grep -o -- '--time=[0-9:]*' <<< "$sug" | cut -d= -f2)
check "TIMEOUT at a 1-minute limit: a --time above it ($sug)" bash -c "[ -n '$t' ] && [[ '$t' > 00:01:00 ]]"

notes=$("$JS" -j "$JI")
lspid=$("$JS" -j "$JI" --processes -P -n -o PID,Tool,ExitCode | awk -F'|' '$2 == "ls" { print $1 "|" $3 }')
echo "$notes" | sed -n '/^Job /,$p' | sed 's/^/  | /'
check "failing pipeline: the notes name the first process that failed (ls, PID ${lspid%|*}, exit ${lspid#*|})" \
  grep -q "first to fail: process ${lspid%|*} (ls, step $JI.batch) exited with 2 .*: ls /nonexistent" <<< "$notes"
check "... its Tool is ls" [ "$("$JS" -j "$JI" -X -P -n -o Tool)" = ls ]
check "... --tools shows the failing plumbing (ls 2:0, grep 1:0)" \
  bash -c "'$JS' -j $JI --tools -P -n -o Tool,ExitCodes | grep -qx 'ls|2:0(1)' && '$JS' -j $JI --tools -P -n -o Tool,ExitCodes | grep -qx 'grep|1:0(1)'"

# --- per-tool, per-process and tree views agree with the job row
np=$("$JS" -j "$JB" -X -P -n -o NProcs)
check "--processes: one row per recorded process ($np)" [ "$("$JS" -j "$JB" --processes -P -n | wc -l)" -eq "$np" ]
check "--tools: the tool 'hold' in the batch step and step 0" \
  [ "$("$JS" -j "$JB" --tools -P -n -o JobID,Tool | grep -c '|hold$')" -ge 2 ]
# /bin/true is shell plumbing by etc/tools.rules: listed as a process, not as a tool
check "--tools: no 'true' tool (plumbing), yet its 20 processes are listed" \
  bash -c "! '$JS' -j $JB --tools -P -n -o JobID,Tool | grep -q '|true$' && [ \$('$JS' -j $JB.1 --processes -P -n -o Tool | grep -cx true) -eq 20 ]"
# the tool rows (grouped in tracerd's store) are the step's processes grouped by Tool
"$JS" -j "$JB" --tools --json > "$T/tools.json"; "$JS" -j "$JB" --processes --json > "$T/procs.json"
check "--tools: each row sums its step's processes of that tool (NProcs, CPU, own RSS, I/O, exit codes)" python3 - "$T/tools.json" "$T/procs.json" <<'PY'
import collections, json, sys
tools = json.load(open(sys.argv[1]))["rows"]
procs = json.load(open(sys.argv[2]))["rows"]
assert tools, "no tool rows"
for t in tools:
    mine = [p for p in procs if p["JobID"] == t["JobID"] and p["Tool"] == t["Tool"]]
    # MaxRSS and exit codes are the tool's own: not those of a wrapper that ran it (srun here)
    wrapped = [p for p in mine if p["Command"].split(" ")[0].rsplit("/", 1)[-1] not in ("srun", "env", "time")]
    own = wrapped or mine
    codes = collections.Counter(p["ExitCode"] for p in wrapped)
    want = (len(mine), max(p["MaxRSS"] for p in own),
            sum(p["ReadChars"] for p in mine), sorted(f"{c}({n})" for c, n in codes.items()))
    got = (t["NProcs"], t["MaxRSS"], t["ReadChars"], sorted(c for c in (t["ExitCodes"] or "").split(",") if c))
    assert want == got, f"{t['JobID']} {t['Tool']}: tools {got} processes {want}"
    # each process's CPU is printed to the ms: their sum may differ from the tool's by 1 ms each
    cpu = sum(p["TotalCPU"] for p in mine)
    assert abs(cpu - t["TotalCPU"]) <= 0.001 * len(mine) + 1e-9, f"{t['JobID']} {t['Tool']}: CPU {t['TotalCPU']} {cpu}"
PY
check "--tree: each step's root holds every process of it" \
  bash -c "[ \"\$('$JS' -j $JB.1 --tree -P -n -o PID,Tree,NProcs | head -1 | cut -d'|' -f3)\" = \"\$('$JS' -j $JB.1 -P -n -o NProcs)\" ]"

# --- arrays
check "-j ${JD}_[1-2]: two tasks" [ "$("$JS" -j "${JD}_[1-2]" -X -P -n -o JobID | tr '\n' ' ')" = "${JD}_1 ${JD}_2 " ]
line=$("$JS" -j "$JD" --array-summary -P -n -o JobID,NJobs,State,NProcs)
check "--array-summary: one row for the 3 tasks ($line)" grep -qx "${JD}_\[1-3\]|3|COMPLETED:3|2/2/2" <<< "$line" # sh and hold

# --- a 2-node step: one row, figures of both nodes; a node that cannot be asked is named
check "job $JE: step 0 has 2 processes from 2 nodes" [ "$("$JS" -j "$JE.0" -P -n -o NProcs,NNodes)" = "2|2" ]
mkdir -p "$T/onlyn1"
ln -s "$BASE/run/tracerd-$N1.sock" "$T/onlyn1/tracerd-$N1.sock"
# (no NodePorts either: N2 is then reachable neither by socket nor over TCP)
sed -e "s|^SocketDir.*|SocketDir = $T/onlyn1|" -e "/^NodePorts/d" "$TRACER_CONF" > "$T/onlyn1.conf"
out=$("$JS" -c "$T/onlyn1.conf" -j "$JE.0" -P -n -o NProcs 2>"$T/err")
check "tracerd of $N2 unreachable: a warning names $N2 and the job ($(head -1 "$T/err"))" \
  grep -q "warning: node $N2: .*$JE" "$T/err"
check "... and the step shows $N1's process only ($out)" [ "$out" = 1 ]

# --- JSON
check "--json: jobs with steps and notes" bash -c "'$JS' -j $JB --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
j = d[\"jobs\"][0]
assert j[\"JobID\"] == \"$JB\" and len(j[\"steps\"]) == 4 and isinstance(j[\"notes\"], list), j
assert j[\"TotalCPU\"] > 1 and j[\"ReqMem\"] == 600 * 2**20
'"

# --- colours: on a terminal only, never with NO_COLOR or -P
tty_out=$(script -qec "'$JS' -j $JA -X -o JobID,CPUEff,MemEff" /dev/null)
check "colours on a terminal" grep -q $'\033\[3[12]m' <<< "$tty_out"
check "no colours with NO_COLOR" bash -c "! script -qec \"NO_COLOR=1 '$JS' -j $JA -X\" /dev/null | grep -q \$'\\033'"
check "no colours in -P on a terminal" bash -c "! script -qec \"'$JS' -j $JA -X -P\" /dev/null | grep -q \$'\\033'"
check "no colours into a pipe" bash -c "! '$JS' -j $JA -X | grep -q \$'\\033'"

# --- another user: a clear message and none of the job's data
out=$(as tracertest2 "'$JS' -j $JB" 2>"$T/err"); rc=$?
check "tracertest2 asking for tracertest's job $JB: exit status 1 ($rc)" [ "$rc" -eq 1 ]
check "... no data on stdout" [ -z "$out" ]
check "... a clear message ($(cat "$T/err"))" grep -q "job $JB belongs to user tracertest: you may see only your own jobs" "$T/err"
check "tracertest sees the job" bash -c "su tracertest -c \"SLURM_CONF=$SLURM_CONF TRACER_CONF=$TRACER_CONF '$JS' -j $JB -X -P -n -o JobID\" | grep -qx $JB"
check "tracertest2's listing (-a) hides tracertest's jobs" \
  bash -c "! su tracertest2 -c \"SLURM_CONF=$SLURM_CONF TRACER_CONF=$TRACER_CONF '$JS' -a -X -P -n -o User -S now-1hours\" 2>/dev/null | grep -qx tracertest"

# --- exit statuses and messages (sacct's, and tracer-jobstat(1)'s)
status() { "$@" > "$T/out" 2> "$T/err"; echo $?; }
check "-n prints rows only, no notes" bash -c "! '$JS' -j $JA -n | grep -q '^Job \|next time'"
rc=$(status "$JS" -S 15:17 -E 15:16)
check "-E before -S: exit 2 ($(cat "$T/err"))" bash -c "[ $rc -eq 2 ] && grep -q 'end time -E 15:16 .* is before start time -S 15:17' '$T/err'"
rc=$(status "$JS" -E now-2days -X)
check "-E alone before midnight (sacct's default start): exit 2 ($(cat "$T/err"))" \
  bash -c "[ $rc -eq 2 ] && grep -q 'is before the start time, midnight' '$T/err'"
# a window of today whatever the time of day: both ends in sacct's 12-hour form
rc=$(status "$JS" -S 12:00AM -E 11:59PM -X -n -o JobID)
check "-S 12:00AM -E 11:59PM is read as sacct reads it (exit $rc, not 2)" [ "$rc" -ne 2 ]
# (of a user who runs no job: other tests' jobs may be running, and a running job is in any window)
rc=$(status "$JS" -S now+1hours -u daemon -X)
check "an empty answer exits 1 with a message ($(cat "$T/err"))" bash -c "[ $rc -eq 1 ] && grep -q 'no job or run matches' '$T/err'"
rc=$(status "$JS" -j "$JA" -S now+1hours -X -n -o JobID)
check "a job outside -S/-E filled in from tracerd says so ($(head -c 90 "$T/err")...)" \
  bash -c "[ $rc -eq 0 ] && grep -q \"warning: job $JA is not in Slurm's accounting for this -S/-E window\" '$T/err'"
rc=$(status "$JS" -j "$JB" -X --tools)
check "-X with --tools refused: exit 2 ($(cat "$T/err"))" bash -c "[ $rc -eq 2 ] && grep -q -- '-X (--allocations) does not apply to --tools' '$T/err'"
rc=$(status "$JS" -j "$JB" -X --signals)
check "-X with --signals refused, naming --signals: exit 2 ($(cat "$T/err"))" \
  bash -c "[ $rc -eq 2 ] && grep -q -- '-X (--allocations) does not apply to --signals: its rows are per step and tool' '$T/err'"
rc=$(status "$JS" -j 12x)
check "-j 12x is a run's name (no id): none, exit 1 ($(cat "$T/err"))" \
  bash -c "[ $rc -eq 1 ] && grep -q \"no job or run '12x'\" '$T/err'"
# what a usage error quotes of the user's arguments is escaped: no terminal control gets through
escaped_usage_error() { # ARGS...: exit 2, the ESC shown as \x1b, no raw ESC on stderr
  local rc
  rc=$(status "$JS" "$@")
  [ "$rc" -eq 2 ] && grep -qF 'x\x1b[31my' "$T/err" && ! grep -q $'\033' "$T/err"
}
for args in "-S|x"$'\033'"[31my" "-u|x"$'\033'"[31my" "-s|x"$'\033'"[31my" "-o|x"$'\033'"[31my" \
  "-j|1|x"$'\033'"[31my"; do
  IFS='|' read -r -a argv <<< "$args"
  check "a usage error quoting ${argv[0]}'s value escapes it" \
    escaped_usage_error "${argv[@]}"
done
rc=$(status "$JS" -j ,)
check "-j , is bad usage: exit 2 ($(cat "$T/err"))" bash -c "[ $rc -eq 2 ] && grep -q 'no job given' '$T/err'"
rc=$(status "$JS" -j "$JB.7")
check "-j $JB.7 (no such step): exit 1, said ($(cat "$T/err"))" \
  bash -c "[ $rc -eq 1 ] && [ ! -s '$T/out' ] && grep -qx \"tracer-jobstat: job $JB has no step 7 in Slurm's accounting\" '$T/err'"
rc=$(status "$JS" -j "$JB.7,$JB.batch" -n -P -o JobID)
check "-j $JB.7,$JB.batch: the step that exists is shown, exit 0 ($(cat "$T/out"))" \
  bash -c "[ $rc -eq 0 ] && grep -qx '$JB.batch' '$T/out' && grep -q 'has no step 7' '$T/err'"
rc=$(TRACER_JOBSTAT_FORMAT=JobID,Bogus status "$JS" -j "$JB")
check "a bad field in TRACER_JOBSTAT_FORMAT names the variable: exit 2 ($(cat "$T/err"))" \
  bash -c "[ $rc -eq 2 ] && grep -q '^tracer-jobstat: TRACER_JOBSTAT_FORMAT: Invalid field requested: \"Bogus\"' '$T/err'"
rc=$(status "$JS" -j "$JB" --workflow -o Step,State,CPUEff,PeakMem)
check "--workflow refuses the fields its rows do not fill, naming them: exit 2 ($(cat "$T/err"))" \
  bash -c "[ $rc -eq 2 ] && grep -q 'fields CPUEff, PeakMem do not apply to workflow rows' '$T/err'"
check "State and JobName widen to their values instead of '+'" \
  bash -c "'$JS' -j $JF -X | grep -q 'OUT_OF_MEMORY' && ! '$JS' -j $JF -X | grep -q '+ '"
rc=$(status "$BUILD/tracerctl" register --uid 0 --pid 999999)
check "tracerctl register --pid 999999: exit 1, \"$(cat "$T/err")\"" \
  bash -c "[ $rc -eq 1 ] && grep -qx 'tracerctl register: process 999999 does not exist' '$T/err'"
rc=$(status "$BUILD/tracerd" -f -N $N1 -c "$TRACER_CONF")
check "a second tracerd for $N1 refuses: exit 1 ($(tail -1 "$T/err"))" \
  bash -c "[ $rc -eq 1 ] && grep -q 'node $N1 is already served by another tracerd, pid [0-9]*' '$T/err'"
check "... and $N1's tracerd still answers" bash -c "'$BUILD/tracerctl' -N $N1 status > /dev/null"

# --- usage errors
check "an unknown field is an error (2)" bash -c "'$JS' -j $JB -o Bogus 2>/dev/null; [ \$? -eq 2 ]"
check "--helpformat lists Suggest" bash -c "'$JS' --helpformat | grep -q Suggest"
# the man pages render with no words run together (a sentence after a .BR/.IR on its line)
if command -v man > /dev/null; then
  glued=$(for m in "$TOP"/man/*.[0-9]; do MANWIDTH=100 man -l "$m" 2>/dev/null | grep -E '[a-z]\)*\.[A-Z][a-z]|[a-z]{20,}' | sed "s|^|$(basename "$m"): |"; done)
  check "the man pages have no run-together words${glued:+: $glued}" [ -z "$glued" ]
fi
finish
