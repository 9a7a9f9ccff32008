# The advice holds when followed, on the real test cluster (tests/slurm-docker/cluster):
# - a job whose batch script holds 100 MiB while its srun step holds 100 MiB too is told a
#   --mem that covers both (Slurm's --mem limits the job cgroup, which holds all its steps at
#   once); resubmitted with it, it completes; with 0.8 x of it, it is OOM-killed (the advice
#   is not just inflated);
# - a Snakemake workflow (`snakemake --slurm`: the engine in the batch step, its tool in an
#   srun step) is told one --set-threads/--set-resources line for all its rules; run again
#   with it, no job is OOM-killed; with 0.8 x of each mem_mb, at least one is;
# - a job Slurm failed before its script ran (its output file cannot be opened: 0:53) is
#   reported 100 times (5 more under valgrind) without a crash or a memory error, with a note
#   naming the cause;
# - a Snakemake rule outgrowing its mem_mb is reported at its limit (peak and MemEff not above
#   it) with the tool that grew named, not the engine.
# The cluster is shared: it is brought up (idempotent) and left running.
# lane: cluster nodes: 2 cpu: 0.2
. "$(dirname "$0")/lib.sh"
cluster_up
JS=$BUILD/tracer-jobstat
JOBS=$T/jobs; mkdir -p "$JOBS"; chmod 777 "$JOBS"
state() { sacct -n -X -P -j "$1" -o State | head -1 | cut -d' ' -f1; }
mem_advice() { sed -nE 's/.*next time: .*--mem=([0-9]+)M.*/\1/p' <<< "$1" | head -1; }

# the Snakemake workflow's first run (its advice followed, then cut to 0.8 x, below) runs on N1
# from the start, in the background; the jobs' sections meanwhile on N2
workflow_tools || { finish; exit $?; }
HERE=$TOP/tests/integration/workflow
smk() { # DIR NODE EXTRA-ARGS: run the workflow in a fresh DIR as the user, its jobs on NODE;
  # prints its job ids
  mkdir -p "$1"; cp "$HERE/Snakefile" "$1/"; python3 "$HERE/make-data.py" "$1/data"; chown -R tracertest "$1"
  su tracertest -c "cd '$1' && SLURM_CONF=$SLURM_CONF TRACER_CONF=$TRACER_CONF SBATCH_CONSTRAINT=$2 snakemake --slurm --jobs 4 \
    --default-resources slurm_account=tracer slurm_partition=debug runtime=10 mem_mb=500 $3 \
    --max-status-checks-per-second 1 --latency-wait 10 --keep-going > snakemake.log 2>&1"
  grep -o 'submitted with SLURM jobid [0-9]*' "$1/snakemake.log" | grep -o '[0-9]*$' | paste -sd,
}
smk "$T/wf1" $N1 "" > "$T/wf1.jobs" &
WF1=$!

# --- two steps at once: 100 MiB in the batch step, 100 MiB in an srun step
cat > "$JOBS/two.sh" <<'JOB'
#!/bin/bash
python3 -c "import time; x = b'x' * (100 << 20); time.sleep(6)" &
srun -n1 python3 -c "import time; x = b'x' * (100 << 20); time.sleep(4)"
wait
JOB
chmod 755 "$JOBS/two.sh"
J1=$(submit tracertest "-w $N2 -n1 --mem=1000M -t 5 -o /dev/null $JOBS/two.sh")
wait_ended "$J1"
out=$(as tracertest "$JS -j $J1")
echo "$out" | sed 's/^/  | /'
adv=$(mem_advice "$out")
check "two steps at once: the advice covers both ($(state "$J1"), --mem=${adv:-none}M)" \
  [ "${adv:-0}" -ge 240 ] # 1.2 x 200 MiB held at once
check "... named as the job cgroup's peak, or its steps' added" \
  grep -qE "peak memory .*\((job cgroup peak|its steps' peaks added)" <<< "$out"
J2=$(submit tracertest "-w $N2 -n1 --mem=${adv:-1000}M -t 5 -o /dev/null $JOBS/two.sh")
low=$(( ${adv:-1000} * 8 / 10 ))
J3=$(submit tracertest "-w $N2 -n1 --mem=${low}M -t 5 -o /dev/null $JOBS/two.sh")
wait_ended "$J2" "$J3"
check "resubmitted with --mem=${adv:-none}M, it completes ($(state "$J2"))" [ "$(state "$J2")" = COMPLETED ]
check "with 0.8 x, --mem=${low}M, it is OOM-killed ($(state "$J3"))" [ "$(state "$J3")" = OUT_OF_MEMORY ]
out=$(as tracertest "$JS -j $J3")
echo "$out" | sed 's/^/  | /'
lim=$(sed -nE 's/.*killed by the OOM killer at its ([0-9.]+)M limit \(peak ([0-9.]+)M.*/\1 \2/p' <<< "$out")
check "its OOM note puts the job's peak at its limit, not one step's below it ($lim)" \
  awk -v l="${lim% *}" -v p="${lim#* }" 'BEGIN { exit !(l > 0 && p >= 0.9 * l) }'
eff=$(as tracertest "$JS -j $J3 -X -P -n -o MemEff")
check "... and MemEff is not above 100 % of a limit it could not pass ($eff)" \
  awk -v e="${eff%\%}" 'BEGIN { exit !(e + 0 > 0 && e + 0 <= 100.5) }'

