# An unprivileged user against tracerd's control socket, each attack run at once on two nodes:
# this test's own daemon, where root traces a command, and n1 of the test cluster
# (tests/slurm-docker), where root traces a command and another user's Slurm job (a batch
# step and an srun step) runs. The attacks: 500 held connections, 200 MB of newlines, a flood
# of requests whose replies are never read, one 200 MB line, a listing of a 200 000-process
# unit read slowly, one byte per second, an idle connection, run_end of units that are not the
# user's to end (root's, and the user's own Slurm job's), and planting its pids on root's next
# processes (pid_max lowered, restored by a trap). Every time, on both nodes: root's runs and
# the job are traced whole (every process in its unit), nothing of another uid is in a unit of
# the attacker's, tracerd's peak RSS (VmHWM) stays within 64 MiB and a status request is
# answered within 100 ms. The timeouts (ClientIdleTimeout, ClientRequestTimeout) are checked on
# this test's daemon, which sets them short.
# lane: alone
. "$(dirname "$0")/lib.sh"
write_config
cat >> "$T/tracer.conf" <<CONF
ClientIdleTimeout = 4s
ClientRequestTimeout = 3s
SlurmdSpoolDir = $T/spool/%n
CONF
PRIV_CONF=$T/tracer.conf
start_daemon || exit 1
cluster_up # the cluster's tracer.conf in TRACER_CONF: kept for n1, ours back for the rest
N1_CONF=$TRACER_CONF
export TRACER_CONF=$PRIV_CONF
# the attacker and the job's user: users the test cluster made and Slurm knows
ATTACKER=tracertest
BYSTANDER=tracertest2
AUID=$(id -u $ATTACKER)
BUID=$(id -u $BYSTANDER)
SOCK=$T/run/tracerd-$NODE.sock
N1_SOCK=$BASE/run/tracerd-$N1.sock
ATK_PY=$(prog attacker.py)
ATK="/usr/bin/python3 $ATK_PY $SOCK"
N1_ATK="/usr/bin/python3 $ATK_PY $N1_SOCK"
HWM_MAX_KB=65536
STATUS_MAX_MS=100
asattacker() { setpriv --reuid=$ATTACKER --regid="$(id -g $ATTACKER)" --clear-groups "$@"; }
n1_pid() { cat "$BASE/run/tracerd-$N1.pid"; }
hwm_kb() { awk '/^VmHWM/ {print $2}' /proc/$1/status; }
ndb() { sqlite3 "$BASE/state/$N1/tracer.db" "$@"; }
n1ctl() { TRACER_CONF=$N1_CONF "$BUILD/tracerctl" -N $N1 "$@"; }
# the node's store has earlier tests' and runs' units: this test reads only those after these
N1_UNITS0=$(ndb "SELECT COALESCE(MAX(id), 0) FROM units")
JOBS=$T/jobs; mkdir -p "$JOBS"; chmod 777 "$JOBS"

