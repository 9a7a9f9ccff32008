# A restart loses nothing: tracerd's programs, maps and ring are pinned under PinDir/NODE, stay
# attached while it is dead, and the next tracerd takes them over. A kill -9 mid-run, restarted
# 3 s later, leaves every process recorded with its CPU and peak RSS and no "incomplete" note; a
# long absence under an exec storm records what the ring held and counts the rest per unit;
# `tracerctl shutdown --unpin` leaves no program, link or pin; a user can neither reach the pins
# nor plant a PinDir.
# lane: daemon cpu: 1
. "$(dirname "$0")/lib.sh"
ATTACKER=nobody
SET=$PINS/$NODE
start_daemon || exit 1

# -- kill -9 mid-run, restarted 3 s later
ctl run --name pinned -- bash -c "for i in \$(seq 300); do /bin/sleep 0.01; done" \
  2> "$T/summary" &
RUN=$!
sleep 1.5
kill -9 $DAEMON_PID; wait $DAEMON_PID 2>/dev/null; DAEMON_PID=
check "the pin set outlives a killed tracerd" [ -e "$SET/link_handle_exec" ]
sleep 3
start_daemon || { fail "restart"; finish; exit 1; }
check "the restart says it took the set over" grep -q "pin set .* taken over" "$T/tracerd.log"
wait $RUN
check "tracerctl run finished against the restarted daemon" [ $? -eq 0 ]
unit="(SELECT id FROM units WHERE name='pinned')"
n=$(db "SELECT COUNT(*) FROM processes WHERE unit=$unit AND comm='sleep'")
full=$(db "SELECT COUNT(*) FROM processes WHERE unit=$unit AND comm='sleep' AND cpu_ns>0 AND maxrss_kb>0")
echo "  $n of 300 sleep processes recorded, $full with CPU and peak RSS"
check "every process of the run is recorded ($n of 300)" [ "$n" -eq 300 ]
check "each with its CPU and peak RSS ($full)" [ "$full" -eq 300 ]
jobstat -j pinned > "$T/report" 2>&1
check "its report has no incomplete note" bash -c "! grep -q incomplete '$T/report'"

# -- SIGTERM keeps the set: a restart or an upgrade loses nothing either
stop_daemon
check "a stopped tracerd leaves its set pinned" [ -e "$SET/events" ]
check "and its programs attached" bpftool link show pinned "$SET/link_handle_exec" > /dev/null

# -- a long absence under a storm: a small ring (another size: the old set is drained and
# replaced), tracerd killed, 5 000 execs (the ring holds some 200 processes), then back
echo "RingBufferSize = 256K" >> "$T/tracer.conf"
start_daemon || { fail "start with another RingBufferSize"; finish; exit 1; }
check "a set of another ring size is drained and replaced, and the log says so" \
  grep -q "pin set .* is of another build or RingBufferSize" "$T/tracerd.log"
ctl run --name absent -- bash -c "touch $T/b1; while [ ! -e $T/b2 ]; do sleep 0.05; done
  for i in \$(seq 5000); do /bin/true; done
  touch $T/b3; while [ ! -e $T/b4 ]; do sleep 0.05; done" 2> "$T/summary2" &
RUN=$!
for _ in $(seq 100); do [ -e "$T/b1" ] && break; sleep 0.1; done
kill -9 $DAEMON_PID; wait $DAEMON_PID 2>/dev/null; DAEMON_PID=
touch "$T/b2"
for _ in $(seq 3000); do [ -e "$T/b3" ] && break; sleep 0.1; done
start_daemon || { fail "restart after the storm"; finish; exit 1; }
touch "$T/b4"
wait $RUN
unit="(SELECT id FROM units WHERE name='absent')"
rec=$(db "SELECT COUNT(*) FROM processes WHERE unit=$unit AND comm='true'")
lost=$(db "SELECT lost_events FROM units WHERE name='absent'")
echo "  absence under a 5000-exec storm, 256 KiB ring: $rec processes recorded, $lost events counted lost"
check "what the ring held is recorded ($rec)" [ "$rec" -gt 100 ]
check "the rest is counted lost to the unit ($lost)" [ "${lost:-0}" -gt 0 ]
check "every process is recorded or counted ($rec + $lost >= 5000)" [ $((rec + ${lost:-0})) -ge 5000 ]

