#!/usr/bin/env bash
# smoke.sh — bring the local test cluster up and check the job scenarios that
# tracer's integration tests rely on, as the unprivileged test users:
#   batch script with two srun steps, 2-node srun, 3-task array, scancel of a
#   running job, a failing job, a cgroup OOM kill, and Snakemake-style
#   submission/polling (sbatch --parsable, squeue, sacct --format).
#
#   smoke.sh [--clean] [--down]
#     --clean   `cluster down --purge` first (start from nothing)
#     --down    `cluster down` at the end
#
# Prints one line per check and finally "N passed, M failed"; exits 1 on any failure.

set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CLUSTER=$SCRIPT_DIR/cluster
BASE=${TRACER_SLURM_DIR:-/var/tmp/tracer-slurm}
U1=tracertest
U2=tracertest2
JOB_TIMEOUT=${SMOKE_JOB_TIMEOUT:-90}

clean=0 down=0
for a in "$@"; do
    case $a in
        --clean) clean=1 ;;
        --down)  down=1 ;;
        *) echo "usage: smoke.sh [--clean] [--down]" >&2; exit 2 ;;
    esac
done

PASS=0 FAIL=0
ok()  { PASS=$((PASS + 1)); printf 'ok    %s\n' "$*"; }
bad() { FAIL=$((FAIL + 1)); printf 'FAIL  %s\n' "$*"; }
# check DESCRIPTION CMD...: pass when CMD succeeds.
check() { local d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }

finish() {
    if ((down)); then "$CLUSTER" down >/dev/null || bad "cluster down"; fi
    echo "$PASS passed, $FAIL failed"
    ((FAIL == 0))
}

if ((clean)); then
    "$CLUSTER" down --purge
fi
if ! "$CLUSTER" up; then
    bad "cluster up"
    finish
    exit 1
fi
ok "cluster up"
# shellcheck source=/dev/null
. "$BASE/env.sh"

check "cluster status exits 0" "$CLUSTER" status >/dev/null

# A scratch dir per user for job scripts and outputs.
WORK=$BASE/smoke
mkdir -p "$WORK"
chmod 755 "$WORK"
for u in $U1 $U2; do
    rm -rf "${WORK:?}/$u"
    install -d -m 755 -o "$u" "$WORK/$u"
done

# as USER CMD...: run CMD as USER in the user's scratch dir with SLURM_CONF set.
as() {
    local u=$1; shift
    (cd "$WORK/$u" && runuser -u "$u" -- env HOME="$WORK/$u" SLURM_CONF="$SLURM_CONF" "$@")
}

# state JOBID [STEP]: the sacct state of a job (or of JOBID.STEP), first word only.
state() {
    local id=$1${2:+.$2}
    sacct -n -P -j "$1" --format=JobID,State 2>/dev/null |
        awk -F'|' -v id="$id" '$1 == id { split($2, w, " "); print w[1]; exit }'
}

# wait_done JOBID: until the job has left the queue and sacct has a final state.
wait_done() {
    local id=$1 end=$((SECONDS + JOB_TIMEOUT)) st
    while ((SECONDS < end)); do
        if [[ -z $(squeue -h -j "$id" -o %i 2>/dev/null) ]]; then
            st=$(state "$id")
            case $st in
                COMPLETED|FAILED|CANCELLED|TIMEOUT|OUT_OF_MEMORY|NODE_FAIL) return 0 ;;
            esac
        fi
        sleep 1
    done
    echo "job $id did not finish within ${JOB_TIMEOUT}s: $(sacct -n -P -j "$id" --format=JobID,State | tr '\n' ' ')" >&2
    return 1
}

# wait_array_done JOBID N: N array records in sacct, all with a final state.
wait_array_done() {
    local id=$1 n=$2 end=$((SECONDS + JOB_TIMEOUT)) states
    while ((SECONDS < end)); do
        states=$(sacct -n -X -P -j "$id" --format=JobID,State 2>/dev/null | grep "^${id}_[0-9]")
        if [[ -z $(squeue -h -j "$id" -o %i 2>/dev/null) ]] &&
           [[ $(grep -c . <<<"$states") -eq $n ]] &&
           [[ -z $(cut -d'|' -f2 <<<"$states" | grep -vE '^(COMPLETED|FAILED|CANCELLED|TIMEOUT|OUT_OF_MEMORY)') ]]; then
            return 0
        fi
        sleep 1
    done
    echo "array $id did not finish within ${JOB_TIMEOUT}s: $(tr '\n' ' ' <<<"$states")" >&2
    return 1
}