# another user's job beside each attack on n1: 40 true and 30 sleep in its batch step, 20 true
# and 20 sleep in step 0 (some 6 s)
cat > "$JOBS/beside.sh" <<'JOB'
#!/bin/bash
#SBATCH -n1 --mem=100M -o /dev/null
for i in $(seq 30); do /bin/true; /bin/sleep 0.1; done
srun -n1 bash -c 'for i in $(seq 20); do /bin/true; /bin/sleep 0.05; done'
for i in $(seq 10); do /bin/true; done
JOB
chmod 644 "$JOBS/beside.sh"
# begin_job USER SCRIPT-OR-ARGS: submitted, and running on n1 (prints its id)
begin_job() {
  local j
  j=$(submit "$1" "-w $N1 $2")
  for _ in $(seq 150); do [ "$(squeue -h -j "$j" -o %T 2>/dev/null)" = RUNNING ] && break; sleep 0.1; done
  echo "$j"
}
# job_whole JOBID: the job's batch step and step 0 with every one of their processes, all of the
# job's user, the units ended COMPLETED (n1 commits within its CommitInterval: 3 s at most)
job_whole() {
  local b s o st
  for _ in $(seq 15); do
    b=$(ndb "SELECT group_concat(c, ' ') FROM (SELECT p.comm || '=' || COUNT(*) AS c FROM processes p JOIN units u ON p.unit=u.id WHERE u.name='$1.batch' AND p.comm IN ('true','sleep') GROUP BY p.comm ORDER BY p.comm)")
    s=$(ndb "SELECT group_concat(c, ' ') FROM (SELECT p.comm || '=' || COUNT(*) AS c FROM processes p JOIN units u ON p.unit=u.id WHERE u.name='$1.0' AND p.comm IN ('true','sleep') GROUP BY p.comm ORDER BY p.comm)")
    o=$(ndb "SELECT COUNT(*) FROM processes p JOIN units u ON p.unit=u.id WHERE u.job_id=$1 AND p.uid!=$BUID")
    st=$(ndb "SELECT COUNT(*) FROM units WHERE job_id=$1 AND (state!='COMPLETED' OR uid!=$BUID)")
    [ "$b" = "sleep=30 true=40" ] && [ "$s" = "sleep=20 true=20" ] && [ "$o" = 0 ] && [ "$st" = 0 ] && return 0
    sleep 0.2
  done
  echo "    job $1: batch '$b' (want sleep=30 true=40), step 0 '$s' (want sleep=20 true=20), $o processes of another uid, $st units not COMPLETED or not its user's"
  return 1
}
# nothing of another uid in a unit of the attacker's (DBFN: db or ndb)
none_foreign() {
  local n
  n=$($1 "SELECT COUNT(*) FROM processes p JOIN units u ON p.unit=u.id WHERE u.uid=$AUID AND p.uid!=$AUID")
  [ "$n" = 0 ] || { echo "    $n processes of another uid in units of the attacker's:"
    $1 "SELECT u.name, p.pid, p.comm, p.uid FROM processes p JOIN units u ON p.unit=u.id WHERE u.uid=$AUID AND p.uid!=$AUID LIMIT 5" | sed 's/^/      /'
    return 1; }
}

# root's runs: a long one spanning the attack (sh, 30 true, 30 sleep) and a short one begun
# in the middle of it (sh, 20 true)
LONG='i=0; while [ $i -lt 30 ]; do /bin/true; sleep 0.1; i=$((i+1)); done'
SHORT='/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true; :'
traced_whole() { # traced_whole DBFN NAME NPROCS NTRUE OUTFILE
  local u n t
  u=$($1 "SELECT MAX(id) FROM units WHERE name='$2'") # n1's store has earlier runs' too
  [ -n "$u" ] || { echo "    no unit $2"; return 1; }
  n=$($1 "SELECT COUNT(*) FROM processes WHERE unit=$u")
  t=$($1 "SELECT COUNT(*) FROM processes WHERE unit=$u AND exe='/bin/true'")
  [ "$n" = "$3" ] && [ "$t" = "$4" ] && grep -q "$3 recorded" "$5" ||
    { echo "    $2: $n processes ($t true), want $3 ($4)"; cat "$5"; return 1; }
}
within_limits() { # within_limits NAME WHO PID WATCHFILE ATKSUFFIX
  local worst fails hwm
  read -r worst fails < "$4"
  hwm=$(hwm_kb "$3")
  echo "  $1 ($2): attacker says '$(head -c 120 "$T/$1$5.atk")'; VmHWM $hwm kB; slowest status ${worst} ms"
  check "$1: $2: VmHWM $hwm kB <= $HWM_MAX_KB kB" [ "$hwm" -le $HWM_MAX_KB ]
  check "$1: $2: status answered within $STATUS_MAX_MS ms (slowest ${worst} ms, $fails failed)" \
    awk -v w="$worst" -v f="$fails" -v m=$STATUS_MAX_MS 'BEGIN { exit !(w <= m && f == 0) }'
}

