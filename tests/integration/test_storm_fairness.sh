# One user's exec storms against another user's run, on this test's daemon: user A runs 8, then
# 16, `tracerctl run -- storm` at once (vfork + exec of /bin/true with two 4000-byte
# arguments, as fast as they go), then 16 again with a ring of 64K that they fill. Meanwhile
# root asks for status 50 times, each answered within 100 ms, and user B's run of 3000
# processes is recorded whole with 0 events lost: what the ring cannot take is refused to the
# user who holds most of it, and every event lost is the attacker's. Prints tracerd's CPU and
# the attacker's own loss.
. "$(dirname "$0")/lib.sh"
start_daemon || exit 1
ATTACKER=tracertest
BYSTANDER=tracertest2
STORM=$(prog storm) || { fail "build storm"; finish; exit 1; }
PROBE="/usr/bin/python3 $TOP/tests/integration/progs/attacker.py $T/run/tracerd-$NODE.sock"
STATUS_MAX_MS=100
STORM_SECONDS=${STORM_SECONDS:-40}
chmod 755 "$STORM" "$BUILD" "$BUILD/itest"
asuser() { local u=$1; shift; setpriv --reuid="$u" --regid="$(id -g "$u")" --clear-groups "$@"; }
# the daemon's CPU time so far, in clock ticks
cpu_ticks() { awk '{print $14 + $15}' /proc/$DAEMON_PID/stat; }
# a number out of a run's summary: summary_n FILE WORD (recorded, lost)
summary_n() { grep -o "[0-9]* $2" "$1" | head -1 | cut -d' ' -f1; }
# a counter of the daemon's status: status_n NAME (lost, refused)
status_n() { ctl status --json | grep -o "\"$1\": *[0-9]*" | grep -o '[0-9]*$'; }

storms() { # storms N LABEL
  local n=$1 i t0 c0 t1 c1 start wall pids=() out=$T/storm$2 worst fails rec lost alost=0 aruns=0
  local lost0 lost1 refused0 refused1
  mkdir -p "$out"; chmod 777 "$out"
  lost0=$(status_n lost); refused0=$(status_n refused)
  t0=$(date +%s%N); c0=$(cpu_ticks)
  for i in $(seq "$n"); do
    asuser $ATTACKER "$BUILD/tracerctl" -N $NODE run --name "storm$2-$i" -- "$STORM" "$STORM_SECONDS" "$out/stop" \
      > "$out/a$i.out" 2> "$out/a$i.sum" & pids+=($!)
  done
  sleep 3 # the storms are under way
  $PROBE status_probe 50 "$out/probe" & probe=$!
  start=$(date +%s%N)
  asuser $BYSTANDER "$BUILD/tracerctl" -N $NODE run --name "victim$2" -- \
    bash -c 'for i in $(seq 3000); do /bin/true; done' 2> "$out/b.sum"
  wall=$((($(date +%s%N) - start) / 1000000))
  wait $probe
  touch "$out/stop" # B done: the storms are not needed any longer
  for i in "${pids[@]}"; do wait "$i"; done
  t1=$(date +%s%N); c1=$(cpu_ticks)
  lost1=$(status_n lost); refused1=$(status_n refused)
  for i in $(seq "$n"); do
    lost=$(summary_n "$out/a$i.sum" "events lost"); rec=$(summary_n "$out/a$i.sum" recorded)
    alost=$((alost + ${lost:-0})); aruns=$((aruns + ${rec:-0}))
  done
  read -r worst fails times < "$out/probe"
  echo "  $2: status slowest ${worst} ms ($fails failed); tracerd CPU" \
    "$(( (c1 - c0) * 100 * 1000000000 / $(getconf CLK_TCK) / (t1 - t0) ))%;" \
    "attacker: $aruns processes recorded, $alost events lost; daemon: $((lost1 - lost0)) lost," \
    "$((refused1 - refused0)) refused; victim's run took ${wall} ms"
  echo "    status answers (ms): $times"
  sed 's/^/    victim: /' "$out/b.sum"
  check "$2: status answered within $STATUS_MAX_MS ms, 50 times (slowest ${worst} ms, $fails failed)" \
    awk -v w="$worst" -v f="$fails" -v m=$STATUS_MAX_MS 'BEGIN { exit !(w <= m && f == 0) }'
  check "$2: the victim's run was traced" grep -q "recorded" "$out/b.sum"
  check "$2: the victim's 3002 processes recorded" grep -q " 3002 recorded, 0 still running" "$out/b.sum"
  check "$2: the victim lost no event" grep -q " 0 events lost" "$out/b.sum"
  check "$2: every event lost is the attacker's ($alost of $((lost1 - lost0)))" \
    [ "$alost" -eq $((lost1 - lost0)) ]
  [ "${3:-}" != full ] || check "$2: the ring was full: the attacker lost $alost events" [ "$alost" -gt 0 ]
}
storms 8 8storms
storms 16 16storms
# a ring that the storms fill whatever tracerd's pace
stop_daemon
echo "RingBufferSize = 64K" >> "$T/tracer.conf"
start_daemon || { fail "restart with a 64K ring"; finish; exit 1; }
storms 16 16storms-ring64K full
finish
