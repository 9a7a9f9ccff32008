# Shared by the integration tests: a real tracerd on the real kernel, in its own directories.
# Each test sources this, calls start_daemon, and uses ok/fail; the runner counts results.
set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$TOP/build
# what unprivileged users run, where they can read it (a clone in root's 0700 home hides it);
# the kernel matrix's guests have the tree readable and no scripts/
if [ -n "${TRACER_IT_BUILD:-}" ]; then BUILD=$TRACER_IT_BUILD # run-all made it once for all
elif [ -x "$TOP/scripts/readable-build" ]; then BUILD=$("$TOP/scripts/readable-build" "$BUILD") || exit 1; fi
T=$(mktemp -d /tmp/tracer-it.XXXXXX)
chmod 755 "$T"
NODE=${TRACER_IT_NODE:-itest} # another name lets two checkouts run tests at once
export TRACER_CONF=$T/tracer.conf
# each test's own pin set: concurrent tests never share programs, maps or a ring
PINS=/sys/fs/bpf/tracer-test/$(basename "$T" | tr . -) # bpffs takes no dots
PASSED=0
FAILED=0
DAEMON_PID=

ok() { PASSED=$((PASSED + 1)); echo "  ok   $*"; }
fail() { FAILED=$((FAILED + 1)); echo "  FAIL $*"; }
check() { # check DESCRIPTION COMMAND...
  local what=$1; shift
  if "$@"; then ok "$what"; else fail "$what"; fi
}

write_config() {
  cat > "$T/tracer.conf" <<CONF
SocketDir = $T/run
StateDir = $T/state
SampleInterval = 1s
CommitInterval = 200ms
ToolRules = $TOP/etc/tools.rules
PinDir = $PINS
CONF
  mkdir -p -m 700 "$(dirname "$PINS")"
}

start_daemon() { # TRACERD: another build's tracerd (test_upgrade.sh)
  [ -f "$T/tracer.conf" ] || write_config
  "${TRACERD:-$BUILD/tracerd}" -f -N $NODE -c "$T/tracer.conf" >> "$T/tracerd.log" 2>&1 &
  DAEMON_PID=$!
  for _ in $(seq 100); do
    [ -S "$T/run/tracerd-$NODE.sock" ] && "$BUILD/tracerctl" -N $NODE status >/dev/null 2>&1 && return 0
    kill -0 $DAEMON_PID 2>/dev/null || break
    sleep 0.1
  done
  echo "tracerd did not start:"; cat "$T/tracerd.log"
  return 1
}

stop_daemon() {
  [ -n "$DAEMON_PID" ] || return 0
  kill -TERM $DAEMON_PID 2>/dev/null
  wait $DAEMON_PID 2>/dev/null
  DAEMON_PID=
}

finish() {
  stop_daemon
  cluster_export_off
  otlp_receiver_stop
  if [ $FAILED -gt 0 ]; then
    [ ! -f "$T/tracerd.log" ] || { echo "--- tracerd log"; tail -30 "$T/tracerd.log"; }
  fi
  rm -rf "$T" "$PINS"
  echo "$PASSED passed, $FAILED failed"
  [ $FAILED -eq 0 ]
}
# stopped from outside (run-all ending, ^C): cleaned up, and stopped for good
trap 'stop_daemon; cluster_export_off; otlp_receiver_stop; rm -rf "$T" "$PINS"; exit 130' INT
trap 'stop_daemon; cluster_export_off; otlp_receiver_stop; rm -rf "$T" "$PINS"; exit 143' TERM

