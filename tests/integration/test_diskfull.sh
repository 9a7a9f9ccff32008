# Disk full: with the state directory on a small file system that fills up, tracerd stays up and
# answers, counts for each unit the processes it could not write (its Lost), writes the unit's
# record once space returns, and records completely again from then on.
# lane: daemon cpu: 0.5
. "$(dirname "$0")/lib.sh"
SMALL=$T/small
mkdir -p "$SMALL"
mount -t tmpfs -o size=6m tracer-itest "$SMALL" || { fail "mounting a small tmpfs"; finish; exit 1; }
trap 'stop_daemon; umount "$SMALL" 2>/dev/null; rm -rf "$T"' EXIT INT TERM
write_config
sed -i "s|^StateDir = .*|StateDir = $SMALL/state|" "$T/tracer.conf"
start_daemon || { umount "$SMALL"; exit 1; }
sdb() { sqlite3 -cmd ".timeout 5000" "$SMALL/state/$NODE/tracer.db" "$@"; }

ctl run --name before -- bash -c 'for i in $(seq 20); do /bin/true; done' 2>/dev/null
check "recorded while there is room" [ "$(sdb "SELECT COUNT(*) FROM processes WHERE exe='/bin/true'")" -eq 20 ]

# fill the file system but for a few KiB, then a unit that cannot all be written
dd if=/dev/zero of="$SMALL/filler" bs=64k 2>/dev/null
ctl run --name full -- bash -c 'for i in $(seq 3000); do /bin/true; done' 2> "$T/full.out"
rc=$?
check "a run goes on with a full disk (rc $rc)" [ $rc -eq 0 ]
status_ok=$(timeout 2 "$BUILD/tracerctl" -N $NODE status > /dev/null 2>&1 && echo yes)
check "tracerd answers with a full disk" [ "$status_ok" = yes ]
check "tracerd is still running" kill -0 $DAEMON_PID
check "the failure is logged once, not per write" [ "$(grep -c 'store: .* failed' "$T/tracerd.log")" -le 2 ]

# space comes back: the unit's record is written, with what was lost
rm -f "$SMALL/filler"
for _ in $(seq 50); do
  [ "$(sdb "SELECT state FROM units WHERE name='full'" 2>/dev/null)" = COMPLETED ] && break
  sleep 0.2
done
read -r state lost < <(sdb -separator ' ' "SELECT state, lost_events FROM units WHERE name='full'")
stored=$(sdb "SELECT COUNT(*) FROM processes WHERE unit=(SELECT id FROM units WHERE name='full')")
echo "  unit 'full': $state, $stored processes stored, Lost $lost (of 3002)"
check "the unit's record is written once space returns" [ "$state" = COMPLETED ]
check "its Lost counts what could not be written" [ "${lost:-0}" -gt 0 -a $(( stored + lost )) -ge 3002 ]
jobstat -j full -P -n -o JobID,State,Lost > "$T/report" 2>&1
check "tracer-jobstat shows it ($(tr '\n' ' ' < "$T/report"))" grep -q "|$lost\$" "$T/report"
check "writes work again (logged)" grep -q "store: writes work again" "$T/tracerd.log"
ctl run --name after -- bash -c 'for i in $(seq 50); do /bin/true; done' 2>/dev/null
check "recording resumes completely" \
  [ "$(sdb "SELECT COUNT(*) FROM processes WHERE exe='/bin/true' AND unit=(SELECT id FROM units WHERE name='after')")" -eq 50 ]
check "and the new unit lost nothing" [ "$(sdb "SELECT lost_events FROM units WHERE name='after'")" -eq 0 ]
stop_daemon
umount "$SMALL"
trap - EXIT
finish