# -- attacks: the pins are root's alone
refused() { ! setpriv --reuid=$ATTACKER --regid="$(id -g $ATTACKER)" --clear-groups "$@" >/dev/null 2>&1; }
check "a user cannot open the ring" refused bpftool map show pinned "$SET/events"
check "nor a link" refused bpftool link show pinned "$SET/link_handle_exec"
check "nor write the tracked cgroups" \
  refused bpftool map update pinned "$SET/tracked_cgroups" key 1 0 0 0 0 0 0 0 value 1 0 0 0 0 0 0 0
check "nor list the set" refused ls "$SET"
check "nor replace a pin" refused ln -sf /tmp "$SET/events"

# -- tracerctl shutdown --unpin: nothing of tracer's is left in the kernel
links=$(for f in "$SET"/link_*; do bpftool link show pinned "$f" | sed -n 's/^\([0-9]*\): .* prog \([0-9]*\).*/\1 \2/p'; done)
check "the set's links were found ($(echo "$links" | wc -l))" [ -n "$links" ]
"$BUILD/tracerctl" -N $NODE shutdown --unpin
check "shutdown --unpin succeeds" [ $? -eq 0 ]
wait $DAEMON_PID 2>/dev/null; DAEMON_PID=
# the kernel frees them after a grace period
for _ in $(seq 50); do
  left=0
  while read -r link prog; do
    bpftool link show id "$link" >/dev/null 2>&1 && left=$((left + 1))
    bpftool prog show id "$prog" >/dev/null 2>&1 && left=$((left + 1))
  done <<< "$links"
  [ $left -eq 0 ] && break
  sleep 0.1
done
check "no link or program of the set is left ($left)" [ $left -eq 0 ]
check "the PinDir is gone" [ ! -e "$PINS" ]

# -- tracerd stopped (SIGTERM keeps the set): shutdown --unpin with no tracerd removes it, and
# refuses while a tracerd holds the node
start_daemon || { fail "start again"; finish; exit 1; }
check "a stopped tracerd's set is kept" bash -c "stop_pid=$DAEMON_PID; kill -TERM \$stop_pid; while kill -0 \$stop_pid 2>/dev/null; do sleep 0.1; done; [ -e '$SET/events' ]"
DAEMON_PID=
links=$(for f in "$SET"/link_*; do bpftool link show pinned "$f" | sed -n 's/^\([0-9]*\): .*/\1/p'; done)
"$BUILD/tracerctl" -N $NODE shutdown --unpin 2> "$T/unpin.txt"
rc=$?
cat "$T/unpin.txt"
check "shutdown --unpin with no tracerd removes its set (rc $rc)" [ $rc -eq 0 -a ! -e "$SET" ]
left=0
for _ in $(seq 50); do
  left=0
  for l in $links; do bpftool link show id "$l" >/dev/null 2>&1 && left=$((left + 1)); done
  [ $left -eq 0 ] && break
  sleep 0.1
done
check "and its programs are detached ($left links left)" [ $left -eq 0 ]

# -- a PinDir a user planted is refused, and nothing is pinned in it
mkdir -p -m 700 "$PINS"; chown $ATTACKER "$PINS"
start_daemon || { fail "start with a planted PinDir"; finish; exit 1; }
check "a planted PinDir is refused" grep -q "PinDir $PINS: Operation not permitted" "$T/tracerd.log"
check "nothing was pinned in it" [ -z "$(ls -A "$PINS")" ]
finish
