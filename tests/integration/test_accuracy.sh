# Per-process totals agree with what the kernel reports to wait4(2) (/usr/bin/time -v) and
# with /proc/PID/io: CPU within 1 % or 10 ms, peak RSS within 1 % or 256 KiB, I/O exact; live
# samples count a process's own I/O as its exit does.
# wait4 counts CPU from the fork; tracer counts a program's from its first exec and keeps the
# part before (pre_exec_cpu_ns) apart: their sum is what wait4 reports.
# lane: daemon cpu: 0.4
. "$(dirname "$0")/lib.sh"
start_daemon || exit 1
RUSAGE=$(prog rusage) && CPUBURN=$(prog cpuburn) && THREADS=$(prog threads) &&
  ALLOC=$(prog alloc) && IO=$(prog io) && THREADIO=$(prog threadio) ||
  { fail "building test programs"; finish; exit 1; }

within() { # within MEASURED REFERENCE REL ABS: |m - r| <= max(REL * r, ABS)
  awk -v m="$1" -v r="$2" -v rel="$3" -v abs="$4" 'BEGIN {
    d = m - r; if (d < 0) d = -d; lim = rel * r; if (lim < abs) lim = abs; exit !(d <= lim) }'
}

# compare NAME COMM: the tracer record of COMM in unit NAME against the wait4 reference
compare() {
  local name=$1 comm=$2 user sys rss cpu maxrss
  read -r user sys rss < "$T/$name.ref"
  read -r cpu maxrss < <(db -separator ' ' "SELECT cpu_ns + COALESCE(pre_exec_cpu_ns, 0), maxrss_kb FROM processes WHERE comm='$comm' AND unit=(SELECT id FROM units WHERE name='$name')")
  local ref_ns=$(( (user + sys) * 1000 ))
  echo "  $name: cpu tracer ${cpu}ns wait4 ${ref_ns}ns; maxrss tracer ${maxrss}kB wait4 ${rss}kB"
  check "$name: CPU within 1% or 10 ms of wait4" within "$cpu" "$ref_ns" 0.01 10000000
  check "$name: peak RSS within 1% or 256 KiB of wait4" within "$maxrss" "$rss" 0.01 256
  # /usr/bin/time -v prints the same rusage, rounded down to 10 ms and whole kB
  local tu ts tm
  read -r cpu maxrss < <(db -separator ' ' "SELECT cpu_ns + COALESCE(pre_exec_cpu_ns, 0), maxrss_kb FROM processes WHERE comm='$comm' AND unit=(SELECT id FROM units WHERE name='$name-time')")
  tu=$(awk -F': ' '/User time/ {print $2}' "$T/$name.time")
  ts=$(awk -F': ' '/System time/ {print $2}' "$T/$name.time")
  tm=$(awk -F': ' '/Maximum resident/ {print $2}' "$T/$name.time")
  echo "  $name-time: cpu tracer ${cpu}ns time -v ${tu}s user ${ts}s sys; maxrss tracer ${maxrss}kB time -v ${tm}kB"
  check "$name: CPU within 1% or 10 ms of /usr/bin/time -v (+20 ms print rounding)" \
    within "$cpu" "$(awk -v u="$tu" -v s="$ts" 'BEGIN {printf "%.0f", (u + s + 0.01) * 1e9}')" 0.01 20000000
  check "$name: peak RSS within 1% or 256 KiB of /usr/bin/time -v" within "$maxrss" "$tm" 0.01 256
}

measure() { # measure NAME CMD...: once under wait4, once under /usr/bin/time -v, both traced
  local name=$1; shift
  ctl run --name "$name" -- "$RUSAGE" "$T/$name.ref" "$@" 2>/dev/null
  ctl run --name "$name-time" -- /usr/bin/time -v -o "$T/$name.time" "$@" 2>/dev/null
}

measure cpu "$CPUBURN" 1.5
compare cpu cpuburn
measure threads "$THREADS"
compare threads threads
check "threads: the process ended in a non-leader thread and all 5 threads counted" \
  [ "$(db "SELECT threads > 0 AND cpu_ns > 1900000000 FROM processes WHERE comm='threads' LIMIT 1")" = 1 ]
