# Upgrade in place, mid-run: tracerd is replaced by another build (SIGTERM, the other binary
# started: what a package upgrade and `systemctl restart tracerd` do) while `tracerctl run` runs
# 300 short processes and one that lives through it all.
#  - the same map layout (another build of these sources): the pin set is taken over, the
#    programs stay attached (the same link and program ids), every process is recorded;
#  - another map layout (PIN_LAYOUT_VARIANT, upgrade-builds): the old set's programs go on
#    beside the new ones until the running units are found again, its ring is recorded, and
#    every process is recorded (those lost, if any, are counted and printed);
#  - from the build before pinned programs existed, which pins the task registry alone: its
#    programs, maps and ring die with it, so what ran between its stop and the new tracerd's
#    start is missing and the report says so ("incomplete"); the store, the running units and
#    their live processes (found again in /proc) are kept, and its registry pin is cleared.
# lane: daemon cpu: 0.4
. "$(dirname "$0")/lib.sh"
SET=$PINS/$NODE
UP=$BUILD/upgrade
[ -x "$UP/layout/tracerd" ] && [ -x "$UP/same/tracerd" ] && [ -x "$UP/prepin/tracerd" ] ||
  "$TOP/tests/integration/upgrade-builds" ||
  { fail "the other builds (tests/integration/upgrade-builds)"; finish; exit 1; }
N=300
NAP=$(prog nap) || { fail "build nap"; finish; exit 1; }
cp "$NAP" "$T/longsleep" # their own comms
cp "$NAP" "$T/short"

# a run: a process that lives through the swap (ended once the short ones are done), then N
# short ones; $T/$1.go starts the short ones, which touch $T/$1.mid halfway
start_run() {
  ctl run --name "$1" -- bash -c "$T/longsleep 600 & touch $T/$1.up
    while [ ! -e $T/$1.go ]; do sleep 0.02; done
    for i in \$(seq $N); do $T/short 0.01; [ \$i = $((N / 2)) ] && touch $T/$1.mid; done
    kill %1; wait" 2> "$T/$1.summary" &
  RUN=$!
  for _ in $(seq 100); do [ -e "$T/$1.up" ] && break; sleep 0.1; done
  touch "$T/$1.go"
  for _ in $(seq 200); do [ -e "$T/$1.mid" ] && break; sleep 0.05; done
}
# swap BINARY: the running tracerd stopped (SIGTERM) and BINARY started in its place
swap() {
  stop_daemon
  TRACERD=$1 start_daemon
}
# counts NAME: its short processes recorded, the long one, and its events counted lost
counts() {
  local unit="(SELECT id FROM units WHERE name='$1')"
  rec=$(db "SELECT COUNT(*) FROM processes WHERE unit=$unit AND comm='short'")
  long=$(db "SELECT COUNT(*) FROM processes WHERE unit=$unit AND comm='longsleep'")
  lost=$(db "SELECT lost_events FROM units WHERE name='$1'")
  echo "  $1: $rec of $N short processes recorded, the long one ${long}x, $lost events counted lost"
}
link_prog() { bpftool link show pinned "$SET/link_handle_exec" | sed -n 's/^\([0-9]*\): .* prog \([0-9]*\).*/\1 \2/p'; }

# -- the same layout: taken over, the programs kept
TRACERD=$UP/same/tracerd start_daemon || { finish; exit 1; }
before=$(link_prog)
start_run same
swap "$BUILD/tracerd" || { fail "swap to the new build"; finish; exit 1; }
after=$(link_prog)
wait $RUN
check "same layout: the run finished across the swap" [ $? -eq 0 ]
check "same layout: the new tracerd took the set over" grep -q "pin set .* taken over" "$T/tracerd.log"
check "same layout: the programs stayed attached (link, program: $before → $after)" \
  [ -n "$before" -a "$before" = "$after" ]
counts same
check "same layout: every short process is recorded ($rec of $N)" [ "$rec" -eq $N ]
check "same layout: the long one too" [ "$long" -eq 1 ]
check "same layout: nothing counted lost ($lost)" [ "$lost" -eq 0 ]
jobstat -j same > "$T/report" 2>&1
check "same layout: no incomplete note" bash -c "! grep -q incomplete '$T/report'"

# -- another layout: the old ring recorded, the old programs detached after the new are there
swap "$UP/layout/tracerd" || { fail "start the build of another layout"; finish; exit 1; }
old_progs=$(bpftool link show pinned "$SET/link_handle_exec" | sed -n 's/.* prog \([0-9]*\).*/\1/p')
start_run layout
: > "$T/tracerd.log"
swap "$BUILD/tracerd" || { fail "swap to a build of another layout"; finish; exit 1; }
wait $RUN
check "another layout: the run finished across the swap" [ $? -eq 0 ]
check "another layout: the log says the old set runs on beside" \
  grep -q "pin set .* is of another build .* its programs stay attached beside" "$T/tracerd.log"
grep "older set's programs detached" "$T/tracerd.log" | sed 's/^/  log: /'
check "another layout: then its ring is recorded and it goes" \
  grep -q "the older set's programs detached; its ring's [0-9]* events recorded" "$T/tracerd.log"
check "another layout: the old program is gone from the kernel ($old_progs)" \
  bash -c "for _ in \$(seq 50); do bpftool prog show id '$old_progs' >/dev/null 2>&1 || exit 0; sleep 0.1; done; exit 1"
check "another layout: nothing left aside" [ ! -e "$SET/retired" ]
counts layout
check "another layout: every short process is recorded ($rec of $N, $lost lost)" [ "$rec" -eq $N ]
check "another layout: the long one once" [ "$long" -eq 1 ]
dups=$(db "SELECT COUNT(*) FROM (SELECT pid, start_ns FROM processes GROUP BY pid, start_ns HAVING COUNT(*) > 1)")
check "another layout: no process twice ($dups)" [ "$dups" -eq 0 ]
jobstat -j layout > "$T/report" 2>&1
check "another layout: no incomplete note" bash -c "! grep -q incomplete '$T/report'"
check "another layout: the new set is pinned" [ -e "$SET/link_handle_exec" -a -e "$SET/layout" ]

# -- from the build before pinned programs (the registry alone pinned)
"$BUILD/tracerctl" -N $NODE shutdown --unpin > /dev/null
wait $DAEMON_PID 2>/dev/null; DAEMON_PID=
TRACERD=$UP/prepin/tracerd start_daemon || { fail "start the build before pins ($(cat "$UP/prepin/commit"))"; finish; exit 1; }
check "the build before pins pins the registry alone" \
  bash -c "[ \"\$(ls '$SET')\" = task_registry ]"
start_run prepin
: > "$T/tracerd.log"
swap "$BUILD/tracerd" || { fail "swap from the build before pins"; finish; exit 1; }
wait $RUN
check "from before pins: the run finished across the swap" [ $? -eq 0 ]
check "from before pins: the new set is whole" [ -e "$SET/link_handle_exec" -a -e "$SET/layout" ]
counts prepin
check "from before pins: the long one is recorded (found again in /proc)" [ "$long" -eq 1 ]
check "from before pins: most short processes are recorded ($rec of $N)" [ "$rec" -ge $((N / 2)) ]
jobstat -j prepin > "$T/report" 2>&1
if [ "$rec" -lt $N ]; then
  check "from before pins: the report says what is missing" grep -q "incomplete: tracerd was down" "$T/report"
fi
finish