# The test OTLP/HTTP receiver (tests/otlp/receiver.js, its options at its top): started on a
# free port, its packages installed first when missing. Sets OTLP_PORT, OTLP_URL, OTLP_PID; what
# it received goes to $T/otlp/items.jsonl, its counts to $T/otlp/stats.json, and the file
# $T/otlp/control switches its mode. Returns 1 after a FAIL when it cannot start.
OTLP_PID=
otlp_receiver_start() { # [receiver options...]
  local dir=$TOP/tests/otlp
  mkdir -p "$T/otlp"
  if [ ! -d "$dir/node_modules/@opentelemetry/otlp-transformer" ]; then
    # make itest installs them; a test run by hand, here (one test at a time)
    command -v npm > /dev/null || { fail "npm is not installed (scripts/install-deps)"; return 1; }
    flock "$dir/.npm.lock" bash -c 'cd "$0" && { [ -d node_modules/@opentelemetry/otlp-transformer ] ||
      npm install --no-audit --no-fund; }' "$dir" > "$T/otlp/npm.log" 2>&1 ||
      { tail -5 "$T/otlp/npm.log"; fail "npm install in tests/otlp"; return 1; }
  fi
  rm -f "$T/otlp/port"
  node "$dir/receiver.js" --port 0 --port-file "$T/otlp/port" --out "$T/otlp/items.jsonl" \
    --stats "$T/otlp/stats.json" --control "$T/otlp/control" "$@" > "$T/otlp/receiver.log" 2>&1 &
  OTLP_PID=$!
  for _ in $(seq 100); do
    [ -s "$T/otlp/port" ] && OTLP_PORT=$(cat "$T/otlp/port") && OTLP_URL=http://127.0.0.1:$OTLP_PORT &&
      return 0
    kill -0 $OTLP_PID 2>/dev/null || break
    sleep 0.1
  done
  cat "$T/otlp/receiver.log"; fail "OTLP receiver did not start"; return 1
}
# The test's own nodes of the cluster (after cluster_up and otlp_receiver_start) export to the
# receiver in PROTOCOL (http/protobuf, http/json), with more tracer.conf lines if given, until
# cluster_export_off (finish's): their tracerds alone are restarted, either way.
CLUSTER_EXPORT=
cluster_export() { # PROTOCOL [LINES]
  CLUSTER_EXPORT=1
  TRACER_NODE_CONF_EXTRA="OtlpEndpoint = $OTLP_URL
OtlpProtocol = $1
${2:-}" "$CLUSTER" tracerd $MY_NODES > "$T/cluster.log" 2>&1 ||
    { tail -20 "$T/cluster.log"; fail "the tracerds of $MY_NODES export"; finish; exit 1; }
}
cluster_export_off() {
  [ -n "$CLUSTER_EXPORT" ] || return 0
  CLUSTER_EXPORT=
  TRACER_NODE_CONF_EXTRA= "$CLUSTER" tracerd $MY_NODES > /dev/null 2>&1
}
# JOB...: until every process the cluster's stores hold for them arrived as a span (60 s at
# most); their rows in $T/procs-JOB.json. otlp_shape ENCODING JOB...: the shape of their
# traces (tests/integration/otlp_trace.py), each check one of this test's results.
otlp_arrived() {
  local j
  for j in "$@"; do
    "$BUILD/tracer-jobstat" -j "$j" --processes --json > "$T/procs-$j.json" 2>/dev/null
  done
  for _ in $(seq 120); do
    "$TOP/tests/integration/otlp_trace.py" arrived "$T/otlp/items.jsonl" "$T" "$@" && return 0
    sleep 0.5
  done
  return 1
}
otlp_shape() {
  local line
  while IFS= read -r line; do
    case $line in "ok   "*) ok "${line#ok   }" ;; "FAIL "*) fail "${line#FAIL }" ;; *) echo "  $line" ;; esac
  done < <("$TOP/tests/integration/otlp_trace.py" shape "$T/otlp/items.jsonl" "$T" "$@")
}
otlp_receiver_stop() {
  [ -n "${OTLP_PID:-}" ] || return 0
  kill -TERM $OTLP_PID 2>/dev/null
  wait $OTLP_PID 2>/dev/null
  OTLP_PID=
}

ctl() { "$BUILD/tracerctl" -N $NODE "$@"; }
jobstat() { "$BUILD/tracer-jobstat" -N $NODE "$@"; }
db() { sqlite3 "$T/state/$NODE/tracer.db" "$@"; }

