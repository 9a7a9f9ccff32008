# Failure and waste signals on real jobs of the test cluster (tests/slurm-docker/cluster, whose
# tracer.conf sets StallAfter = 5s and SampleInterval = 1s):
#   a tool blocked on a FIFO for twice StallAfter is stalled, live (tracerctl status) and after
#   (the job's notes, its process row);
#   a parent blocked reading a pipe from its srun (whose step sleeps past StallAfter), and a
#   workflow engine waiting on a FIFO with no child of its own, are not stalled;
#   a job that works and then sleeps has its idle window, to the second of the sleep;
#   of two runs of a 2-step pipeline, the one whose step was slowed by I/O wait is slower than
#   usual, for that reason.
# The cluster is shared: it is brought up (idempotent) and left running.
# lane: cluster nodes: 2 cpu: 1
. "$(dirname "$0")/lib.sh"
cluster_up
JS=$BUILD/tracer-jobstat
JOBS=$T/jobs; mkdir -p "$JOBS"; chmod 777 "$JOBS"
HOLD=$(prog cpuburn) && WAITS=$(prog waits) || { fail "building test programs"; finish; exit 1; }
cp "$HOLD" "$WAITS" "$JOBS/" && chmod 755 "$JOBS"/*
HOLD=$JOBS/cpuburn WAITS=$JOBS/waits
accounted() { # accounted JOBID...: ended, and in Slurm's accounting as ended (for tracer-jobstat)
  wait_jobs "$@" || return 1
  for _ in $(seq 300); do
    sacct -n -X -P -j "$(IFS=,; echo "$*")" -o State | grep -qE 'RUNNING|PENDING|COMPLETING' || return 0
    sleep 0.1
  done
  return 1
}

# --- a stall: cat waits 12 s on a FIFO nobody opens
cat > "$JOBS/stall.sh" <<JOB
#!/bin/bash
#SBATCH -w $N1 -n1 --mem=50M -t 2 -o /dev/null -J stall
mkfifo $JOBS/fifo
($HOLD 12; echo go > $JOBS/fifo) &   # busy, never stalled itself
cat $JOBS/fifo > /dev/null
wait
JOB
JS1=$(submit tracertest "$JOBS/stall.sh")
live=""
for _ in $(seq 150); do
  live=$("$BUILD/tracerctl" -N $N1 status 2>/dev/null | grep -A3 'stalled processes' | grep ' cat ')
  [ -n "$live" ] && break
  sleep 0.1
done
echo "  live: $live"
check "the stalled cat is listed by tracerctl status while it runs" grep -q "job $JS1.*waiting on a pipe or FIFO" <<< "$live"
user_live=$(as tracertest2 "$BUILD/tracerctl -N $N1 status" 2>/dev/null | grep -c ' cat ')
check "another user's status does not list it" [ "$user_live" = 0 ]
running=$("$JS" -j "$JS1" 2>/dev/null)
check "tracer-jobstat of the running job says it is stalled" grep -q "cat.*stalled since" <<< "$running"

# --- not stalls: a parent reading a pipe from the srun it started, whose step sleeps 12 s (as
# an engine reads its step's output), and an engine (a script named snakemake) waiting 12 s on a
# FIFO for work it does not run itself
cat > "$JOBS/snakemake" <<'ENGINE'
#!/usr/bin/python3
import sys
open(sys.argv[1]).read()
ENGINE
chmod 755 "$JOBS/snakemake"
cat > "$JOBS/waiters.sh" <<JOB
#!/bin/bash
#SBATCH -w $N1 -n1 --mem=200M -t 2 -o /dev/null -J waiters
python3 -c 'import subprocess; subprocess.run(["srun", "-n1", "sleep", "12"], stdout=subprocess.PIPE)' &
mkfifo $JOBS/fifo2
($HOLD 12; echo go > $JOBS/fifo2) &
$JOBS/snakemake $JOBS/fifo2
wait
JOB
JW=$(submit tracertest "$JOBS/waiters.sh")

# --- idle: 3 s of work, then a 20 s sleep, timed by the shell's own clock ($EPOCHREALTIME, a
# decimal point whatever the locale): a date(1) to fork and load can start seconds late beside
# the pipeline's synced writes
cat > "$JOBS/idle.sh" <<JOB
#!/bin/bash
#SBATCH -w $N2 -n1 --mem=50M -t 2 -o $JOBS/idle.out -J idle
$HOLD 3
echo \${EPOCHREALTIME/,/.}
sleep 20
echo \${EPOCHREALTIME/,/.}
JOB
JI=$(submit tracertest "$JOBS/idle.sh")

# --- slower than usual: a pipeline of two steps run twice; the second's align also syncs writes
# (a pipeline name of this run alone: the cluster's store keeps earlier runs' history, and a
# pid may come round again)
cat > "$JOBS/pipe.sh" <<JOB
#!/bin/bash
#SBATCH -w $N1 -n1 --mem=500M -t 3 -o /dev/null --tracer-pipeline=sigtest-$(date +%s%N)
srun --tracer-step=align bash -c '$HOLD 1; [ "\$1" != slow ] || $WAITS io $JOBS/io.\$SLURM_JOB_ID 1024' x "\$1"
srun --tracer-step=sort $HOLD 0.5
JOB
check "the stall, waiting and idle jobs ended" accounted "$JS1" "$JW" "$JI"
JP1=$(submit tracertest "--tracer-run=r1 $JOBS/pipe.sh")
check "the first pipeline run ended" accounted "$JP1"
JP2=$(submit tracertest "--tracer-run=r2 $JOBS/pipe.sh slow")
check "the second pipeline run ended" accounted "$JP2"

out=$("$JS" -j "$JS1" 2>&1)
echo "$out" | sed 's/^/    /'
check "afterwards: the job's notes say cat stalled, from when to when, and in what" \
  grep -qE "cat stalled [0-9:]+.[0-9:]+ \(waiting on a pipe or FIFO\)" <<< "$out"
STATE=$(awk -F' *= *' '$1 == "StateDir" { print $2 }' "$TRACER_CONF")
stall_ns=$(sqlite3 "$STATE/$N1/tracer.db" "SELECT stall_ns FROM processes WHERE comm='cat' AND unit IN (SELECT id FROM units WHERE job_id=$JS1)")
# the job's own time, as Slurm has it: cat waits as long as the 12 s of CPU take to get done
job_s=$(sacct -n -X -P -j "$JS1" -o ElapsedRaw | head -1)
echo "  stall of cat: ${stall_ns:-none} ns; the job ran ${job_s:-?} s"
check "cat's process row has its stall (at least 2 x StallAfter, at most the job's time)" \
  awk -v n="${stall_ns:-0}" -v j="${job_s:-0}" 'BEGIN { exit !(n >= 10e9 && n <= (j + 1) * 1e9) }'

stalled=$(sqlite3 "$STATE/$N1/tracer.db" "SELECT comm, stall_ns, stall_reason FROM processes WHERE stall_ns > 0 AND unit IN (SELECT id FROM units WHERE job_id=$JW)")
echo "  stalls of the waiting job: ${stalled:-none}"
check "the parent reading its srun's pipe is not stalled" bash -c "! grep -q '^python3|' <<< \"\$1\"" _ "$stalled"
check "srun waiting for its step is not stalled" bash -c "! grep -q '^srun|' <<< \"\$1\"" _ "$stalled"
check "the engine waiting on a FIFO is not stalled" bash -c "! grep -q '^snakemake|' <<< \"\$1\"" _ "$stalled"
out=$("$JS" -j "$JW" 2>&1)
check "the waiting job's notes name no stalled parent, srun or engine" \
  bash -c "! grep -qE '(python3|srun|snakemake) stalled' <<< \"\$1\"" _ "$out"

out=$("$JS" -j "$JI" 2>&1)
echo "$out" | sed 's/^/    /'
read -r slept_from slept_to < <(tr '\n' ' ' < "$JOBS/idle.out")
# the note: "idle N s of M s, since HH:MM:SS"
read -r idle_s since < <(sed -nE 's/.*idle ([0-9]+) s of [0-9]+ s, since ([0-9]{2}:[0-9]{2}:[0-9]{2}).*/\1 \2/p' <<< "$out")
slept=$(awk -v a="${slept_from:-0}" -v b="${slept_to:-0}" 'BEGIN { printf "%.0f", b - a }')
echo "  idle: ${idle_s:-none} s since ${since:-none}; the job slept $slept s from $(date -d "@${slept_from%.*}" +%T)"
check "the idle stretch lasts as long as the sleep, to the second" \
  awk -v a="${idle_s:-0}" -v b="$slept" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1) }'
