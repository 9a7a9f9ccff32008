# Wait and network figures against the kernel's own counters: CPU wait against schedstat's
# run_delay, I/O wait against delay accounting's block-I/O delay, network bytes against what the
# program's calls returned. Delay accounting is switched on for the test and restored after.
# lane: alone
. "$(dirname "$0")/lib.sh"
WAITS=$(prog waits) || { fail "building the test program"; finish; exit 1; }
old_delayacct=$(cat /proc/sys/kernel/task_delayacct 2>/dev/null || echo)
restore() { [ -z "$old_delayacct" ] || echo "$old_delayacct" > /proc/sys/kernel/task_delayacct; }
trap 'restore; stop_daemon; rm -rf "$T"' EXIT INT TERM
[ -z "$old_delayacct" ] || echo 1 > /proc/sys/kernel/task_delayacct
start_daemon || exit 1

within() { # within MEASURED REFERENCE REL ABS: |m - r| <= max(REL * r, ABS)
  awk -v m="$1" -v r="$2" -v rel="$3" -v abs="$4" 'BEGIN {
    d = m - r; if (d < 0) d = -d; lim = rel * r; if (lim < abs) lim = abs; exit !(d <= lim) }'
}
field() { # field COLUMN UNIT [COMM]: the record is committed a moment after its run ends
  local v
  for _ in $(seq 50); do
    v=$(db "SELECT $1 FROM processes WHERE comm='${3:-waits}' AND unit=(SELECT id FROM units WHERE name='$2')")
    [ -n "$v" ] && break
    sleep 0.1
  done
  echo "$v"
}

# CPU wait: 4 busy threads on one core wait for it about 3/4 of the time. Under qemu's TCG on
# a busy 2-core host a try has been seen off (once in many runs: 7.55 s against 6.05 s on 6.1):
# a try that disagrees is printed and run again, 3 tries at most, as the I/O wait's below.
agreed=false
for try in 1 2 3; do
  ref=$(ctl run --name cpuwait$try -- "$WAITS" cpu 4 2 2>/dev/null | awk '/run_delay/ {print $2}')
  got=$(field cpu_wait_ns cpuwait$try)
  echo "  cpu wait, try $try: tracer ${got} ns, schedstat run_delay ${ref} ns"
  within "${got:-0}" "${ref:-1}" 0.02 10000000 && { agreed=true; break; }
done
check "CPU wait within 2 % or 10 ms of schedstat's run_delay" $agreed
check "CPU wait of 4 threads on one core is most of their time" [ "${got:-0}" -gt 4000000000 ]
# the same with a leader that ends half-way (pthread_exit): it stays listed as a zombie, and
# its wait is counted once, not again with the threads still listed at the end. The reference
# is the zombie leader's schedstat, read once it has exited: what the leader read of its own
# before pthread_exit left out the wait of its exit (under TCG on 6.1, 80-130 ms, 2.3 %, in
# every try of one run). Tried as above.
agreed=false
for try in 1 2 3; do
  ref=$(ctl run --name cpuwait-zombie$try -- "$WAITS" cpu-leader-first 4 2 2>/dev/null | awk '/run_delay/ {print $2}')
  got=$(field cpu_wait_ns cpuwait-zombie$try)
  echo "  cpu wait, leader ended first, try $try: tracer ${got} ns, schedstat run_delay ${ref} ns"
  within "${got:-0}" "${ref:-1}" 0.02 10000000 && { agreed=true; break; }
done
check "CPU wait with a zombie leader within 2 % or 10 ms of schedstat's run_delay" $agreed

