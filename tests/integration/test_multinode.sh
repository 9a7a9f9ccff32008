# Running jobs, run ids and several nodes on the test cluster (tests/slurm-docker/cluster): a
# running job's processes with their CPU now (against sstat's), NProcs and TotalCPU counting
# them; nodes whose names do not resolve reached at Slurm's NodeAddr and their NodePorts port,
# with Node and Task columns for a 2-node step; tracerctl -H by address; the hint tracerctl run
# prints run as printed by another user; runs of one name told apart; a run inside a job owns
# its root process. The cluster is shared: it is brought up (idempotent) and left running.
# lane: cluster nodes: 2 cpu: 1
. "$(dirname "$0")/lib.sh"
cluster_up
JS=$BUILD/tracer-jobstat
CTL=$BUILD/tracerctl
as() { local u=$1; shift; su "$u" -c "cd '$T' && SLURM_CONF=$SLURM_CONF TRACER_CONF=$TRACER_CONF $*"; }
within() { awk -v m="$1" -v r="$2" -v rel="$3" 'BEGIN { d = m - r; if (d < 0) d = -d; exit !(d <= rel * r) }'; }
secs() { awk -F'[-:]' '{ n = NF; s = $n + 60 * $(n - 1); if (n >= 3) s += 3600 * $(n - 2); printf "%.3f\n", s }' <<< "$1"; }
wait_gone() { for _ in $(seq 600); do [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0; sleep 0.1; done; return 1; }
cat > "$T/spin.c" <<'C'
int main(void) { volatile unsigned long x = 0; for (;;) x++; }
C
gcc -O1 -o "$T/spin" "$T/spin.c" || { fail "build the spinner"; finish; exit 1; }

# --- a running job: its processes now, with their CPU so far (sstat's AveCPU of its one
# task is whole seconds: compared after 20 s of CPU, between two sstat readings)
J=$(as tracertest "sbatch --parsable -w $N1 -n1 --mem=100M -t 5 -o /dev/null --wrap '$T/spin & sleep 120'")
for _ in $(seq 300); do [ "$(squeue -h -j "$J" -o %T)" = RUNNING ] && break; sleep 0.1; done
sleep 21
s1=$(secs "$(sstat -n -P -j "$J.batch" -o AveCPU | head -1)")
procs=$(as tracertest "'$JS' -j $J.batch --processes -P -n -o PID,State,TotalCPU,Tool,End")
s2=$(secs "$(sstat -n -P -j "$J.batch" -o AveCPU | head -1)")
step=$(as tracertest "'$JS' -j $J.batch -P -n -o State,NProcs,TotalCPU,PeakMem")
spin_cpu=$(awk -F'|' '$4 == "spin" { print $3 }' <<< "$procs")
tot=$(secs "$(cut -d'|' -f3 <<< "$step")")
ref=$(awk -v a="$s1" -v b="$s2" 'BEGIN { print (a + b) / 2 + 0.5 }')
check "running job $J: the batch shell, spin and sleep are listed RUNNING ($(tr '\n' ' ' <<< "$procs"))" \
  bash -c "[ \$(grep -c '|RUNNING|' <<< '$procs') -eq 3 ] && grep -q '|spin|' <<< '$procs' && grep -q '|sleep|' <<< '$procs'"
check "... with no End yet" bash -c "! awk -F'|' '\$5 != \"Unknown\" && \$5 != \"\"' <<< '$procs' | grep -q ."
check "... spin's CPU $spin_cpu within 5 % of sstat's $s1-$s2 s" within "$(secs "$spin_cpu")" "$ref" 0.05
check "... the step counts them: NProcs 3 ($step)" [ "$(cut -d'|' -f1,2 <<< "$step")" = 'RUNNING|3' ]
check "... and its TotalCPU $tot s is within 5 % of sstat's" within "$tot" "$ref" 0.05
out=$(as tracertest "'$JS' -j $J --tools -P -n -o Tool,NProcs")
check "... --tools shows the running spin ($(tr '\n' ' ' <<< "$out"))" grep -qx 'spin|1' <<< "$out"
out=$(as tracertest "'$JS' -j $J.batch --tree -P -n -o Tree,NProcs")
check "... --tree holds the running shell and its children ($(head -1 <<< "$out"))" grep -qx '[^|]*|3' <<< "$(head -1 <<< "$out")"
scancel "$J"; wait_gone "$J"

# --- nodes whose names do not resolve, reached at Slurm's NodeAddr over TCP (no local socket)
check "$N1 and $N2 are not host names here (the case under test)" bash -c "! getent hosts $N1 && ! getent hosts $N2"
grep -q '^NodePorts' "$TRACER_CONF" || fail "the cluster's tracer.conf has NodePorts"
mkdir -p "$T/nosock"
sed "s|^SocketDir.*|SocketDir = $T/nosock|" "$TRACER_CONF" > "$T/tcp.conf"
chmod 644 "$T/tcp.conf"
J2=$(as tracertest "sbatch --parsable -N2 -w $BOTH -n2 --mem=100M -o /dev/null --wrap 'srun -N2 -n2 sleep 30'")
for _ in $(seq 300); do
  [ "$(as tracertest "'$JS' -c '$T/tcp.conf' -j $J2.0 -P -n -o NProcs" 2>/dev/null)" = 2 ] && break; sleep 0.1
done
out=$(as tracertest "'$JS' -c '$T/tcp.conf' -j $J2.0 --processes -P -o Node,Task,State,Command" 2>"$T/err")
check "2-node step of running job $J2 over TCP only: one process per node, named by node and task ($(tr '\n' ' ' <<< "$out"))" \
  bash -c "grep -qx '$N1|0|RUNNING|/usr/bin/sleep 30' <<< '$out' && grep -qx '$N2|1|RUNNING|/usr/bin/sleep 30' <<< '$out'"
check "... and no warning ($(head -c 200 "$T/err"))" [ ! -s "$T/err" ]
out=$(as tracertest "'$JS' -c '$T/tcp.conf' -j $J2 --processes" 2>&1 | head -1)
check "--processes of a job on 2 nodes has Node and Task by default ($out)" \
  bash -c "grep -q ' Node ' <<< '$out' && grep -q ' Task ' <<< '$out'"
out=$(as tracertest "'$JS' -c '$T/tcp.conf' -j $J2 --tree -P -n -o Node,PID,Tree" 2>/dev/null)
check "--tree: each node's sleep is a root of its own ($(tr '\n' ' ' <<< "$out"))" \
  bash -c "[ \$(grep -cE '^($N1|$N2)\|[0-9]*\|sleep$' <<< '$out') -eq 2 ]"
scancel "$J2"; wait_gone "$J2"
sed "s|^NodePorts.*|NodePorts = $N1:$(node_port $N1),$N2:1|" "$T/tcp.conf" > "$T/badport.conf"
as tracertest "'$JS' -c '$T/badport.conf' -j $J2.0 -P -n -o NProcs" > "$T/out" 2> "$T/err"
check "a node that cannot be reached is named with its address and port ($(head -1 "$T/err"))" \
  grep -q "node $N2 at 127.0.0.1 port 1: Connection refused" "$T/err"

# --- tracerctl -H by address, as tracerctl(8) says
out=$("$CTL" -H 127.0.0.1:$(node_port $N2) status 2>&1 | head -1)
check "tracerctl -H 127.0.0.1:$(node_port $N2) status answers as $N2 ($out)" grep -q "^tracerd on node $N2, .*reached over TCP" <<< "$out"
out=$(as tracertest2 "'$CTL' -H 127.0.0.1:$(node_port $N1) status" 2>&1 | head -1)
check "... for any user, and $N1 at $(node_port $N1) ($out)" grep -q "^tracerd on node $N1, .*reached over TCP" <<< "$out"
out=$("$CTL" -N $N2 -H 127.0.0.1 status 2>&1 | head -1)
check "-N $N2 -H 127.0.0.1: $N2's port from NodePorts ($out)" grep -q "^tracerd on node $N2" <<< "$out"

# --- run ids: the hint works as printed, for another user too; same names told apart
for _ in 1 2; do as tracertest2 "'$CTL' -N $N1 run --name dup -- /bin/true" 2>/dev/null; done
as tracertest2 "'$CTL' -N $N1 run --name dup -- sh -c 'ls / > /dev/null; true'" 2> "$T/run.err"
hint=$(sed -n 's/^ *details *//p' "$T/run.err")
check "tracerctl run prints a run id of its own ($hint)" grep -Eq "^tracer-jobstat -N $N1 -j r[0-9]+ --processes\$" <<< "$hint"
out=$(as tracertest2 "cd '$BUILD' && ./$hint -P -n -o Tool" 2>&1)
check "... and the hint works as printed by tracertest2 ($(tr '\n' ' ' <<< "$out"))" \
  bash -c "grep -qx sh <<< '$out' && grep -qx ls <<< '$out'"
id=${hint#*-j }; id=${id%% *}
check "... root asks the same ($id)" bash -c "'$JS' -N $N1 -j $id --processes -P -n -o Tool | grep -qx ls"
out=$(as tracertest2 "'$JS' -N $N1 -j dup -P -n -o JobID,JobName,NodeList" 2>/dev/null)
check "runs named dup are told apart by id and node ($(tr '\n' ' ' <<< "$out"))" \
  bash -c "[ \$(sort -u <<< '$out' | grep -c '^r[0-9]*|dup|$N1$') -ge 3 ]"
rc=0; as tracertest2 "'$JS' -N $N1 -j ${id#r} -P -n" > /dev/null 2>&1 || rc=$?
check "a run's bare number is a Slurm job id, not the run (exit $rc)" [ "$rc" -ne 0 ]

# --- a run inside a job owns its root process
J3=$(as tracertest "sbatch --parsable -w $N1 -o /dev/null --wrap \"TRACER_CONF=$TRACER_CONF '$CTL' -N $N1 run --name inner$$ -- sh -c 'sleep 0.2; true'\"")
wait_gone "$J3"; sleep 1
inner=$(as tracertest "'$JS' -N $N1 -j inner$$ --processes -P -n -o Tool" 2>&1 | tr '\n' ' ')
batch=$(as tracertest "'$JS' -j $J3.batch --processes -P -n -o Tool" 2>&1 | tr '\n' ' ')
check "a run inside job $J3 owns its root: run ($inner), batch step ($batch)" \
  bash -c "[ '$inner' = 'sh sleep ' ] && grep -qw tracerctl <<< '$batch' && ! grep -qw sh <<< '$batch'"
finish