measure alloc "$ALLOC" 500
compare alloc alloc
check "alloc: peak RSS is above 500 MiB" [ "$(db "SELECT maxrss_kb FROM processes WHERE comm='alloc' LIMIT 1")" -gt 512000 ]

# I/O: the program prints /proc/self/io last; its own read and write of that text follow
ctl run --name io -- "$IO" "$T/io.dat" 2>/dev/null | cat > "$T/io.txt"
len=$(wc -c < "$T/io.txt")
get() { awk -v k="$1:" '$1 == k {print $2}' "$T/io.txt"; }
read -r rchar wchar syscr syscw rb wb < <(db -separator ' ' "SELECT rchar, wchar, syscr, syscw, read_bytes, write_bytes FROM processes WHERE comm='io'")
echo "  io: tracer rchar $rchar wchar $wchar read_bytes $rb write_bytes $wb; /proc: $(tr '\n' ' ' < "$T/io.txt")"
check "io: rchar equals /proc/PID/io" [ "$rchar" -eq $(( $(get rchar) + len )) ]
check "io: wchar equals /proc/PID/io" [ "$wchar" -eq $(( $(get wchar) + len )) ]
check "io: syscr/syscw equal /proc/PID/io" [ "$syscr" -eq $(( $(get syscr) + 1 )) -a "$syscw" -eq $(( $(get syscw) + 1 )) ]
check "io: read_bytes equals /proc/PID/io" [ "$rb" -eq "$(get read_bytes)" ]
check "io: write_bytes equals /proc/PID/io (8 MiB written)" [ "$wb" -eq "$(get write_bytes)" -a "$wb" -ge 8388608 ]

# a parent is not charged for its children's I/O (wait(2) folds it into /proc/PID/io)
ctl run --name parent -- bash -c 'head -c 4000000 /dev/zero > /dev/null; true' 2>/dev/null
check "parent: bash's rchar excludes its child's 4 MB" \
  [ "$(db "SELECT rchar < 1000000 FROM processes WHERE comm='bash' AND unit=(SELECT id FROM units WHERE name='parent')")" = 1 ]

# live samples (every 1 s) read the same own I/O: a shell sampled after it reaped a writer
# holds none of its 8 MiB (the shell ends with a builtin: bash -c would exec a last command),
# a writer's threads' 4 x 4 MiB are its own while they sleep
sampled() { # sampled UNIT COMM: the most write_bytes of COMM's samples, and of its exit
  db -separator ' ' "SELECT COALESCE((SELECT MAX(s.write_bytes) FROM samples s WHERE s.unit=p.unit AND s.pid=p.pid), 'none'),
    p.write_bytes FROM processes p WHERE p.comm='$2' AND p.unit=(SELECT id FROM units WHERE name='$1')"
}
ctl run --name reaped -- bash -c "dd if=/dev/zero of='$T/reaped' bs=1M count=8 conv=fsync status=none; sleep 2.5; rm -f '$T/reaped'; true" 2>/dev/null
read -r sh_sampled sh_exit < <(sampled reaped bash)
read -r dd_sampled dd_exit < <(sampled reaped dd)
echo "  reaped: bash's samples ${sh_sampled:-none} B, its exit ${sh_exit:-none} B; dd's exit ${dd_exit:-none} B"
shell_own() { [ "${sh_sampled:-none}" != none ] && [ "$sh_sampled" -lt 1048576 ] && [ "${dd_exit:-0}" -ge 8388608 ]; }
check "samples: a shell that reaped dd holds none of its writes" shell_own
ctl run --name wide -- "$THREADIO" "$T/wide" 4 4 3 2>/dev/null
rm -f "$T"/wide.*
read -r wide_sampled wide_exit < <(sampled wide threadio)
echo "  wide: threadio's samples ${wide_sampled:-none} B, its exit ${wide_exit:-none} B"
threads_own() { [ "${wide_sampled:-none}" != none ] && [ "$wide_sampled" -ge 16777216 ] && [ "$wide_sampled" -le "${wide_exit:-0}" ]; }
check "samples: a process's threads' writes while they run, no more than its exit's" threads_own
finish