since_s=$(date -d "$(date -d "@${slept_from%.*}" +%F) ${since:-00:00:00}" +%s 2>/dev/null || echo 0)
check "it starts when the sleep started, to the second" \
  awk -v a="$since_s" -v b="${slept_from:-0}" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1.5) }'
check "the notes say how long the job sat idle, and since when" grep -qE "idle [0-9]+ s of [0-9]+ s, since [0-9:]+" <<< "$out"

out=$("$JS" -j "$JP2" 2>&1)
echo "$out" | sed 's/^/    /'
check "the slowed run's align is slower than usual, for its I/O wait" \
  grep -qE "align took [0-9.]+.* its median of the last 1 run.*I/O wait" <<< "$out"
check "its align's cgroup peak at the limit (1 GiB written) is said to be page cache, not a risk" \
  bash -c "grep -q 'memory at the limit is page cache' <<< \"\$1\" && ! grep -q 'memory near the limit' <<< \"\$1\"" _ "$out"
check "its sort is not called slower" bash -c "! grep -q 'sort took' <<< \"\$1\"" _ "$out"
check "its sruns, waiting for their steps, are not called stalled" bash -c "! grep -q 'stalled' <<< \"\$1\"" _ "$out"
out=$("$JS" -j "$JP1" 2>&1)
check "the first run has no history to be slower than" bash -c "! grep -q 'its median' <<< \"\$1\"" _ "$out"
finish
