# One unprivileged user's load against another's history and the node: a flood of runs evicts
# no other user's history at StoreMaxSize 8M, one running unit's exec storm keeps the store's
# file (database and write-ahead log) within StoreMaxSize and a stated margin while its report
# still adds up, and a flood of run_begin requests is held to MaxUnitsPerUser and
# UnitRatePerUser with tracerd's peak RSS and its log bounded. Each part runs against this
# test's own daemon (SECTIONS picks parts: "flood history storm").
# lane: daemon cpu: 1
. "$(dirname "$0")/lib.sh"
write_config
# housekeeping a round a second and orphaned runs ended LOST after 2 s, not 10 s each: the
# flood's and the shares' waits mean the same in less time
printf 'StoreMaxSize = 8M\nHousekeepingInterval = 1s\nOrphanAfter = 2s\n' >> "$T/tracer.conf"
start_daemon || exit 1
ATTACKER=tracertest
VICTIM=tracertest2
AUID=$(id -u $ATTACKER)
VUID=$(id -u $VICTIM)
SOCK=$T/run/tracerd-$NODE.sock
MAX=$((8 * 1024 * 1024))
MARGIN=$((MAX / 8 + 4 * 1024 * 1024)) # what is written before pruning starts, and the log
STORM_S=${STORM_S:-15} # some 4 000 rows of 8 KB: four times StoreMaxSize
SECTIONS=${SECTIONS:-flood history storm}
as_user() { local u=$1; shift; setpriv --reuid=$u --regid="$(id -g $u)" --clear-groups env TRACER_CONF="$TRACER_CONF" "$@"; }
hwm_kb() { awk '/^VmHWM/ {print $2}' /proc/$DAEMON_PID/status; }
file_bytes() { stat -c %s "$T/state/$NODE/tracer.db" "$T/state/$NODE/tracer.db-wal" 2>/dev/null | awk '{s += $1} END {print s + 0}'; }
in_use() { db "SELECT (SELECT page_count FROM pragma_page_count()) - (SELECT freelist_count FROM pragma_freelist_count())" | awk -v p="$(db 'PRAGMA page_size')" '{print $1 * p}'; }
has() { case " $SECTIONS " in *" $1 "*) return 0 ;; esac; return 1; }

if has flood; then
  # 20 s of run_begin of the attacker's own sleeping child, on two connections at once
  lines0=$(wc -l < "$T/tracerd.log")
  read -r accepted refused < <(as_user $ATTACKER /usr/bin/python3 "$(prog unitflood.py)" "$SOCK" 20 2)
  # the orphaned runs are ended LOST OrphanAfter after their last process left
  for _ in $(seq 100); do [ "$(db "SELECT COUNT(*) FROM units WHERE uid=$AUID AND state='RUNNING'")" = 0 ] && break; sleep 0.2; done
  ctl status > /dev/null
  lines=$(( $(wc -l < "$T/tracerd.log") - lines0 ))
  hwm=$(hwm_kb)
  units=$(db "SELECT COUNT(*) FROM units WHERE uid=$AUID")
  echo "  unit flood: $accepted accepted, $refused refused, $units units stored; VmHWM $hwm kB; $lines log lines"
  check "the flood's runs are held to MaxUnitsPerUser and UnitRatePerUser (64 + 20/s: at most 500 in 20 s)" [ "$units" -le 500 ]
  check "tracerd's peak RSS stays within 32 MiB ($hwm kB)" [ "$hwm" -le 32768 ]
  check "the log takes under 100 lines ($lines)" [ "$lines" -lt 100 ]
  check "repeated lines are summed" grep -q "more like it" "$T/tracerd.log"
  check "the daemon still answers" ctl status > /dev/null
  rc=0; ctl run --name after-flood -- /bin/true 2> "$T/after" || rc=$?
  check "root's run after the flood is traced" bash -c "[ $rc = 0 ] && ! grep -q untraced '$T/after'"
fi