# A test program: progs/NAME.c built (make itest builds them all before the tests; here once
# per run for a test run by hand, again when any source in progs/ is newer: argstorm.c includes
# storm.c), or progs/NAME.py copied, where unprivileged users can run it; prebuilt where there is
# no compiler: the kernel matrix's guests.
prog() {
  local out=$BUILD/itest/$1 src=$TOP/tests/integration/progs/$1
  mkdir -p "$BUILD/itest"
  case $1 in
    *.py) { [ -e "$out" ] && [ ! "$src" -nt "$out" ]; } || install -m 755 "$src" "$out" || return 1 ;;
    *) { [ -e "$out" ] && [ -z "$(find "$TOP/tests/integration/progs" -name '*.[ch]' -newer "$out" -print -quit)" ]; } ||
         { [ -x "$out" ] && ! command -v gcc >/dev/null; } ||
         gcc -O1 -g -pthread -o "$out" "$src.c" || return 1 ;;
  esac
  echo "$out"
}

# The Slurm test cluster (tests/slurm-docker/cluster), brought up (idempotent; run-all has it up
# already: TRACER_IT_CLUSTER_UP); its environment and tracer.conf for the rest of the test, and
# the test's own nodes: N1 and N2, MY_NODES all of them (TRACER_IT_NODES, handed out by
# run-all; n1 and n2 when run by hand). Ends the test when the cluster cannot start.
cluster_up() {
  CLUSTER=$TOP/tests/slurm-docker/cluster
  BASE=${TRACER_SLURM_DIR:-/var/tmp/tracer-slurm}
  if [ -z "${TRACER_IT_CLUSTER_UP:-}" ] && ! "$CLUSTER" up > "$T/cluster.log" 2>&1; then
    tail -30 "$T/cluster.log"; fail "test cluster up"; finish; exit 1
  fi
  . "$BASE/env.sh"
  export TRACER_CONF=$BASE/etc/tracer.conf
  MY_NODES=${TRACER_IT_NODES:-n1 n2}
  read -r N1 N2 _ <<< "$MY_NODES $MY_NODES"
  # a job on all the test's nodes: -N2 on N1 and N2
  BOTH=$N1,$N2
}
# the TCP port of a node's tracerd (NodePorts in the cluster's tracer.conf): 17201 for n1
node_port() { echo $((17200 + ${1#n})); }

# Jobs on the test cluster (after cluster_up): as USER COMMAND, submit USER SBATCH-ARGS (prints
# the job id), wait_jobs JOBID... (until Slurm has them all finished; 60 s at most)
# (from the test's own directory: a job starts in its submitter's, and the user may not enter a
# clone in root's 0700 home, which slurmstepd then says in the job's output)
as() { local u=$1; shift; su "$u" -c "cd '$T' && SLURM_CONF=$SLURM_CONF TRACER_CONF=$TRACER_CONF $*"; }
submit() { as "$1" "sbatch --parsable $2"; }
wait_jobs() {
  for _ in $(seq 600); do
    [ -z "$(squeue -h -j "$(IFS=,; echo "$*")" 2>/dev/null)" ] && sleep 0.5 && return 0
    sleep 0.1
  done
  return 1
}
# wait_ended JOBID...: until Slurm's accounting has them all ended too (240 s at most): a
# report read right after must find them ended
wait_ended() {
  for _ in $(seq 2400); do
    if [ -z "$(squeue -h -j "$(IFS=,; echo "$*")" 2>/dev/null)" ] &&
       ! sacct -n -X -P -j "$(IFS=,; echo "$*")" -o State | grep -qE 'RUNNING|PENDING|COMPLETING'; then
      sleep 1; return 0
    fi
    sleep 0.1
  done
  return 1
}

# The real tools of the workflow tests (tests/integration/workflow), from Debian's packages:
# installed when missing. Returns 1 after a SKIP line when snakemake cannot be installed, or a
# FAIL for a tool that cannot.
apt_install() { # quietly, once per package set; one test at a time (tests run side by side)
  flock /var/tmp/tracer-it-apt.lock bash -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" ||
    { apt-get update -qq > /dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"; }' \
    apt_install "$@" > "$T/apt.log" 2>&1
}
workflow_tools() {
  if ! command -v snakemake > /dev/null && ! apt_install snakemake; then
    echo "  SKIP snakemake is not installed and cannot be installed (apt-get install snakemake: $(tail -1 "$T/apt.log"))"
    return 1
  fi
  for p in bwa samtools bcftools time; do
    command -v "$([ $p = time ] && echo /usr/bin/time || echo $p)" > /dev/null || apt_install "$p" ||
      { fail "install $p"; return 1; }
  done
}