# attack NAME ARGS...: attacker.py ARGS as the attacker against this test's daemon and n1's at
# once ("@big" stands for each one's 200 000-process unit of the attacker's), while root traces
# its two runs on this test's daemon and a long one on n1, and another user's job runs on n1
attack() {
  local name=$1 apid npid wpid nwpid lpid nlpid job x; shift
  local own=() n1=()
  for x in "$@"; do own+=("${x/@big/${BIG:-0}}"); n1+=("${x/@big/${BIG_N1:-0}}"); done
  [ -z "${N1_EXTRA:-}" ] || n1+=("$N1_EXTRA") # an argument for n1's attacker only
  job=$(begin_job $BYSTANDER "$JOBS/beside.sh")
  echo 5 > /proc/$DAEMON_PID/clear_refs # VmHWM from here
  echo 5 > /proc/$(n1_pid)/clear_refs
  python3 "$ATK_PY" "$SOCK" status_watch "$T/watch" & wpid=$!
  python3 "$ATK_PY" "$N1_SOCK" status_watch "$T/watch-n1" & nwpid=$!
  ctl run --name "$name-long" -- /bin/sh -c "$LONG" 2> "$T/$name-long.out" & lpid=$!
  n1ctl run --name "$name-long" -- /bin/sh -c "$LONG" 2> "$T/$name-long-n1.out" & nlpid=$!
  sleep 0.3
  asattacker $ATK "${own[@]}" > "$T/$name.atk" 2>&1 & apid=$!
  asattacker $N1_ATK "${n1[@]}" > "$T/$name-n1.atk" 2>&1 & npid=$!
  sleep 1
  ctl run --name "$name-short" -- /bin/sh -c "$SHORT" 2> "$T/$name-short.out"
  wait $apid $npid $lpid $nlpid
  wait_jobs "$job"
  kill -TERM $wpid $nwpid 2>/dev/null; wait $wpid $nwpid
  check "$name: root's long run traced whole" traced_whole db "$name-long" 61 30 "$T/$name-long.out"
  check "$name: root's run begun during the attack traced whole" traced_whole db "$name-short" 21 20 "$T/$name-short.out"
  check "$name: nothing of another uid in the attacker's units" none_foreign db
  within_limits "$name" "this node" $DAEMON_PID "$T/watch" ""
  check "$name: n1: root's long run traced whole" traced_whole ndb "$name-long" 61 30 "$T/$name-long-n1.out"
  check "$name: n1: job $job of $BYSTANDER traced whole, batch step and step 0" job_whole "$job"
  check "$name: n1: nothing of another uid in the attacker's units" none_foreign ndb
  within_limits "$name" n1 "$(n1_pid)" "$T/watch-n1" -n1
}

# 1. slot exhaustion: 500 connections held
refused_before=$(grep -c "refused" "$T/tracerd.log")
attack held500 hold 500 3
held=$(cat "$T/held500.atk")
check "held500: the attacker keeps at most MaxClientsPerUser (8) connections, has $held" [ "$held" -le 8 ]
check "held500: refusals are logged at a limited rate" \
  [ $(( $(grep -c "refused" "$T/tracerd.log") - refused_before )) -le 2 ]
# meanwhile another user and root (the SPANK plugin's and prolog's way in) still get in
asattacker $ATK hold 500 3 > /dev/null & apid=$!
sleep 1
setpriv --reuid=nobody --regid=nogroup --clear-groups env TRACER_CONF="$TRACER_CONF" \
  "$BUILD/tracerctl" -N $NODE run --name other-user -- /bin/true 2> "$T/other-user.out"
check "held500: another user can still trace a command" grep -q "1 recorded" "$T/other-user.out"
# a process of the attacker's (forked by one of its own), registered as its Slurm task
victim=$(asattacker /bin/sh -c '/bin/sleep 30 > /dev/null 2>&1 & echo $!')
slurm_unit=$(ctl register --uid "$(id -u $ATTACKER)" --pid $victim --job-id 4242 --step-id 0 --name 4242.0)
check "held500: root can still register a Slurm task (unit '$slurm_unit')" [ -n "$slurm_unit" ]
wait $apid

# a burst of one user's own runs, three times MaxClientsPerUser at once: all traced (a client
# refused for want of a slot tries again)
pids=()
for i in $(seq 24); do
  setpriv --reuid=nobody --regid=nogroup --clear-groups env TRACER_CONF="$TRACER_CONF" \
    "$BUILD/tracerctl" -N $NODE run --name burst -- /bin/true 2> "$T/burst$i.out" & pids+=($!)