sacct_has() {          # sacct_has JOBID ID STATE: sacct lists ID with STATE
    sacct -n -P -j "$1" --format=JobID,State | awk -F'|' -v id="$2" -v s="$3" \
        '$1 == id && index($2, s) == 1 { f = 1 } END { exit !f }'
}

# --- 1. batch script with two srun steps (user 1) -----------------------------
cat >"$WORK/$U1/two-steps.sh" <<'EOF'
#!/bin/bash
#SBATCH -J smoke-two-steps
#SBATCH -N 1
#SBATCH -n 1
#SBATCH -o two-steps.out
srun hostname
srun sleep 1
echo done
EOF
chown "$U1" "$WORK/$U1/two-steps.sh"
if j1=$(as $U1 sbatch --parsable two-steps.sh) && wait_done "$j1"; then
    for id in "$j1" "$j1.batch" "$j1.0" "$j1.1"; do
        check "two-step batch: $id COMPLETED" sacct_has "$j1" "$id" COMPLETED
    done
    if grep -q '^PrologFlags=.*Contain' "$SLURM_CONF"; then
        check "two-step batch: $j1.extern COMPLETED" sacct_has "$j1" "$j1.extern" COMPLETED
    fi
    check "two-step batch: sacct User is $U1" \
        bash -c "sacct -n -X -P -j $j1 --format=User | grep -qx $U1"
    check "two-step batch: output written" grep -q '^done$' "$WORK/$U1/two-steps.out"
else
    bad "two-step batch job ran (${j1:-no job id})"
fi

# --- 2. 2-node srun (user 1) --------------------------------------------------
if out=$(as $U1 timeout 60 srun -N2 -J smoke-srun-n2 bash -c 'echo $SLURM_JOB_ID $SLURMD_NODENAME'); then
    check "srun -N2 ran on n1 and n2" test "$(awk '{ print $2 }' <<<"$out" | sort | tr '\n' ' ')" = "n1 n2 "
    j2=$(awk '{ print $1; exit }' <<<"$out")
    if [[ -n $j2 ]] && wait_done "$j2"; then
        check "srun -N2: $j2 COMPLETED" sacct_has "$j2" "$j2" COMPLETED
        check "srun -N2: $j2.0 COMPLETED" sacct_has "$j2" "$j2.0" COMPLETED
        check "srun -N2: NodeList n[1-2]" \
            bash -c "sacct -n -X -P -j $j2 --format=NodeList | grep -qx 'n\[1-2\]'"
    else
        bad "srun -N2 job in sacct"
    fi
else
    bad "srun -N2 as $U1: $out"
fi

# --- 3. 3-task array (user 2) -------------------------------------------------
if j3=$(as $U2 sbatch --parsable --array=1-3 -J smoke-array -o 'array-%A_%a.out' \
        --wrap 'echo task $SLURM_ARRAY_TASK_ID on $SLURMD_NODENAME; sleep 1') &&
   wait_array_done "$j3" 3; then
    for t in 1 2 3; do
        check "array: ${j3}_$t COMPLETED" sacct_has "$j3" "${j3}_$t" COMPLETED
        check "array: output of task $t" grep -q "^task $t on n[12]$" "$WORK/$U2/array-${j3}_$t.out"
    done
    check "array: sacct User is $U2" \
        bash -c "sacct -n -X -P -j $j3 --format=User | sort -u | grep -qx $U2"
else
    bad "array job ran (${j3:-no job id})"
fi