if has history; then
  # the victim's three runs, then the attacker's six of 600 processes with 8 KB of arguments
  for i in 1 2 3; do
    as_user $VICTIM "$BUILD/tracerctl" -N $NODE run --name victim-hist-$i -- bash -c 'for i in $(seq 20); do /bin/true; done' 2>/dev/null
  done
  ARG=$(head -c 4000 /dev/zero | tr '\0' a)
  for i in 1 2 3 4 5 6; do
    as_user $ATTACKER "$BUILD/tracerctl" -N $NODE run --name flood-$i -- bash -c 'for i in $(seq 600); do /bin/true "$0" "$0"; done' "$ARG" 2>/dev/null
  done
  for _ in $(seq 150); do [ "$(in_use)" -le $MAX ] && break; sleep 0.2; done
  sleep 2 # and a round more: nothing of the victim's goes later
  used=$(in_use)
  kept=$(db "SELECT COUNT(*) FROM units WHERE uid=$VUID AND name LIKE 'victim-hist-%'")
  left=$(db "SELECT COUNT(*) FROM units WHERE uid=$AUID AND name LIKE 'flood-%'")
  echo "  history: the victim's runs kept $kept of 3, the attacker's $left of 6; pages in use $used bytes (StoreMaxSize $MAX)"
  check "the store is brought back under StoreMaxSize" [ "$used" -le $MAX ]
  check "the attacker's own runs were evicted" [ "$left" -lt 6 ]
  check "the victim's history survives the attacker's flood" [ "$kept" = 3 ]
  check "and its report is there" bash -c "'$BUILD/tracer-jobstat' -N $NODE -j victim-hist-1 > /dev/null"
  # a housekeeping round: the shares status shows are as it leaves them
  for _ in $(seq 50); do ctl status | grep '^  store ' | grep -q "by user: $ATTACKER .*, $VICTIM " && break; sleep 0.2; done
  share=$(ctl status | grep '^  store ')
  echo "  status:$share"
  check "status shows the users' shares, the heaviest first" bash -c "echo '$share' | grep -q 'by user: $ATTACKER .*, $VICTIM '"
  mine=$(as_user $VICTIM "$BUILD/tracerctl" -N $NODE status | grep '^  store ')
  check "a user's status shows only their own share" bash -c "echo '$mine' | grep -q 'by user: $VICTIM [^,]*$'"
fi

if has storm; then
  # one unit's exec storm, its processes' rows 8 KB each: the file is watched as it runs
  STORM=$(prog argstorm) || exit 1
  as_user $ATTACKER "$BUILD/tracerctl" -N $NODE run --name storm -- "$STORM" "$STORM_S" > "$T/storm.out" 2> "$T/storm.err" &
  storm=$!
  worst=0 worst_db=0 worst_wal=0
  while kill -0 $storm 2>/dev/null; do
    b=$(file_bytes); [ "$b" -gt "$worst" ] && worst=$b
    d=$(stat -c %s "$T/state/$NODE/tracer.db"); [ "$d" -gt "$worst_db" ] && worst_db=$d
    w=$(stat -c %s "$T/state/$NODE/tracer.db-wal" 2>/dev/null || echo 0); [ "$w" -gt "$worst_wal" ] && worst_wal=$w
    sleep 0.5
  done
  wait $storm
  ran=$(cat "$T/storm.out")
  sleep 1
  unit=$(db "SELECT id FROM units WHERE name='storm'")
  rows=$(db "SELECT COUNT(*) FROM processes WHERE unit=$unit AND folded IS NULL")
  folded=$(db "SELECT COALESCE(procs_folded, 0) FROM units WHERE id=$unit")
  lost=$(db "SELECT lost_events FROM units WHERE id=$unit")
  nprocs=$(jobstat -j storm -P -n -o NProcs | head -1)
  tools=$(jobstat -j storm --tools -P -n -o Tool,NProcs | awk -F'|' '$1 == "argstorm" {print $2}')
  echo "  storm of ${STORM_S} s: $ran processes run; file (db + WAL) at most $worst bytes (db $worst_db, WAL $worst_wal; limit $MAX + $MARGIN); $rows rows, $folded folded, $lost events lost; NProcs $nprocs, tool argstorm $tools"
  check "the store's file stays within StoreMaxSize, an eighth of it and 4 MiB during the storm" [ "$worst" -le $((MAX + MARGIN)) ]
  check "processes past the unit's cap are folded" [ "$folded" -gt 0 ]
  check "NProcs adds up: rows listed and folded ($nprocs = $rows + $folded)" [ "$nprocs" = $((rows + folded)) ]
  check "every process run is counted or lost ($ran <= $nprocs + $lost)" [ "$ran" -le $((nprocs + lost)) ]
  check "the tool table counts them too" [ "${tools:-0}" = "$nprocs" ]
  check "the report says processes are not listed" bash -c "'$BUILD/tracer-jobstat' -N $NODE -j storm | grep -q 'not listed'"
fi

finish