done
wait "${pids[@]}"
traced=$(cat "$T"/burst*.out | grep -c "processes   1 recorded")
check "burst: 24 runs of one user at once are all traced ($traced)" [ "$traced" = 24 ]
[ "$traced" = 24 ] || for f in $(grep -L "processes   1 recorded" "$T"/burst*.out); do echo "    $f: $(tr '\n' ' ' < "$f")"; done

# 2. unbounded buffering: newlines, unread replies, one endless line
attack newlines newlines 200 4
attack requests requests 200 4
attack longline longline 200

# a listing of 200 000 processes asked for on 8 connections and read at 100 bytes per second:
# the daemon holds a page for each, never holds its loop for long on one (the unit's totals are
# counted in steps), and lets them go when they take none for ClientIdleTimeout. The unit: a
# real run of the attacker's (sh and true), grown to 200 000 processes in the store, daemon
# stopped (copies of its true, each its own pid and start)
grow_unit() { # grow_unit DBFILE UNIT: to 200 000 processes, in one transaction
  sqlite3 "$1" "BEGIN;
    WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c
      WHERE x < 200000 - (SELECT COUNT(*) FROM processes WHERE unit=$2))
    INSERT INTO processes SELECT p.boot_id, 10000 + c.x, p.start_boot_ns + c.x * 1000, p.unit,
      p.ppid, p.uid, p.gid, p.start_ns + c.x * 1000, p.exec_ns + c.x * 1000, p.end_ns + c.x * 1000,
      p.comm, p.exe, p.argv, p.cgroup_id, p.cpu_ns, p.user_ns, p.sys_ns, p.maxrss_kb, p.rchar,
      p.wchar, p.syscr, p.syscw, p.read_bytes, p.write_bytes, p.cancelled_write_bytes, p.minflt,
      p.majflt, p.nvcsw, p.nivcsw, p.threads, p.status, p.flags, p.tool, p.subcommand,
      p.interpreter, p.tool_excluded, p.tool_wrapper, p.ru_maxrss_kb, p.pre_exec_cpu_ns,
      p.cpu_wait_ns, p.iowait_ns, p.offcpu_ns, p.net_rx_bytes, p.net_tx_bytes, p.net_rx_calls,
      p.net_tx_calls, p.stall_start_ns, p.stall_ns, p.stall_reason, p.folded,
      p.parent_start_boot_ns, NULL
    FROM c, (SELECT * FROM processes WHERE unit=$2 AND exe='/bin/true' LIMIT 1) p;
    COMMIT;"
}
asattacker env TRACER_CONF="$TRACER_CONF" "$BUILD/tracerctl" -N $NODE run --name big -- \
  /bin/sh -c '/bin/true; :' 2> "$T/big.out"
asattacker env TRACER_CONF="$N1_CONF" "$BUILD/tracerctl" -N $N1 run --name big -- \
  /bin/sh -c '/bin/true; :' 2> "$T/big-n1.out"
stop_daemon
BIG=$(db "SELECT id FROM units WHERE name='big' AND uid=$AUID")
grow_unit "$T/state/$NODE/tracer.db" "$BIG"
start_daemon || { finish; exit 1; }
kill "$(n1_pid)"; while kill -0 "$(n1_pid)" 2>/dev/null; do sleep 0.1; done
BIG_N1=$(ndb "SELECT MAX(id) FROM units WHERE name='big' AND uid=$AUID")
grow_unit "$BASE/state/$N1/tracer.db" "$BIG_N1"
"$CLUSTER" tracerd $N1 > "$T/cluster-n1.log" 2>&1 || { tail "$T/cluster-n1.log"; fail "n1's tracerd back"; }
check "the attacker's unit has 200 000 processes here (r$BIG) and on n1 (r$BIG_N1)" \
  [ "$(db "SELECT COUNT(*) FROM processes WHERE unit=$BIG") $(ndb "SELECT COUNT(*) FROM processes WHERE unit=$BIG_N1")" = "200000 200000" ]
