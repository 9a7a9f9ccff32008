# Workflows on the real test cluster (tests/slurm-docker/cluster), as a user runs them:
# - a Snakemake workflow (Debian's snakemake 7.21, `--slurm`) of real tools from Debian's
#   packages -- bwa index, bwa mem | samtools view, samtools sort, samtools index, bcftools
#   mpileup | bcftools call -- on small data made here (workflow/Snakefile, make-data.py);
# - the same workflow as Nextflow 24.04's Slurm executor runs it: task work directories with
#   .command.run / .command.sh (workflow/nextflow.py), `sbatch .command.run` from each.
# tracer-jobstat --workflow shows every rule (process) as a step with its tools named right,
# the pipeline as the workflow's directory, the same step/tool view for both engines, and each
# tool invocation's CPU and peak RSS as /usr/bin/time -v reported that very invocation (each
# tool runs under `/usr/bin/time -v -o FILE`), within the collect core's bounds. The Snakemake
# jobs arrive at an OTLP receiver as one trace each, in protobuf.
# Skipped (with the reason) only when snakemake cannot be installed. The cluster is shared:
# brought up (idempotent) and left running; the jobs run on the test's own node.
# lane: cluster cpu: 0.5
. "$(dirname "$0")/lib.sh"
CLUSTER=$TOP/tests/slurm-docker/cluster
BASE=${TRACER_SLURM_DIR:-/var/tmp/tracer-slurm}
HERE=$TOP/tests/integration/workflow
JS=$BUILD/tracer-jobstat
t0=$(date +%s)

