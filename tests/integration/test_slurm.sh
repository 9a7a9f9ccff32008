# Slurm integration on a real cluster (tests/slurm-docker/cluster: slurmctld, slurmdbd, two
# slurmd, each node with its own tracerd, the SPANK plugin and Prolog/Epilog): every process of
# a job is recorded under the right JobID.step and task, none from other jobs, 0 lost; jobs
# run untouched when tracerd is down, slow or answers garbage.
# lane: cluster nodes: 2 cpu: 0.5
. "$(dirname "$0")/lib.sh"
cluster_up
JOBS=$T/jobs; mkdir -p "$JOBS"; chmod 777 "$JOBS"

ndb() { sqlite3 "$BASE/state/$1/tracer.db" "$2"; }
as() { local u=$1; shift; su "$u" -c "cd '$T' && SLURM_CONF=$SLURM_CONF $*"; }
submit() { as "$1" "sbatch --parsable $2"; }
wait_jobs() { # wait_jobs JOBID...: until Slurm has them all finished (60 s at most)
  for _ in $(seq 600); do
    [ -z "$(squeue -h -j "$(IFS=,; echo "$*")" 2>/dev/null)" ] && sleep 0.5 && return 0
    sleep 0.1
  done
  return 1
}
exit_of() { sacct -n -X -P -j "$1" --format=ExitCode | head -1; }
lost() { "$BUILD/tracerctl" -N "$1" status --json | grep -o '"lost": *[0-9]*' | grep -o '[0-9]*$'; }
# the nodes' tracerds count losses since they started, other tests' too: this test's are those after
declare -A LOST0
for n in $N1 $N2; do LOST0[$n]=$(lost $n); done
within() { awk -v m="$1" -v r="$2" -v rel="$3" 'BEGIN { d = m - r; if (d < 0) d = -d; exit !(d <= rel * r) }'; }