# n1 keeps its readers for its own ClientIdleTimeout: its attacker closes them after the slow part
N1_EXTRA=close attack slowlist slowlist @big 8 7
read -r _ let_go < "$T/slowlist.atk"
check "slowlist: readers that took no page in ClientIdleTimeout (4 s) were let go ($let_go of 8)" [ "$let_go" = 8 ]
n=$(asattacker env TRACER_CONF="$TRACER_CONF" "$BUILD/tracer-jobstat" -N $NODE -j "r$BIG" --processes -n -P | wc -l)
check "slowlist: the listing read at full speed has all 200000 processes ($n)" [ "$n" = 200000 ]

# 3. one byte per second, and silence
attack trickle trickle 8 8
closes=$(cat "$T/trickle.atk")
check "trickle: every slow request line was cut after ClientRequestTimeout (3 s): $closes" \
  awk -v c="$closes" 'BEGIN { n = split(c, t, " "); for (i = 1; i <= n; i++) if (t[i] < 2.5 || t[i] > 6) exit 1; exit n != 8 }'
idle=$(asattacker $ATK idle 10)
check "idle: a silent connection is let go after ClientIdleTimeout (4 s): $idle" \
  awk -v t="$idle" 'BEGIN { exit !(t >= 3.5 && t <= 7) }'

# 4. authority: run_end of root's run, and of the attacker's own Slurm task
root_unit=$(db "SELECT id FROM units WHERE name='held500-long'")
r=$(asattacker $ATK run_end "$root_unit")
case "$r" in *"not found or not yours"*) ok "run_end of root's unit refused";; *) fail "run_end of root's unit: '$r'";; esac
r=$(asattacker $ATK run_end "$slurm_unit")
case "$r" in *"permission denied"*"Slurm unit"*) ok "run_end of the attacker's own Slurm unit refused";;
             *) fail "run_end of a Slurm unit: '$r'";; esac
check "the Slurm unit is still running" [ "$(db "SELECT state FROM units WHERE id=$slurm_unit")" = RUNNING ]
ctl unregister "$slurm_unit" --status 0
check "root ends it" [ "$(db "SELECT state FROM units WHERE id=$slurm_unit")" = COMPLETED ]
kill $victim 2>/dev/null
# ... and of the attacker's own Slurm job on n1 (its batch step and step 0): refused, and the job's
# units end when Slurm ends them, traced whole
cat > "$JOBS/own.sh" <<'JOB'
#!/bin/bash
#SBATCH -n1 --mem=50M -o /dev/null
srun -n1 bash -c 'for i in $(seq 20); do /bin/true; /bin/sleep 0.1; done'
JOB
chmod 644 "$JOBS/own.sh"
J=$(begin_job $ATTACKER "$JOBS/own.sh")
for _ in $(seq 50); do
  [ "$(ndb "SELECT COUNT(*) FROM units WHERE name IN ('$J.batch', '$J.0') AND state='RUNNING'")" = 2 ] && break
  sleep 0.1
done
refused=0
for u in $(ndb "SELECT id FROM units WHERE name IN ('$J.batch', '$J.0')"); do
  r=$(asattacker $N1_ATK run_end "$u")
  case "$r" in *"permission denied"*"Slurm unit"*) refused=$((refused + 1));; *) echo "    run_end $u: '$r'";; esac
done
check "n1: run_end of the attacker's own job $J (batch step and step 0) refused ($refused of 2)" [ $refused = 2 ]
check "n1: the job ran on" wait_jobs "$J"
own_whole() {
  local st t
  for _ in $(seq 15); do
    st=$(ndb "SELECT group_concat(n, ' ') FROM (SELECT name || '=' || state AS n FROM units WHERE name IN ('$J.batch', '$J.0') ORDER BY name)")
    t=$(ndb "SELECT COUNT(*) FROM processes p JOIN units u ON p.unit=u.id WHERE u.name='$J.0' AND p.comm='true'")
    [ "$st $t" = "$J.0=COMPLETED $J.batch=COMPLETED 20" ] && return 0
    sleep 0.2
  done
  echo "    $st; $t true in step 0 (want 20)"; return 1
}
check "n1: its units ended COMPLETED when the job did, step 0's 20 true in it" own_whole