workflow_tools || { finish; exit $?; }
# the cluster's tracerds stream what they record to a real OTLP receiver meanwhile: each
# Snakemake job arrives as one trace (tests/integration/otlp_trace.py)
otlp_receiver_start || { finish; exit 1; }
cluster_up
cluster_export http/protobuf
START=$(date +%Y-%m-%dT%H:%M:%S)
# the engines' jobs keep to this test's node (each node has its name as a feature)
as() { su tracertest -c "cd '$1' && SLURM_CONF=$SLURM_CONF TRACER_CONF=$TRACER_CONF SBATCH_CONSTRAINT=$N1 $2"; }
js() { as "$T" "'$JS' -S $START $*"; } # as the user who ran the workflow
counted() { # FILE: compare.py's "ok   …" / "FAIL …" lines counted as this test's results
  while IFS= read -r line; do
    case $line in "ok   "*) ok "${line#ok   }" ;; "FAIL "*) fail "${line#FAIL }" ;; *) echo "  $line" ;; esac
  done < "$1"
}
listed() { # JOBID,...: until a listing by time (sacct -S, tracer-jobstat without -j) has them
  # all ended: a job's end reaches the accounting after the job (and Nextflow's .exitcode), and
  # such a listing shows a job only a moment after it, as sacct does (60 s at most)
  local n; n=$(tr ',' '\n' <<< "$1" | grep -c .)
  for _ in $(seq 300); do
    [ "$(sacct -S "$START" -X -P -n -o JobID,State | grep -E "^(${1//,/|})\|" |
         grep -cvE 'RUNNING|PENDING|COMPLETING')" -eq "$n" ] && return 0
    sleep 0.2
  done
  return 1
}

# --- Snakemake --slurm: the pipeline is the workflow directory's name
WF=$(mktemp -d "$T/variant-calling-XXXX")
P=$(basename "$WF")
cp "$HERE/Snakefile" "$WF/"
python3 "$HERE/make-data.py" "$WF/data"
chown -R tracertest "$WF"
# Snakemake's slurm executor wants an account (guessed from sacct, checked with sacctmgr) and
# a partition (sinfo's default otherwise): given here; it checks a job's state every 30 s
# unless told to check more often
ts=$(date +%s)
as "$WF" "snakemake --slurm --jobs 4 --default-resources slurm_account=tracer slurm_partition=debug \
  runtime=10 mem_mb=500 --max-status-checks-per-second 1 --latency-wait 10 > snakemake.log 2>&1"
rc=$?
check "snakemake --slurm ran the workflow ($(($(date +%s) - ts)) s, exit $rc, $(grep -vc '^#' "$WF/calls/all.vcf" 2>/dev/null) variants called)" \
  [ $rc -eq 0 -a -s "$WF/calls/all.vcf" ]
[ $rc -eq 0 ] || tail -30 "$WF/snakemake.log"
jobs=$(grep -o 'submitted with SLURM jobid [0-9]*' "$WF/snakemake.log" | grep -o '[0-9]*$' | paste -sd,)
check "Snakemake submitted 8 jobs ($jobs)" [ "$(tr ',' '\n' <<< "$jobs" | grep -c .)" -eq 8 ]
listed "$jobs"
check "every process of the 8 jobs arrived at the OTLP receiver as a span" otlp_arrived ${jobs//,/ }
otlp_shape protobuf ${jobs//,/ }

echo "  tracer-jobstat --pipeline $P --workflow"
js "--pipeline $P --workflow" | sed 's/^/  | /'
js "--pipeline $P --workflow --json" > "$T/smk-wf.json"
js "--pipeline $P --processes --json" > "$T/smk-procs.json"
python3 "$HERE/compare.py" snakemake "$P" "$T/smk-wf.json" "$T/smk-procs.json" "$WF"/time/*.txt > "$T/cmp" 2>&1
counted "$T/cmp"

# each job: the pipeline, one run for all, the rule of its job name as the step, its wildcards
rows=$(js "--pipeline $P -X -P -n -o JobID,JobName%60,Pipeline%60,Run,Step,Wildcards")
echo "$rows" | sed 's/^/  | /'
check "--pipeline: the 8 jobs Snakemake submitted" [ "$(cut -d'|' -f1 <<< "$rows" | sort -n | paste -sd,)" = "$jobs" ]
check "every job: Pipeline $P, Step = the rule of its job name snakejob_<rule>_<id>" \
  [ "$(awk -F'|' -v p="$P" '{ r = $2; sub(/^snakejob_/, "", r); sub(/_[0-9]+$/, "", r); if ($3 != p || $5 != r) bad++ } END { print bad + 0 }' <<< "$rows")" -eq 0 ]
R=$(cut -d'|' -f4 <<< "$rows" | sort -u)
check "one run for the whole invocation ($R)" [ "$(wc -l <<< "$R")" -eq 1 -a -n "$R" ]
check "wildcards of the per-sample jobs (sample=A, sample=B)" \
  [ "$(awk -F'|' '$6 != "" { print $6 }' <<< "$rows" | sort | uniq -c | awk '{ print $1 $2 }' | paste -sd,)" = "3sample=A,3sample=B" ]
check "--run $R --workflow: the same view as --pipeline $P" \
  [ "$(js "--run $R --workflow -P -n")" = "$(js "--pipeline $P --workflow -P -n")" ]
check "--pipeline $P --run no-such-run: nothing" [ -z "$(js "--pipeline $P --run no-such-run -P -n" 2>/dev/null)" ]
check "--pipeline $P,other: still the 8 jobs" [ "$(js "--pipeline $P,other -X -P -n -o JobID" | wc -l)" -eq 8 ]
check "--tools rows carry the step (bwa_map: bwa mem)" \
  bash -c "su tracertest -c \"SLURM_CONF=$SLURM_CONF TRACER_CONF=$TRACER_CONF '$JS' -S $START --pipeline $P --tools -P -n -o Step,Tool\" | grep -qx 'bwa_map|bwa mem'"

# --- the same workflow as Nextflow's Slurm executor runs it
NF=$(mktemp -d "$T/nf-variant-calling-XXXX")
NP=$(basename "$NF")
python3 "$HERE/make-data.py" "$T/nf-data"
python3 "$HERE/nextflow.py" "$NF" "$T/nf-data" > "$T/tasks.tsv"
chown -R tracertest "$NF" "$T/nf-data"
ts=$(date +%s)
nf_ok=1 nf_jobs=
for level in 0 1 2 3 4; do # a task is submitted once its inputs exist; it is done at .exitcode
  while IFS=$'\t' read -r l wd proc tag; do
    [ "$l" = "$level" ] || continue
    out=$(as "$wd" "sbatch .command.run") || nf_ok=0 # "Submitted batch job N", as Nextflow reads it
    nf_jobs=$nf_jobs${nf_jobs:+,}${out##* }
  done < "$T/tasks.tsv"
  for _ in $(seq 600); do
    awk -F'\t' -v l=$level '$1 == l { print $2 "/.exitcode" }' "$T/tasks.tsv" | xargs ls > /dev/null 2>&1 && break
    sleep 0.2
  done
  for wd in $(awk -F'\t' -v l=$level '$1 == l { print $2 }' "$T/tasks.tsv"); do
    [ "$(cat "$wd/.exitcode" 2>/dev/null)" = 0 ] || { nf_ok=0; echo "  task $wd: exit $(cat "$wd/.exitcode" 2>/dev/null)"; tail -5 "$wd/.command.log" 2>/dev/null; }
  done
done
listed "$nf_jobs"
check "8 Nextflow-shaped tasks ran through sbatch .command.run ($nf_jobs, $(($(date +%s) - ts)) s)" [ $nf_ok = 1 ]
echo "  tracer-jobstat --pipeline $NP --workflow"
js "--pipeline $NP --workflow" | sed 's/^/  | /'
js "--pipeline $NP --workflow --json" > "$T/nf-wf.json"
js "--pipeline $NP --processes --json" > "$T/nf-procs.json"
python3 "$HERE/compare.py" nextflow "$NP" "$T/nf-wf.json" "$T/nf-procs.json" "$NF"/work/*/*/.time.* > "$T/cmp" 2>&1
python3 "$HERE/compare.py" same "$T/smk-wf.json" "$T/nf-wf.json" >> "$T/cmp" 2>&1
counted "$T/cmp"
rows=$(js "--pipeline $NP -X -P -n -o JobID,JobName%60,Pipeline%60,Step%60,Tag")
echo "$rows" | sed 's/^/  | /'
check "--pipeline $NP: the 8 tasks' jobs" [ "$(cut -d'|' -f1 <<< "$rows" | paste -sd,)" = "$nf_jobs" ]
check "every task: Pipeline $NP, Step = the process, Tag = the tag of its task name" \
  [ "$(awk -F'|' -v p="$NP" '{ n = $2; sub(/^nf-VARIANT_CALLING_/, "", n); s = $4; sub(/^VARIANT_CALLING:/, "", s); if ($3 != p || n != s "_(" $5 ")") bad++ } END { print bad + 0 }' <<< "$rows")" -eq 0 -a "$(wc -l <<< "$rows")" -eq 8 ]
echo "  whole test: $(($(date +%s) - t0)) s"
finish
