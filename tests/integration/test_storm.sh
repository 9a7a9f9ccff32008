# Every process of an exec storm is recorded, none lost, even when PIDs are reused.
# lane: alone
. "$(dirname "$0")/lib.sh"
start_daemon || exit 1

old_pid_max=$(cat /proc/sys/kernel/pid_max)
restore() { echo "$old_pid_max" > /proc/sys/kernel/pid_max; }
# however the test ends (a failure, ^C, set -u): a lowered pid_max would starve later tests
trap restore EXIT
trap 'restore; stop_daemon; rm -rf "$T"' INT TERM
# 5000 processes in a 4096-PID space: the kernel must hand out PIDs again
echo 4096 > /proc/sys/kernel/pid_max
ctl run --name storm -- bash -c 'for i in $(seq 5000); do /bin/true; done' 2> "$T/summary"
rc=$?
restore
trap 'stop_daemon; rm -rf "$T"' INT TERM
trap - EXIT
cat "$T/summary"
check "run exits with the command's status" [ $rc -eq 0 ]
check "summary counts 5002 processes (bash, seq, 5000 true)" grep -q "5002 recorded" "$T/summary"
check "summary reports 0 lost events" grep -q " 0 events lost" "$T/summary"
check "pid_max is restored" [ "$(cat /proc/sys/kernel/pid_max)" = "$old_pid_max" ]

n_true=$(jobstat -j storm --processes -P -n | awk -F'|' '$12 == "/bin/true"' | wc -l)
check "tracer-jobstat lists 5000 /bin/true processes (got $n_true)" [ "$n_true" -eq 5000 ]
reused=$(db "SELECT COUNT(*) - COUNT(DISTINCT pid) FROM processes WHERE unit=(SELECT id FROM units WHERE name='storm')")
check "PIDs were reused ($reused) and every process kept its own record" [ "$reused" -gt 0 ]
check "each true exited 0 with its own totals" \
  [ "$(db "SELECT COUNT(*) FROM processes WHERE comm='true' AND status=0 AND cpu_ns>0 AND end_ns>=start_ns")" -eq 5000 ]
lost=$(ctl status --json | grep -o '"lost": *[0-9]*' | grep -o '[0-9]*$')
check "daemon counted 0 lost events" [ "$lost" = 0 ]

ctl run --name failing -- bash -c 'exit 3' 2>/dev/null
check "a failing command's status is passed through" [ $? -eq 3 ]
check "its unit is FAILED" [ "$(db "SELECT state FROM units WHERE name='failing'")" = FAILED ]
ctl run -- /nonexistent/cmd 2>/dev/null
check "a missing command exits 127" [ $? -eq 127 ]
finish