# batch scripts: read only as regular files under SlurmdSpoolDir, never through a link, never
# blocking on a FIFO
spool=$T/spool/$NODE
mkdir -p $spool/job00042 $spool/job00043 $spool/job00044 $spool/job00045
printf '#!/bin/sh\nsnakemake --snakefile Snakefile\n' > $spool/job00042/slurm_script
ln -s /etc/shadow $spool/job00043/slurm_script
mkfifo $spool/job00044/slurm_script
register_batch() { # register_batch JOB PATH: as slurmstepd would, with the script's path as argv
  /usr/bin/python3 - "$SOCK" "$1" "$2" "$victim2" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(sys.argv[1])
req = {"v": 1, "op": "register", "uid": 0, "pid": int(sys.argv[4]), "job_id": int(sys.argv[2]),
       "step_id": 0xfffffffb, "argv": [sys.argv[3]]}
s.sendall(json.dumps(req).encode() + b"\n"); print(s.recv(65536).decode().strip())
PY
}
sleep 30 & victim2=$!
for j in 42 43 44; do register_batch $j $spool/job000$j/slurm_script > "$T/batch$j.out"; done
register_batch 45 /etc/passwd > "$T/batch45.out"
register_batch 46 "$spool/../../../etc/passwd" > "$T/batch46.out"
check "batch scripts: every registration answered" \
  bash -c "cat '$T'/batch4[2-6].out | grep -c '\"ok\":true' | grep -qx 5"
check "batch scripts: a regular file in the spool directory is read" \
  bash -c "! grep -q 'job 42: batch script not read' '$T/tracerd.log'"
check "batch scripts: a symbolic link is not followed" grep -q "job 43: batch script not read: Too many levels" "$T/tracerd.log"
check "batch scripts: a FIFO is not read (and blocks nothing)" grep -q "job 44: batch script not read: Invalid argument" "$T/tracerd.log"
check "batch scripts: a path outside the spool directory is not read" grep -q "job 45: batch script not read: Operation not permitted" "$T/tracerd.log"
check "batch scripts: nor one that climbs out of it" grep -q "job 46: batch script not read: Operation not permitted" "$T/tracerd.log"
kill $victim2 2>/dev/null

# files: the store is the daemon's alone, the socket everyone's
check "the store's files are 0600" \
  [ "$(stat -c %a "$T/state/$NODE/tracer.db" "$T/state/$NODE/tracer.db-wal" | sort -u)" = 600 ]
check "the socket is 0666" [ "$(stat -c %a "$SOCK")" = 666 ]
t0=$(date +%s%N); ctl status > /dev/null; t1=$(date +%s%N)
check "tracerctl status at the end answered in $(( (t1 - t0) / 1000000 )) ms" [ $(( (t1 - t0) / 1000000 )) -le 100 ]
check "the daemon is still running" kill -0 $DAEMON_PID

# 5. PID planting: the attacker registers its zombie children, then the pids go to root's next
# processes (pid_max lowered so that pids come round again, and ns_last_pid aimed at them);
# none of root's processes may turn up in a unit of the attacker's
old_pid_max=$(cat /proc/sys/kernel/pid_max)
trap 'echo "$old_pid_max" > /proc/sys/kernel/pid_max; stop_daemon; rm -rf "$T"' EXIT INT TERM
job=$(begin_job $BYSTANDER "$JOBS/beside.sh") # on n1 meanwhile: its processes take pids too
echo 5 > /proc/$DAEMON_PID/clear_refs
echo 5 > /proc/$(n1_pid)/clear_refs
python3 "$ATK_PY" "$SOCK" status_watch "$T/watch" & wpid=$!
python3 "$ATK_PY" "$N1_SOCK" status_watch "$T/watch-n1" & nwpid=$!
echo $(( $(ls /proc | grep -c '^[0-9]') + 8192 )) > /proc/sys/kernel/pid_max
asattacker $ATK zombies 20 > "$T/zombies.atk" 2>&1 & apid=$!
asattacker $N1_ATK zombies 20 > "$T/zombies-n1.atk" 2>&1
wait $apid
while read -r pid verdict; do
  echo $((pid - 1)) > /proc/sys/kernel/ns_last_pid
  /bin/echo "root's process $pid" > /dev/null