# --- 4. scancel of a running job (user 2) -------------------------------------
if j4=$(as $U2 sbatch --parsable -J smoke-cancel -o /dev/null --wrap 'srun sleep 300'); then
    end=$((SECONDS + JOB_TIMEOUT))
    while ((SECONDS < end)) && [[ $(squeue -h -j "$j4" -o %T) != RUNNING ]]; do sleep 0.5; done
    sleep 2        # let the srun step start
    check "scancel: job was RUNNING" test "$(squeue -h -j "$j4" -o %T)" = RUNNING
    check "scancel by the owner" as $U2 scancel "$j4"
    if wait_done "$j4"; then
        check "scancel: $j4 CANCELLED" sacct_has "$j4" "$j4" CANCELLED
    else
        bad "scancel: job $j4 ended"
    fi
else
    bad "scancel: sbatch"
fi

# --- 5. a failing job keeps its exit code (user 1) ----------------------------
if j5=$(as $U1 sbatch --parsable -J smoke-fail -o /dev/null --wrap 'exit 3') && wait_done "$j5"; then
    check "failing job: FAILED" sacct_has "$j5" "$j5" FAILED
    check "failing job: ExitCode 3:0" \
        bash -c "sacct -n -X -P -j $j5 --format=ExitCode | grep -qx 3:0"
else
    bad "failing job ran"
fi

# --- 6. OOM kill by the cgroup memory limit (only with task/cgroup) -----------
if grep -q '^TaskPlugin=task/cgroup' "$SLURM_CONF"; then
    if j6=$(as $U1 sbatch --parsable -J smoke-oom --mem=50M -o /dev/null \
            --wrap 'head -c 300M /dev/zero | tail >/dev/null') && wait_done "$j6"; then
        check "oom job: OUT_OF_MEMORY" sacct_has "$j6" "$j6" OUT_OF_MEMORY
    else
        bad "oom job ran"
    fi
fi

# --- 7. Snakemake-style submission and polling (user 1) -----------------------
# The Snakemake SLURM executor submits with `sbatch --parsable` (output
# "jobid" or "jobid;cluster"), names jobs by run id and polls with
# `sacct -X --parsable2 --noheader --format=JobIdRaw,State --name ...`, and
# reads the default account with `sacctmgr show user ... format=defaultaccount`.
run_id=smk-$(date +%s)-$$
acct=$(as $U1 sacctmgr -n -P show user $U1 format=defaultaccount)
check "sacctmgr: $U1 default account is tracer" test "$acct" = tracer
if out=$(as $U1 sbatch --parsable --job-name "$run_id" --output "$run_id-%j.log" --export=ALL \
        --comment rule_hello_wildcards_x -A "$acct" -p debug -t 5 --mem 100 --ntasks=1 \
        --cpus-per-task=1 --wrap 'srun echo hello from snakemake'); then
    j7=${out%%;*}
    check "snakemake: --parsable gives a job id" bash -c "[[ '$j7' =~ ^[0-9]+$ ]]"
    check "snakemake: squeue --format sees the job or it already ended" \
        bash -c "as_out=\$(squeue -h -u $U1 --format='%i|%T' -j $j7 2>&1); [[ -z \$as_out || \$as_out == $j7\|* ]]"
    end=$((SECONDS + JOB_TIMEOUT)) st=
    while ((SECONDS < end)); do
        st=$(as $U1 sacct -X --parsable2 --noheader --format=JobIdRaw,State --name "$run_id" \
             --starttime now-1hour --endtime now | awk -F'|' -v j="$j7" '$1 == j { print $2 }')
        [[ $st == COMPLETED || $st == FAILED || $st == CANCELLED* ]] && break
        sleep 1
    done
    check "snakemake: sacct --name/--format reports COMPLETED" test "$st" = COMPLETED
    check "snakemake: log written" grep -q 'hello from snakemake' "$WORK/$U1/$run_id-$j7.log"
    check "snakemake: sacct Comment/Account" bash -c \
        "sacct -n -X -P -j $j7 --format=Account,Comment | grep -qx 'tracer|rule_hello_wildcards_x'"
else
    bad "snakemake: sbatch --parsable: $out"
fi

# --- 8. overall sacct view ----------------------------------------------------
echo
sacct -a -X -P --format=JobID,JobName,User,Account,State,ExitCode,NodeList \
    -S now-1hour 2>&1 | tail -n 20
echo

finish