# --- a batch job with two srun steps, and a second user's job on the same node at once
cat > "$JOBS/two-steps.sh" <<'JOB'
#!/bin/bash
#SBATCH -n2 --mem=400M -o /dev/null
for i in $(seq 50); do /bin/true; done
srun -n2 bash -c 'for i in $(seq 100); do /bin/true; done; awk "BEGIN { for (i = 0; i < 4000000; i++) s += i }"'
srun -n1 bash -c 'head -c 50000000 /dev/zero | gzip -1 > /dev/null'
JOB
cat > "$JOBS/other-user.sh" <<'JOB'
#!/bin/bash
#SBATCH -n1 --mem=100M -o /dev/null
for i in $(seq 70); do /bin/sleep 0.001; done
JOB
chmod 644 "$JOBS"/*.sh
J1=$(submit tracertest "-w $N1 $JOBS/two-steps.sh")
J2=$(submit tracertest2 "-w $N1 $JOBS/other-user.sh")
check "two users' jobs ran at once and ended" wait_jobs "$J1" "$J2"
uid1=$(id -u tracertest); uid2=$(id -u tracertest2)
check "job $J1 has units batch, 0 (2 tasks) and 1" \
  [ "$(ndb $N1 "SELECT group_concat(n, ' ') FROM (SELECT name || ':' || task_id AS n FROM units WHERE job_id=$J1 AND step_id!=4294967295 ORDER BY name, task_id)")" = "$J1.0:0 $J1.0:1 $J1.1:0 $J1.batch:0" ]
check "batch step: its 50 true processes, under $J1.batch" \
  [ "$(ndb $N1 "SELECT COUNT(*) FROM processes p JOIN units u ON p.unit=u.id WHERE u.name='$J1.batch' AND p.comm='true'")" -eq 50 ]
for task in 0 1; do
  # bash runs its last command in its own process: the task's shell becomes awk
  check "step 0 task $task: seq, 100 true and awk (the shell, exec'd), under $J1.0 task $task" \
    [ "$(ndb $N1 "SELECT group_concat(c, ' ') FROM (SELECT p.comm || '=' || COUNT(*) AS c FROM processes p JOIN units u ON p.unit=u.id WHERE u.name='$J1.0' AND u.task_id=$task GROUP BY p.comm ORDER BY p.comm)")" = "awk=1 seq=1 true=100" ]
done
check "step 1: bash, head and gzip under $J1.1" \
  [ "$(ndb $N1 "SELECT group_concat(comm, ' ') FROM (SELECT p.comm FROM processes p JOIN units u ON p.unit=u.id WHERE u.name='$J1.1' ORDER BY p.comm)")" = "bash gzip head" ]
check "every process of job $J1 ran as its user, none of job $J2" \
  [ "$(ndb $N1 "SELECT COUNT(*) FROM processes p JOIN units u ON p.unit=u.id WHERE u.job_id=$J1 AND p.uid!=$uid1")" -eq 0 ]
check "job $J2 (the other user): its 70 sleeps, all as tracertest2" \
  [ "$(ndb $N1 "SELECT COUNT(*) FROM processes p JOIN units u ON p.unit=u.id WHERE u.job_id=$J2 AND p.comm='sleep' AND p.uid=$uid2")" -eq 70 ]
check "job $J2 has nothing of job $J1" \
  [ "$(ndb $N1 "SELECT COUNT(*) FROM processes p JOIN units u ON p.unit=u.id WHERE u.job_id=$J2 AND p.comm IN ('true','awk','gzip')")" -eq 0 ]
for step in batch 0 1; do
  read -r procs cg < <(ndb $N1 "SELECT (SELECT SUM(p.cpu_ns + COALESCE(p.pre_exec_cpu_ns, 0)) FROM processes p JOIN units v ON p.unit=v.id WHERE v.name='$J1.$step'), MAX(cgroup_cpu_ns) FROM units WHERE name='$J1.$step'" | tr '|' ' ')
  echo "  step $J1.$step: processes ${procs} ns, step cgroup ${cg} ns"
  check "step $J1.$step: CPU of its processes within 2% of the step cgroup's counter" within "$procs" "$cg" 0.02
done
check "units ended COMPLETED" [ "$(ndb $N1 "SELECT COUNT(*) FROM units WHERE job_id=$J1 AND state!='COMPLETED'")" -eq 0 ]
check "tracer-jobstat -j $J1 shows the job's steps" bash -c "'$BUILD/tracer-jobstat' -N $N1 -j $J1 -P -n | cut -d'|' -f1 | sort -u | tr '\n' ' ' | grep -qx '$J1 $J1.0 $J1.1 $J1.batch $J1.extern '"
check "tracertest2 cannot read tracertest's job" bash -c "! su tracertest2 -c \"TRACER_CONF=$TRACER_CONF '$BUILD/tracer-jobstat' -N $N1 -j $J1\" 2>/dev/null | grep -q ."
check "TRACEPARENT reached the job's units" \
  [ "$(ndb $N1 "SELECT COUNT(DISTINCT substr(traceparent, 4, 32)) FROM units WHERE job_id=$J1 AND traceparent IS NOT NULL")" -eq 1 ]

# --- a 2-node step: each node's tracerd records its own task
J3=$(submit tracertest "-N2 -w $BOTH -n2 --mem=100M -o /dev/null --wrap 'srun -N2 -n2 bash -c \"for i in \\\$(seq 20); do /bin/true; done\"'")
check "2-node job ran" wait_jobs "$J3"
task=0
for n in $N1 $N2; do # tasks in the nodes' order
  check "$n recorded task $task of $J3.0 with its 20 true" \
    [ "$(ndb $n "SELECT COUNT(*) FROM processes p JOIN units u ON p.unit=u.id WHERE u.name='$J3.0' AND u.task_id=$task AND p.comm='true'")" -eq 20 ]
  task=$((task + 1))
done

# --- a 3-task job array
A=$(submit tracertest "-w $N1 --array=1-3 -n1 --mem=50M -o /dev/null --wrap 'for i in \$(seq \$SLURM_ARRAY_TASK_ID); do /bin/true; done'")
A=${A%%_*}
check "array job ran" wait_jobs "$A"
for t in 1 2 3; do
  n=$(for node in $N1 $N2; do ndb $node "SELECT COUNT(*) FROM processes p JOIN units u ON p.unit=u.id WHERE u.array_job_id=$A AND u.array_task_id=$t AND p.comm='true'"; done | paste -sd+ | bc)
  check "array task ${A}_$t ran $t true processes (recorded $n)" [ "$n" -eq "$t" ]
done

# --- scancel mid-job
J4=$(submit tracertest "-w $N1 -n1 --mem=50M -o /dev/null --wrap 'for i in \$(seq 30); do /bin/true; done; sleep 300'")
for _ in $(seq 100); do [ "$(ndb $N1 "SELECT COUNT(*) FROM processes p JOIN units u ON p.unit=u.id WHERE u.job_id=$J4 AND p.comm='true'")" = 30 ] && break; sleep 0.1; done
scancel "$J4"; wait_jobs "$J4"
check "cancelled job: its 30 true and the killed sleep are recorded" \
  [ "$(ndb $N1 "SELECT COUNT(*) FROM processes p JOIN units u ON p.unit=u.id WHERE u.job_id=$J4 AND (p.comm='true' OR (p.comm='sleep' AND p.status & 127 != 0))")" -eq 31 ]
check "no unit of the cancelled job is left running" \
  [ "$(ndb $N1 "SELECT COUNT(*) FROM units WHERE job_id=$J4 AND state='RUNNING'")" -eq 0 ]

# --- naming work without changing it: SPANK options, TRACER_* variables; --tracer=off
J5=$(submit tracertest "-w $N1 -n1 --mem=50M -o /dev/null --tracer-pipeline=rnaseq --tracer-run=r7 --wrap 'srun --tracer-step=align /bin/true; /bin/true'")
J6=$(as tracertest "TRACER_PIPELINE_NAME=chipseq TRACER_RUN_NAME=r8 TRACER_STEP_NAME=peaks sbatch --parsable -w $N1 -n1 --mem=50M -o /dev/null --wrap /bin/true")
J7=$(submit tracertest "-w $N1 -n1 --mem=50M -o /dev/null --tracer=off --wrap 'srun /bin/true; /bin/true'")
check "labelled and untraced jobs ran" wait_jobs "$J5" "$J6" "$J7"
check "sbatch --tracer-pipeline/--tracer-run, srun --tracer-step: the units carry them" \
  [ "$(ndb $N1 "SELECT group_concat(n, ' ') FROM (SELECT name || '=' || pipeline || '/' || run || '/' || COALESCE(step_name, '') AS n FROM units WHERE job_id=$J5 AND step_id IN (0, 4294967291) ORDER BY name)")" = "$J5.0=rnaseq/r7/align $J5.batch=rnaseq/r7/" ]
check "TRACER_PIPELINE_NAME/RUN/STEP in the job's environment name it" \
  [ "$(ndb $N1 "SELECT pipeline || '/' || run || '/' || step_name FROM units WHERE name='$J6.batch'")" = "chipseq/r8/peaks" ]
check "--tracer=off: job $J7 ran and nothing of it is recorded" \
  [ "$(exit_of "$J7")" = "0:0" -a "$(ndb $N1 "SELECT COUNT(*) FROM processes p JOIN units u ON p.unit=u.id WHERE u.job_id=$J7 AND u.step_id IN (0, 4294967291)")" -eq 0 ]
for n in $N1 $N2; do check "$n: 0 lost events during this test" [ "$(lost $n)" = "${LOST0[$n]}" ]; done

# --- an unprivileged user holds every connection it can get and floods newlines while a job
# runs on the same node: the plugin, prolog and epilog still get in (slots kept for root and
# SlurmUser), and the job is traced whole
id -u tracer-attacker > /dev/null 2>&1 || useradd -r -M -d /nonexistent -s /usr/sbin/nologin tracer-attacker
atk() { setpriv --reuid=tracer-attacker --regid="$(id -g tracer-attacker)" --clear-groups \
  /usr/bin/python3 "$(prog attacker.py)" "$BASE/run/tracerd-$N1.sock" "$@"; }
atk hold 500 12 > "$T/hold.out" 2>&1 & A1=$!
atk newlines 100 4 > "$T/newlines.out" 2>&1 & A2=$!
sleep 1
J8=$(submit tracertest "-w $N1 $JOBS/two-steps.sh")
check "under attack: job $J8 ran and ended" wait_jobs "$J8"
wait $A1 $A2 2>/dev/null # both outlast the job (12 s; a flood stops after 10 s)
echo "  attacker: $(head -c 100 "$T/hold.out"); newlines: $(head -c 100 "$T/newlines.out")"
check "under attack: the attacker did hold connections" grep -q '[1-9]' "$T/hold.out"
check "under attack: the batch step's 50 true" \
  [ "$(ndb $N1 "SELECT COUNT(*) FROM processes p JOIN units u ON p.unit=u.id WHERE u.name='$J8.batch' AND p.comm='true'")" -eq 50 ]
check "under attack: step 0's two tasks, 100 true each" \
  [ "$(ndb $N1 "SELECT COUNT(*) FROM processes p JOIN units u ON p.unit=u.id WHERE u.name='$J8.0' AND p.comm='true'")" -eq 200 ]
check "under attack: step 1's bash, head and gzip" \
  [ "$(ndb $N1 "SELECT group_concat(comm, ' ') FROM (SELECT p.comm FROM processes p JOIN units u ON p.unit=u.id WHERE u.name='$J8.1' ORDER BY p.comm)")" = "bash gzip head" ]
check "under attack: the job's units ended COMPLETED" \
  [ "$(ndb $N1 "SELECT COUNT(*) FROM units WHERE job_id=$J8 AND state!='COMPLETED'")" -eq 0 ]

# --- tracerd down, hanging or answering garbage: jobs run and end as they would anyway
fake_tracerd() { # fake_tracerd MODE: replace N1's socket with a peer that hangs or talks nonsense
  python3 - "$BASE/run/tracerd-$N1.sock" "$1" <<'PY' &
import os, socket, sys, time
path, mode = sys.argv[1], sys.argv[2]
try: os.unlink(path)
except FileNotFoundError: pass
s = socket.socket(socket.AF_UNIX); s.bind(path); os.chmod(path, 0o666); s.listen(64)
s.settimeout(60); conns = []
while True:
    try: c, _ = s.accept()
    except socket.timeout: break
    conns.append(c)
    if mode == "garbage":
        c.recv(65536); c.sendall(b"\x00\xff{{not json\n" * 3)
PY
  FAKE=$!
  sleep 0.5
}
kill "$(cat "$BASE/run/tracerd-$N1.pid")"; sleep 0.5
for mode in down hang garbage; do
  [ $mode = down ] || fake_tracerd $mode
  t0=$(date +%s.%N)
  J=$(submit tracertest "-w $N1 -n1 --mem=50M -o /dev/null --wrap 'srun -n1 /bin/true; exit 3'")
  wait_jobs "$J"
  t1=$(date +%s.%N)
  check "tracerd $mode: the job ended FAILED with exit code 3:0 ($(exit_of "$J"))" [ "$(exit_of "$J")" = "3:0" ]
  check "tracerd $mode: slurmstepd did not crash (no core, job not NODE_FAIL)" \
    [ "$(sacct -n -X -P -j "$J" --format=State | head -1)" = FAILED ]
  echo "  tracerd $mode: sbatch to end $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s"
  [ $mode = down ] || { kill $FAKE 2>/dev/null; wait $FAKE 2>/dev/null; }
done
rm -f "$BASE/run/tracerd-$N1.sock"
"$CLUSTER" tracerd $N1 > "$T/cluster2.log" 2>&1 || fail "$N1's tracerd started again after the tracerd tests"
check "$N1's tracerd answers again" "$BUILD/tracerctl" -N $N1 status > /dev/null
finish