# I/O wait: synced writes wait for the device. The reference is taskstats' block-I/O delay in
# ns (or /proc's whole clock ticks where taskstats is missing). The writer runs SCHED_FIFO:
# on kernels with delayed dequeue (6.12+) delay accounting mis-stamps a fair task's I/O sleep
# (it stamps the task current at the deferred dequeue, and a wake of a still-queued task ends
# no wait), so its figure is off by a few % and now and then by the uptime; a real-time task
# is never dequeued late. A try that disagrees is printed and run again, 3 tries at most.
if [ -n "$old_delayacct" ]; then
  fifo=$(command -v chrt >/dev/null && chrt -f 1 true 2>/dev/null && echo "chrt -f 1")
  [ -n "$fifo" ] || echo "  (chrt -f cannot be had: the writer runs as a fair task, whose I/O wait delay accounting mis-stamps on 6.12+)"
  agreed=false
  for try in 1 2 3; do
    read -r _ ref _ res _ elapsed < <(ctl run --name iowait$try -- $fifo "$WAITS" io "$T/io.dat" 32 2>/dev/null)
    got=$(field iowait_ns iowait$try)
    echo "  io wait, try $try: tracer ${got} ns, delay accounting ${ref} ns (resolution ${res} ns), run ${elapsed} ns${fifo:+, SCHED_FIFO}"
    if [ -n "$got" ] && [ -n "$ref" ] &&
      { within "$got" "$ref" 0.05 20000000 || within "$got" $((ref + ${res:-1})) 0.05 20000000; }; then
      agreed=true; break
    fi
  done
  check "I/O wait within 5 % or 20 ms of delay accounting's block-I/O delay" $agreed
else
  fail "this kernel has no kernel.task_delayacct: I/O wait cannot be checked"
fi

# other off-CPU time: a sleep sleeps
ctl run --name sleeper -- /bin/sleep 1 >/dev/null 2>&1
got=$(field offcpu_ns sleeper sleep)
echo "  off-CPU of sleep 1: ${got} ns"
check "sleep 1 is off the CPU for 1 s (within 20 ms)" within "${got:-0}" 1000000000 0 20000000

# OffCPU is thread time: 4 threads sleeping 2 s and their leader joining them are ~10 s of it
# in ~2 s, and a table with it says so (tracer-jobstat(1): OffCPU / Elapsed threads asleep)
# (a thread's last sleep is accounted at its exit; under TCG one has been seen missing once in
# many runs, 8.1 s: a try that disagrees is printed and run again, 3 tries at most)
agreed=false
for try in 1 2 3; do
  pool=pool$try
  ctl run --name $pool -- "$WAITS" sleep 4 2 >/dev/null 2>&1
  got=$(field offcpu_ns $pool waits)
  echo "  off-CPU of 4 threads sleeping 2 s and their leader, try $try: ${got} ns"
  within "${got:-0}" 10000000000 0.05 0 && { agreed=true; break; }
done
check "OffCPU sums the threads: 5 threads asleep 2 s are 10 s (within 5 %)" $agreed
out=$(jobstat -j $pool --signals 2>&1)
echo "$out" | sed 's/^/    /'
check "a table with OffCPU says it is thread time, OffCPU / Elapsed threads asleep" \
  grep -q 'OffCPU / Elapsed is how many threads were asleep on average' <<< "$out"
check "... not with -P" bash -c "! jobstat -j $pool --signals -P 2>&1 | grep -q 'thread time'"

# network: every byte sent and received over loopback TCP and UDP
if [ -e /sys/kernel/tracing/events/sock/sock_send_length ] || [ -e /sys/kernel/debug/tracing/events/sock/sock_send_length ]; then
  read -r _ tx _ rx < <(ctl run --name net -- "$WAITS" net 4096 2>/dev/null)
  got_tx=$(field net_tx_bytes net); got_rx=$(field net_rx_bytes net)
  echo "  network: tracer tx ${got_tx} rx ${got_rx}; the calls returned tx ${tx} rx ${rx}"
  check "NetTx equals the bytes sent" [ "${got_tx:-x}" = "$tx" ]
  check "NetRx equals the bytes received" [ "${got_rx:-x}" = "$rx" ]
else
  ctl run --name net -- "$WAITS" net 64 >/dev/null 2>&1
  check "without sock tracepoints NetTx is unknown, not 0" [ "$(field "COALESCE(net_tx_bytes, 'unknown')" net)" = unknown ]
fi
restore
finish