done < <(cat "$T/zombies.atk" "$T/zombies-n1.atk")
echo "$old_pid_max" > /proc/sys/kernel/pid_max
trap 'stop_daemon; rm -rf "$T"' INT TERM
trap - EXIT
wait_jobs "$job"
kill -TERM $wpid $nwpid 2>/dev/null; wait $wpid $nwpid
for where in "this node:db:zombies:0" "n1:ndb:zombies-n1:$N1_UNITS0"; do
  IFS=: read -r who fn out since <<< "$where"
  check "planting: $who: every zombie's registration is refused ($(grep -c refused "$T/$out.atk") of 20)" \
    [ "$(grep -c refused "$T/$out.atk")" -eq 20 ]
  check "planting: $who: none of root's processes that got those pids is in a unit of the attacker's" \
    [ "$($fn "SELECT COUNT(*) FROM processes p JOIN units u ON p.unit = u.id WHERE u.uid = $AUID AND u.id > $since AND p.exe = '/bin/echo'")" -eq 0 ]
  check "planting: $who: nothing of another uid in the attacker's units" none_foreign $fn
  check "planting: $who: no unit was made of a zombie" [ "$($fn "SELECT COUNT(*) FROM units WHERE name LIKE 'plant%'")" -eq 0 ]
done
within_limits zombies "this node" $DAEMON_PID "$T/watch" ""
check "planting: n1: job $job of $BYSTANDER traced whole, batch step and step 0" job_whole "$job"
within_limits zombies n1 "$(n1_pid)" "$T/watch-n1" -n1
check "planting: pid_max is restored" [ "$(cat /proc/sys/kernel/pid_max)" = "$old_pid_max" ]

# out of open files (a LimitNOFILE below what MaxClients needs; tracerd holds some 47 itself:
# its BPF objects, store, log and loop): connections beyond it are let go, the loop does not
# spin, and the daemon serves again once they are gone
stop_daemon
chmod 644 "$T/state/$NODE/tracer.db"; chmod 777 "$T/state/$NODE"
echo "MaxClientsPerUser = 100" >> "$T/tracer.conf"
prlimit --nofile=64:64 "$BUILD/tracerd" -f -N $NODE -c "$T/tracer.conf" >> "$T/tracerd.log" 2>&1 &
DAEMON_PID=$!
for _ in $(seq 50); do ctl status > /dev/null 2>&1 && break; sleep 0.1; done
check "a restart puts the store's mode right again (0600, its directory 0750)" \
  [ "$(stat -c %a "$T/state/$NODE/tracer.db") $(stat -c %a "$T/state/$NODE")" = "600 750" ]
asattacker $ATK hold 60 3 > /dev/null & apid=$!
sleep 2
cpu=$(ps -o %cpu= -p $DAEMON_PID | cut -d. -f1)
check "out of files: tracerd does not spin (${cpu}% CPU)" [ "${cpu:-100}" -lt 20 ]
check "out of files: it says so, once" [ "$(grep -c "out of open files" "$T/tracerd.log")" = 1 ]
wait $apid
# the daemon notices the connections are gone in its next turns: within a second
status_ok() { for _ in $(seq 10); do ctl status > /dev/null 2>&1 && return 0; sleep 0.1; done; ctl status > /dev/null; }
check "out of files: status is answered again once the connections are gone" status_ok
# n1's store without the grown unit (the cluster's state outlives this test)
kill "$(n1_pid)"; while kill -0 "$(n1_pid)" 2>/dev/null; do sleep 0.1; done
ndb "DELETE FROM processes WHERE unit=$BIG_N1; DELETE FROM units WHERE id=$BIG_N1;"
"$CLUSTER" tracerd $N1 > "$T/cluster-n1.log" 2>&1 || fail "n1's tracerd back at the end"
finish
