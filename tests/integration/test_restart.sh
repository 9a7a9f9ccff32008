# kill -9 of tracerd mid-unit, with its pin set removed meanwhile (so no program went on while it
# was away: test_restart_pinned.sh has the restart that loses nothing): what finished before is
# stored, what finishes after a restart is recorded too, the running unit's processes are found
# again, and its record says when tracerd was away.
# lane: daemon cpu: 0.2
. "$(dirname "$0")/lib.sh"
write_config
# an orphaned run ends LOST 2 s after its last process, not 10 s: the wait means the same
printf 'OrphanAfter = 2s\nHousekeepingInterval = 1s\n' >> "$T/tracer.conf"
start_daemon || exit 1

ctl run --name survivor -- bash -c "
  for i in \$(seq 100); do /bin/true; done
  touch $T/phase1
  while [ ! -e $T/go ]; do sleep 0.05; done
  for i in \$(seq 100); do /bin/true; done" 2> "$T/summary" &
RUN=$!
for _ in $(seq 100); do [ -e "$T/phase1" ] && break; sleep 0.1; done
sleep 0.5 # CommitInterval is 200 ms: phase 1 is committed by now
kill -9 $DAEMON_PID; wait $DAEMON_PID 2>/dev/null; DAEMON_PID=
rm -rf "$PINS" # the programs go: nothing is traced until the restart
sleep 2 # away for a while: the unit's record must say so
check "phase 1's 100 processes were committed before the kill" \
  [ "$(db "SELECT COUNT(*) FROM processes WHERE comm='true'")" -eq 100 ]
start_daemon || { fail "restart"; finish; exit 1; }
check "the restarted daemon found the unit's shell again" grep -q "survivor): [1-9][0-9]* running processes found again" "$T/tracerd.log"
touch "$T/go"
wait $RUN
check "tracerctl run finished against the restarted daemon" [ $? -eq 0 ]
cat "$T/summary"
check "both phases' 200 true processes are in the store" \
  [ "$(db "SELECT COUNT(*) FROM processes WHERE comm='true'")" -eq 200 ]
check "the shell itself was recorded at its exit" \
  [ "$(db "SELECT COUNT(*) FROM processes WHERE comm='bash' AND status=0")" -ge 1 ]
check "the unit ended COMPLETED" [ "$(db "SELECT state FROM units WHERE name='survivor'")" = COMPLETED ]
read -r down_from down_to < <(db -separator ' ' "SELECT down_start_ns, down_end_ns FROM units WHERE name='survivor'")
echo "  tracerd away from ${down_from:-?} to ${down_to:-?}"
gap_ms=$(( (${down_to:-0} - ${down_from:-0}) / 1000000 ))
check "the unit carries the interval tracerd was away ($gap_ms ms: 2 s or more, under 4 s)" \
  [ "$gap_ms" -ge 2000 -a "$gap_ms" -lt 4000 ]
jobstat -j survivor > "$T/report" 2>&1
check "its report says it is incomplete for that interval" grep -q "incomplete: tracerd was down" "$T/report"
# a tracerctl run killed before its command ends never sends run_end: its unit is ended anyway
"$BUILD/tracerctl" -N $NODE run --name orphan -- sleep 1 2>/dev/null &
client=$!
sleep 0.3
kill -9 $client; wait $client 2>/dev/null
for _ in $(seq 80); do
  [ "$(db "SELECT state FROM units WHERE name='orphan'")" != RUNNING ] && break
  sleep 0.25
done
check "a unit whose tracerctl was killed is ended once its processes are gone" \
  [ "$(db "SELECT state FROM units WHERE name='orphan'")" = LOST ]
check "with its process recorded" [ "$(db "SELECT COUNT(*) FROM processes WHERE comm='sleep' AND unit=(SELECT id FROM units WHERE name='orphan')")" -eq 1 ]
# a run whose daemon is gone for good when its command ends: said once, with why; the
# command's status still passed through
"$BUILD/tracerctl" -N $NODE run --name abandoned -- sh -c "touch $T/started
  while [ ! -e $T/end ]; do sleep 0.05; done; exit 3" 2> "$T/abandoned" &
client=$!
for _ in $(seq 100); do [ -e "$T/started" ] && break; sleep 0.1; done
stop_daemon
touch "$T/end"
wait $client; st=$?
cat "$T/abandoned"
check "a run whose daemon stopped passes its command's status through ($st)" [ $st -eq 3 ]
check "and says once that its end was not recorded, and why" \
  [ "$(grep -c "the end of run r[0-9]* was not recorded: no tracerd is running" "$T/abandoned")" -eq 1 ]
check "and nothing else" [ "$(grep -c . "$T/abandoned")" -eq 1 ]
finish