# --- a job that failed before its script ran: its output file cannot be opened
J4=$(submit tracertest "-w $N2 -n1 --mem=50M -o /nonexistent/dir/x.out --wrap true")
wait_ended "$J4"
crashes=0 named=0 vg=0
for i in $(seq 100); do
  out=$(as tracertest "$JS -j $J4" 2>&1); rc=$?
  [ $rc -ge 128 ] && crashes=$((crashes + 1))
  grep -q "ExitCode 0:53 is slurmd's error 4021" <<< "$out" && grep -q 'output or error file' <<< "$out" && named=$((named + 1))
done
for i in $(seq 5); do # under valgrind too: every read of memory initialised, nothing freed twice
  as tracertest "valgrind -q --error-exitcode=99 $JS -j $J4" > /dev/null 2> "$T/vg.$i" || vg=$((vg + 1))
done
echo "$out" | sed 's/^/  | /'
check "a job failed before its script ran ($(sacct -n -X -P -j "$J4" -o State,ExitCode)): 100 reports, $crashes crashes" [ $crashes -eq 0 ]
check "... each with a note naming the cause of 0:53 ($named of 100)" [ $named -eq 100 ]
check "... 5 more under valgrind, $vg with errors $(cat "$T"/vg.* | head -c 300)" [ $vg -eq 0 ]
check "... --json too, and valid" bash -c "su tracertest -c \"SLURM_CONF=$SLURM_CONF TRACER_CONF=$TRACER_CONF '$JS' -j $J4 --json\" | python3 -c 'import json,sys; d = json.load(sys.stdin); assert any(\"0:53\" in n for j in d[\"jobs\"] for n in j[\"notes\"]); assert d[\"jobs\"][0][\"failures\"][\"not_started\"][\"slurmd_error\"] == 4021'"

states() { sacct -n -X -P -j "$1" -o JobName,State | sort | uniq -c | awk '{ $1 = $1; print }' | paste -sd' '; }
# --- Snakemake: one advice for all the rules, followed, then cut to 0.8 x
# a rule OOM-killed at its mem_mb of 200 (the engines fit, the tool outgrows it), on N2: the
# job's peak is its limit, the tool that grew is named
mkdir -p "$T/oom"; cp "$HERE/oom.smk" "$T/oom/Snakefile"; chown -R tracertest "$T/oom"
su tracertest -c "cd '$T/oom' && SLURM_CONF=$SLURM_CONF TRACER_CONF=$TRACER_CONF SBATCH_CONSTRAINT=$N2 snakemake --slurm --jobs 1 \
  --default-resources slurm_account=tracer slurm_partition=debug runtime=10 \
  --max-status-checks-per-second 1 --latency-wait 5 > snakemake.log 2>&1"
J5=$(grep -o 'submitted with SLURM jobid [0-9]*' "$T/oom/snakemake.log" | grep -o '[0-9]*$')
wait_ended ${J5:-0}
out=$(as tracertest "$JS -j ${J5:-0}")
echo "$out" | sed 's/^/  | /'
lim=$(sed -nE 's/.*killed by the OOM killer at its ([0-9.]+)M limit \(peak ([0-9.]+)M.*/\1 \2/p' <<< "$out")
eff=$(as tracertest "$JS -j ${J5:-0} -X -P -n -o MemEff,Tool")
check "a Snakemake rule OOM-killed at mem_mb=200 ($(state "${J5:-0}")): its peak is not above its limit ($lim)" \
  awk -v l="${lim% *}" -v p="${lim#* }" 'BEGIN { exit !(l > 0 && p <= l && p >= 0.9 * l) }'
check "... MemEff at most 100 %, and its Tool not the engine ($eff)" \
  awk -F'|' '{ e = $1; sub(/%/, "", e); exit !(e + 0 > 0 && e + 0 <= 100.5 && $2 != "snakemake" && $2 != "") }' <<< "$eff"
check "... the tool that grew is named" grep -qE "the largest tool then: process [0-9]+ \(python3|python3 had grown to" <<< "$out"

wait $WF1
S1=$(cat "$T/wf1.jobs")
wait_ended ${S1//,/ }
out=$(as tracertest "$JS -j $S1")
echo "$out" | sed -n '/Next time, per Snakemake rule/,$p' | sed 's/^/  | /'
line=$(grep -E '^ +snakemake --set-threads' <<< "$out" | sed 's/^ *snakemake //')
check "one --set-threads/--set-resources line for the workflow's rules" \
  bash -c "grep -q 'bwa_index:mem_mb=' <<< '$line' && grep -q 'bwa_map:mem_mb=' <<< '$line'"
# followed on N1, and cut to 0.8 x on N2, at once
low=$(sed -E 's/(:mem_mb=)([0-9]+)/\1__\2__/g' <<< "$line" | awk '{ while (match($0, /__[0-9]+__/)) { v = substr($0, RSTART + 2, RLENGTH - 4); $0 = substr($0, 1, RSTART - 1) int(v * 0.8) substr($0, RSTART + RLENGTH) } print }')
smk "$T/wf3" $N2 "$low" > "$T/wf3.jobs" &
WF3=$!
S2=$(smk "$T/wf2" $N1 "$line")
wait $WF3
S3=$(cat "$T/wf3.jobs")
wait_ended ${S2//,/ } ${S3//,/ }
check "run with it: every job completes, none OOM-killed ($(states "$S2"))" \
  bash -c "[ -s '$T/wf2/calls/all.vcf' ] && ! sacct -n -X -P -j $S2 -o State | grep -qv COMPLETED"
check "with 0.8 x of each mem_mb, at least one job is OOM-killed ($(states "$S3"))" \
  bash -c "sacct -n -X -P -j $S3 -o State | grep -q OUT_OF_MEMORY"
finish
