# A program's own peak memory, not the copy of the large parent that started it: a Python parent
# holding 300 MiB runs `sort` and `gzip` with subprocess.run (no shell), and a Java parent holding
# 300 MiB does the same with ProcessBuilder when a JVM is installed (Debian's
# default-jre-headless; skipped with a message otherwise). Each tool's MaxRSS, in its process row
# and in its tool row, must be within 1 % or 256 KiB of the same command's peak under
# /usr/bin/time -v started from a small parent (bash), the median of 3 runs on each side; the
# store's raw ru_maxrss_kb keeps the kernel's figure, which holds the parent's copy.
# lane: daemon cpu: 0.5
. "$(dirname "$0")/lib.sh"
# no pyenv or other shims in between: they would start extra processes
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C
start_daemon || exit 1
PARENT_MIB=300
RUNS=3

# a 20 MB input: sort's own peak is tens of MB, gzip's a few MB
/usr/bin/python3 - "$T/in.txt" <<'PY'
import random, sys
r = random.Random(12)
with open(sys.argv[1], 'w') as f:
    n = 0
    while n < 20 * 2**20:
        s = '%016x %d\n' % (r.getrandbits(64), r.randrange(10**6))
        f.write(s)
        n += len(s)
PY

within() { # within MEASURED REFERENCE: |m - r| <= max(1 % of r, 256 KiB)
  awk -v m="$1" -v r="$2" 'BEGIN { d = m - r; if (d < 0) d = -d; l = r / 100; if (l < 256) l = 256; exit !(d <= l) }'
}

# A small program's peak varies from run to run by up to ~300 KiB (the kernel's RSS counters
# are per-CPU and read approximately): each side is the median of RUNS runs.
median() { sort -n | sed -n "$(( (RUNS + 1) / 2 ))p"; }

# The reference: the command's peak under /usr/bin/time -v, started from bash.
declare -A REF
reference() { # reference TOOL CMD...: REF[TOOL] in kB
  local tool=$1 i; shift
  for i in $(seq $RUNS); do
    bash -c '/usr/bin/time -v -o "$0" "$@" > /dev/null' "$T/ref.time" "$@" || return 1
    awk -F': ' '/Maximum resident/ {print $2}' "$T/ref.time"
  done > "$T/ref.$tool"
  REF[$tool]=$(median < "$T/ref.$tool")
  echo "  $tool under /usr/bin/time -v from bash: median ${REF[$tool]} kB of $(paste -sd' ' "$T/ref.$tool")"
}
reference sort sort "$T/in.txt" || fail "sort under /usr/bin/time -v"
reference gzip gzip -c "$T/in.txt" || fail "gzip under /usr/bin/time -v"

