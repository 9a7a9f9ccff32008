# tracer-jobstat --live of a running 2-node job on the test cluster (tests/slurm-docker/cluster):
#   its step and tool with a process on each node, asked of both nodes' tracerds;
#   the running jobs listed by Slurm (-a, no -j) include it;
#   in a terminal (tmux) its owner sees the step and the tool, and q restores the terminal;
#   a node whose tracerd accepts and never answers costs one per-node timeout (5 s), is named
#   ("no answer from n2"), and the other node's processes still show.
# The cluster is shared: it is brought up (idempotent) and left running.
# lane: cluster nodes: 2 cpu: 1
. "$(dirname "$0")/lib.sh"
command -v tmux > /dev/null || { fail "tmux is not installed (scripts/install-deps)"; finish; exit 1; }
cluster_up
JOBS=$T/jobs; mkdir -p "$JOBS"; chmod 777 "$JOBS"
HOLD=$(prog cpuburn) || { fail "building the test program"; finish; exit 1; }
cp "$HOLD" "$JOBS/aligner" && chmod 755 "$JOBS/aligner"
S=tracer-live-slurm-$$
HANG_PID=
cleanup() {
  tmux kill-session -t $S 2>/dev/null
  [ -z "$HANG_PID" ] || kill $HANG_PID 2>/dev/null
  [ -z "${J:-}" ] || scancel "$J" 2>/dev/null
  rm -rf "$T" "$PINS"
}
trap cleanup EXIT INT TERM

J=$(submit tracertest "-N2 -w $BOTH -n2 --mem=200M -t 5 -J live2 -o /dev/null --wrap 'srun -N2 -n2 $JOBS/aligner 40'")
running=
for _ in $(seq 300); do
  [ "$(squeue -h -j "$J" -o %T 2>/dev/null)" = RUNNING ] && running=1 && break
  sleep 0.1
done
check "the 2-node job $J runs" [ -n "$running" ]
sleep 4 # its step started on both nodes

out=$(as tracertest "$BUILD/tracer-jobstat --live -j $J -P" 2> "$T/err")
echo "$out" | cut -c1-150 | head -12
check "the snapshot has the job" grep -q "^job|$J live2|RUNNING" <<< "$out"
check "the snapshot has step $J.0" grep -q "^step|$J.0 aligner|RUNNING" <<< "$out"
check "the snapshot has the tool aligner" grep -q "^tool|aligner|RUNNING" <<< "$out"
check "a running aligner process on each node" \
  bash -c 'grep -q "^process|.*aligner 40|RUNNING.*on $N1" <<< "$1" && grep -q "^process|.*aligner 40|RUNNING.*on $N2" <<< "$1"' _ "$out"
check "no warning" [ ! -s "$T/err" ]

all=$("$BUILD/tracer-jobstat" --live -a --json)
check "-a (Slurm's running jobs) lists it, with its 2 running aligners" python3 -c '
import json, sys
rows = json.loads(sys.argv[1])["rows"]
tools = [r for r in rows if r["level"] == "tool" and r["name"] == "aligner"]
assert any(r["name"].startswith(sys.argv[2] + " ") for r in rows if r["level"] == "job")
assert any(t["nrunning"] == 2 for t in tools), tools
' "$all" "$J"

# slurmdbd behind slurmctld, as on a busy controller: it holds the running job pending, named
# "allocation" (the record it makes when a step's start reaches it before the job's). A running
# job is as slurmctld says, in -j and in -a.
mariadb --defaults-file="$BASE/etc/my.cnf" --user=root tracer_acct_db -e \
  "UPDATE tracertest_job_table SET state = 0, job_name = 'allocation' WHERE id_job = $J"
out=$(as tracertest "$BUILD/tracer-jobstat --live -j $J -P" 2> "$T/err")
check "slurmdbd behind: the snapshot has the job running, by its name" grep -q "^job|$J live2|RUNNING" <<< "$out"
all=$("$BUILD/tracer-jobstat" --live -a -P)
check "slurmdbd behind: -a lists it" grep -q "^job|$J live2|RUNNING" <<< "$all"
check "slurmdbd behind: its report too" \
  bash -c "'$BUILD/tracer-jobstat' -j $J -P -o JobID,JobName,State | grep -qx '$J|live2|RUNNING'"

# in a terminal, as the job's owner
tmux new-session -d -s $S -x 160 -y 50 "su tracertest -c 'SLURM_CONF=$SLURM_CONF TRACER_CONF=$TRACER_CONF $BUILD/tracer-jobstat --live --refresh=1s -j $J; echo VIEW-ENDED; sleep 30'"
shown=
for _ in $(seq 100); do
  tmux capture-pane -p -t $S > "$T/pane" 2>/dev/null
  grep -q "$J.0 aligner" "$T/pane" && grep -q "^ *- aligner " "$T/pane" && shown=1 && break
  sleep 0.1
done
cut -c1-150 "$T/pane" | head -10
check "the live view shows step $J.0 and its tool aligner" [ -n "$shown" ]
tmux send-keys -t $S q
sleep 1
check "q ends the view" bash -c "tmux capture-pane -p -t $S | grep -q VIEW-ENDED"
check "and leaves the alternate screen" [ "$(tmux display -p -t $S '#{alternate_on}')" = 0 ]
tmux kill-session -t $S

# n2 answers nothing: its port is a listener that accepts and stays silent; n1 by its socket
python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0)); s.listen(16)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
held = []
while True:
    c, _ = s.accept(); held.append(c)
' "$T/hang.port" &
HANG_PID=$!
for _ in $(seq 50); do [ -s "$T/hang.port" ] && break; sleep 0.1; done
mkdir -p "$T/socks"
ln -s "$BASE/run/tracerd-$N1.sock" "$T/socks/tracerd-$N1.sock"
grep -v '^NodePorts\|^SocketDir' "$TRACER_CONF" > "$T/hang.conf"
printf 'NodePorts = %s:%s,%s:%s\nSocketDir = %s\n' $N1 "$(node_port $N1)" $N2 "$(cat "$T/hang.port")" "$T/socks" >> "$T/hang.conf"
t0=$(date +%s%N)
out=$(timeout 60 "$BUILD/tracer-jobstat" -c "$T/hang.conf" --live -j "$J" -P 2> "$T/err")
rc=$?
took=$((($(date +%s%N) - t0) / 1000000))
echo "  with $N2 silent: one refresh took $took ms, exit $rc"
echo "$out" | cut -c1-150 | head -6
check "with $N2 silent the snapshot still ends, status 0" [ $rc = 0 ]
check "within two per-node timeouts (units, then processes: at most 12 s)" [ $took -lt 12000 ]
check "the job's flags name $N2 as not answering" grep -q "^job|$J live2|.*no answer from $N2" <<< "$out"
check "$N1's aligner still shows" grep -q "^process|.*aligner 40|RUNNING.*on $N1\|^process|.*aligner 40|RUNNING" <<< "$out"

scancel "$J" 2>/dev/null
wait_jobs "$J" # gone from the queue: the next test finds the nodes idle
J=
finish
