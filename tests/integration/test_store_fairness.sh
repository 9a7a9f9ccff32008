# One unprivileged user's load against another's history and the node: a flood of runs evicts
# no other user's history at StoreMaxSize 8M, one running unit's exec storm keeps the store's
# file (database and write-ahead log) within StoreMaxSize and a stated margin while its report
# still adds up, and a flood of run_begin requests is held to MaxUnitsPerUser and
# UnitRatePerUser with tracerd's peak RSS and its log bounded. Each part runs against this
# test's own daemon (SECTIONS picks parts: "flood history storm").
. "$(dirname "$0")/lib.sh"
write_config
echo "StoreMaxSize = 8M" >> "$T/tracer.conf"
start_daemon || exit 1
ATTACKER=tracertest
VICTIM=tracertest2
AUID=$(id -u $ATTACKER)
VUID=$(id -u $VICTIM)
SOCK=$T/run/tracerd-$NODE.sock
MAX=$((8 * 1024 * 1024))
MARGIN=$((8 * 1024 * 1024)) # the write-ahead log's bound (4 MiB) and a housekeeping round's rows
STORM_S=${STORM_S:-30}
SECTIONS=${SECTIONS:-flood history storm}
as_user() { local u=$1; shift; setpriv --reuid=$u --regid="$(id -g $u)" --clear-groups env TRACER_CONF="$TRACER_CONF" "$@"; }
hwm_kb() { awk '/^VmHWM/ {print $2}' /proc/$DAEMON_PID/status; }
file_bytes() { stat -c %s "$T/state/$NODE/tracer.db" "$T/state/$NODE/tracer.db-wal" 2>/dev/null | awk '{s += $1} END {print s + 0}'; }
in_use() { db "SELECT (SELECT page_count FROM pragma_page_count()) - (SELECT freelist_count FROM pragma_freelist_count())" | awk -v p="$(db 'PRAGMA page_size')" '{print $1 * p}'; }
has() { case " $SECTIONS " in *" $1 "*) return 0 ;; esac; return 1; }

if has flood; then
  # 20 s of run_begin of the attacker's own sleeping child, on two connections at once
  lines0=$(wc -l < "$T/tracerd.log")
  read -r accepted refused < <(as_user $ATTACKER /usr/bin/python3 "$TOP/tests/integration/progs/unitflood.py" "$SOCK" 20 2)
  sleep 12 # the orphaned runs are ended LOST 10 s after their last process left
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

finish