# check_runs NAME PARENT: the tools of the traced runs NAME-1..RUNS against their references
check_runs() {
  local name=$1 parent=$2 tool i proc row nrow raw flags procs rows raws peak_read
  for tool in sort gzip; do
    procs= rows= raws= nrow=1 peak_read=1
    for i in $(seq $RUNS); do
      # the process row (one process runs the tool) and the tool row, in kB
      proc=$(jobstat -j "$name-$i" --processes -P -n --units=K -o Tool,MaxRSS | awk -F'|' -v t=$tool '$1 == t { print $2 }')
      row=$(jobstat -j "$name-$i" --tools -P -n --units=K -o Tool,NProcs,MaxRSS | awk -F'|' -v t=$tool '$1 == t { print $2 " " $3 }')
      read -r raw flags < <(db -separator ' ' "SELECT ru_maxrss_kb, flags FROM processes
        WHERE comm='$tool' AND unit=(SELECT id FROM units WHERE name='$name-$i')")
      [ "${row%% *}" = 1 ] || nrow=0
      [ -n "$flags" ] && [ $(( flags & 0x200 )) -eq 0 ] || peak_read=0
      proc=${proc%K} row=${row#* } row=${row%K}
      procs+="${proc:-0} " rows+="${row:-0} " raws+="${raw:-0} "
    done
    proc=$(echo $procs | tr ' ' '\n' | median)
    row=$(echo $rows | tr ' ' '\n' | median)
    raw=$(echo $raws | tr ' ' '\n' | sort -n | head -1)
    echo "  $parent parent: $tool MaxRSS: process rows median ${proc:-none} kB of ${procs% }; tool rows" \
      "median ${row:-none} kB of ${rows% }; /usr/bin/time -v ${REF[$tool]} kB; raw ru_maxrss ${raws% }"
    check "$parent: $tool's process row MaxRSS is its own peak (${proc:-none} kB, time -v ${REF[$tool]} kB)" \
      within "${proc:-0}" "${REF[$tool]}"
    check "$parent: $tool's tool row MaxRSS is its own peak (${row:-none} kB, time -v ${REF[$tool]} kB)" \
      within "${row:-0}" "${REF[$tool]}"
    check "$parent: each tool row is $tool's one process" [ $nrow = 1 ]
    check "$parent: $tool's peak was read at its end, not taken from a live sample" [ $peak_read = 1 ]
    check "$parent: $tool's raw ru_maxrss keeps the parent's ${PARENT_MIB} MiB copy (at least ${raw:-none} kB)" \
      [ "${raw:-0}" -gt $(( PARENT_MIB * 1024 )) ]
  done
}

# Python: subprocess.run starts the tools with vfork + exec, no shell
cat > "$T/parent.py" <<'PY'
import subprocess, sys
n = int(sys.argv[1]) << 20
held = bytearray(n)
held[::4096] = b'\1' * len(range(0, n, 4096))  # touch every page
subprocess.run(['sort', sys.argv[2]], stdout=subprocess.DEVNULL, check=True)
with open(sys.argv[3], 'wb') as out:
    subprocess.run(['gzip', '-c', sys.argv[2]], stdout=out, check=True)
print(held[4096])
PY
for i in $(seq $RUNS); do
  ctl run --name peak-python-$i -- /usr/bin/python3 "$T/parent.py" $PARENT_MIB "$T/in.txt" "$T/py.gz" > /dev/null 2>&1 ||
    fail "the Python parent ran (run $i)"
done
check_runs peak-python Python

# Java: ProcessBuilder (posix_spawn of jspawnhelper, which execs the tool)
if ! command -v java > /dev/null; then
  # a JRE is a large install for one test: say how to get it instead
  cand=$(apt-cache policy default-jre-headless 2>/dev/null | awk '/Candidate:/ {print $2}')
  echo "  skip Java: no java on PATH (Debian: apt-get install default-jre-headless${cand:+, $cand})"
else
  cat > "$T/Parent.java" <<'JAVA'
import java.io.File;

public class Parent {
    public static void main(String[] a) throws Exception {
        byte[] held = new byte[Integer.parseInt(a[0]) << 20];
        for (int i = 0; i < held.length; i += 4096)
            held[i] = 1; // touch every page
        run(new ProcessBuilder("sort", a[1]).redirectOutput(new File("/dev/null")));
        run(new ProcessBuilder("gzip", "-c", a[1]).redirectOutput(new File(a[2])));
        System.out.println(held[4096]);
    }

    static void run(ProcessBuilder pb) throws Exception {
        int rc = pb.redirectError(ProcessBuilder.Redirect.INHERIT).start().waitFor();
        if (rc != 0)
            System.exit(rc);
    }
}
JAVA
  echo "  $(java -version 2>&1 | head -1)"
  for i in $(seq $RUNS); do
    (cd "$T" && ctl run --name peak-java-$i -- java -Xmx1g Parent.java $PARENT_MIB "$T/in.txt" "$T/java.gz") > /dev/null 2>&1 ||
      fail "the Java parent ran (run $i)"
  done
  check_runs peak-java Java
fi
finish
