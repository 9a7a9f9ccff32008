# tracer-jobstat --html: one self-contained page of a run, rendered by a real browser (Chromium,
# headless) after its script ran. A small workflow of several tools under `tracerctl run`: CPU
# (cpuburn), memory (alloc), writes (dd), a process that fails (ls), one the OOM killer stops
# (alloc in a 40 MiB memory cgroup) and one that stalls (cat on a FIFO for 6 s); a second run of
# the same workflow run makes --run a report across runs. Hostile names (a command line that
# closes the script element, an <img onerror>, a run and a pipeline named in markup) show as
# text and run nothing. A run of 100 000 processes (a real run of some 550, its work repeated
# in the store) is written into at most 5 MB, its processes drawn or folded as the page says
# (the time is printed; what the page adds to fetching the processes is asserted). A file that
# cannot be written is an error, and no partial file is left.
# lane: daemon cpu: 0.7
. "$(dirname "$0")/lib.sh"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C
command -v chromium > /dev/null || { fail "chromium is not installed (scripts/install-deps)"; finish; exit 1; }
write_config
sed -i 's/^SampleInterval = .*/SampleInterval = 500ms/' "$T/tracer.conf"
echo "StallAfter = 2s" >> "$T/tracer.conf"
start_daemon || exit 1
BURN=$(prog cpuburn) || { fail "build cpuburn"; finish; exit 1; }
ALLOC=$(prog alloc) || { fail "build alloc"; finish; exit 1; }

# Chromium's DOM after the page's script ran, and a screenshot
browse() { # browse FILE DOMOUT [PNG]
  local home=$T/chromium-home
  mkdir -p "$home"
  HOME=$home timeout 60 chromium --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$home" --virtual-time-budget=3000 --dump-dom "file://$1" > "$2" 2> "$T/chromium.err"
  [ -z "${3:-}" ] || HOME=$home timeout 60 chromium --headless --no-sandbox --disable-gpu \
    --no-first-run --user-data-dir="$home" --hide-scrollbars --window-size=1280,2400 \
    --screenshot="$3" "file://$1" > /dev/null 2>> "$T/chromium.err"
}

# a memory cgroup of 40 MiB (v1's controller, or v2's where it has one) for the OOM kill
MEMCG=
if [ -w /sys/fs/cgroup/memory/cgroup.procs ]; then
  MEMCG=/sys/fs/cgroup/memory/tracer-html-$$
  mkdir -p "$MEMCG" && echo $((40 << 20)) > "$MEMCG/memory.limit_in_bytes"
  [ ! -e "$MEMCG/memory.memsw.limit_in_bytes" ] || echo $((40 << 20)) > "$MEMCG/memory.memsw.limit_in_bytes"
  echo 0 > "$MEMCG/memory.swappiness" 2>/dev/null
elif grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
  MEMCG=/sys/fs/cgroup/tracer-html-$$
  mkdir -p "$MEMCG" && echo $((40 << 20)) > "$MEMCG/memory.max" && echo 0 > "$MEMCG/memory.swap.max"
fi

mkfifo "$T/fifo"
cat > "$T/work.sh" <<W
$BURN 2
$ALLOC 150
dd if=/dev/zero of=$T/out bs=1M count=32 conv=fsync status=none
rm -f $T/out
ls /nonexistent-html-test 2> /dev/null || true
${MEMCG:+sh -c 'echo \$\$ > $MEMCG/cgroup.procs; exec $ALLOC 200' || true}
(sleep 6; echo go > $T/fifo) &
cat $T/fifo > /dev/null
wait
W
ctl run --name demo --pipeline align --run r1 --step map -- bash "$T/work.sh" 2> "$T/run.out"
check "the workflow ran" grep -q "COMPLETED" "$T/run.out"
ctl run --name demo2 --pipeline align --run r1 --step sort -- "$BURN" 1 2> /dev/null
[ -z "$MEMCG" ] || rmdir "$MEMCG" 2>/dev/null

t0=$(date +%s%N)
jobstat -j demo --html "$T/demo.html" > "$T/html.out" 2> "$T/html.err"
rc=$?
echo "  --html of the run: $(( ($(date +%s%N) - t0) / 1000000 )) ms, $(stat -c %s "$T/demo.html") bytes"
check "--html: exit 0, nothing on stdout or stderr" bash -c "[ $rc -eq 0 ] && [ ! -s '$T/html.out' ] && [ ! -s '$T/html.err' ]"
check "no FILE.tmp left" [ ! -e "$T/demo.html.tmp" ]
check "self-contained: no external script, style, image or font" \
  bash -c "! grep -Eiq '<script[^>]* src=|<link |<img |url\\(|@import|https?://[^\" ]*\\.(js|css|png|woff)' '$T/demo.html'"
browse "$T/demo.html" "$T/demo.dom" "$T/demo.png"
check "chromium rendered it" [ -s "$T/demo.dom" ]
check "screenshot written" [ -s "$T/demo.png" ]

python3 - "$T" "$MEMCG" <<'PY' > "$T/checks" 2>&1
import html.parser, re, sys
T, memcg = sys.argv[1], sys.argv[2]
dom = open(T + "/demo.dom", encoding="utf-8").read()
raw = open(T + "/demo.html", encoding="utf-8").read()

def say(ok, what):
    print(("ok   " if ok else "FAIL ") + what)

class Doc(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.attrs, self.text, self.stack = [], [], [], []
    def handle_starttag(self, tag, attrs):
        self.tags.append(tag); self.attrs.append(dict(attrs)); self.stack.append(tag)
    def handle_data(self, data):
        self.text.append((self.stack[-1] if self.stack else "", data))
    def handle_endtag(self, tag):
        while self.stack and self.stack.pop() != tag:
            pass

d = Doc(); d.feed(dom)
cls = lambda c: [a for a in d.attrs if c in (a.get("class") or "").split()]
say(re.search(r'<body[^>]* data-ready="\d+"', dom) is not None, "the page's script ran (body data-ready)")
say('<h1 id="title">Run ' in dom, "the title names the run")
say(len(re.findall(r'<tr class="job">', dom)) == 1, "summary: the run's row")
say("COMPLETED" in dom, "summary: its state")
say(len(cls("lstep")) >= 1, "gantt: the run's step row (%d)" % len(cls("lstep")))
tools = {t for tag, t in d.text if tag == "text"} 
for tool in ("cpuburn", "alloc", "dd", "ls", "cat"):
    say(tool in tools, "gantt: tool %s has its lane" % tool)
procs = cls("proc")
say(len(procs) >= 6, "gantt: %d processes drawn" % len(procs))
say(len(cls("m-exit")) >= 1, "gantt: a marker for the non-zero exit (%d)" % len(cls("m-exit")))
if memcg:
    say(len(cls("m-oom")) == 1, "gantt: a marker for the OOM kill (%d)" % len(cls("m-oom")))
else:
    print("ok   no memory cgroup here: no OOM kill to mark")
say(len(cls("m-stall")) >= 1, "gantt: a marker for the stall of cat (%d)" % len(cls("m-stall")))
say(len(cls("samples")) >= 1 and len(cls("series")) >= 4, "samples: charts of the run's series")
say(re.search(r'<table class="tools sortable">', dom) is not None, "tools: the table the script built")
rows = re.findall(r'<table class="tools sortable">.*?</table>', dom, re.S)[0]
for tool in ("cpuburn", "alloc", "dd"):
    say(re.search(r'<td>%s</td>' % tool, rows) is not None, "tools: %s has a row" % tool)
say(re.search(r'data-v="', rows) is not None, "tools: numbers carry their sort key")
notes = re.findall(r'<ul class="notes">(.*?)</ul>', dom, re.S)
say(notes and re.search(r"first to fail: process \d+ \(ls, .*exited with 2", notes[0]) is not None, "notes: the first to fail (ls)")
say(not memcg or (notes and "the OOM killer stopped process" in notes[0]), "notes: the OOM kill")
say("stalled" in (notes[0] if notes else ""), "notes: the stall")
PY
while read -r word what; do
  if [ "$word" = ok ]; then ok "$what"; else fail "$what"; fi
done < "$T/checks"
grep -v '^ok \|^FAIL ' "$T/checks" && fail "the checks' script: see above"

# the notes in the page are the terminal's
jobstat -j demo 2>/dev/null | sed -n '/^Run /,$p' | tail -n +2 | sed 's/^  //' > "$T/term.notes"
check "the page's notes are the terminal's, line for line" python3 -c "
import html, re, sys
dom = open('$T/demo.dom', encoding='utf-8').read()
page = [html.unescape(re.sub('<[^>]+>', '', l)) for l in re.findall(r'<li>(.*?)</li>', re.findall(r'<ul class=\"notes\">(.*?)</ul>', dom, re.S)[0], re.S)]
term = [l for l in open('$T/term.notes').read().splitlines() if l.strip()]
assert page and page == term[:len(page)], (page, term)"

# --run: the workflow run's two runs in one page (runs outside Slurm are named with -j; a third
# one, of another workflow run, is left out)
ctl run --name other --pipeline align --run r2 -- true 2> /dev/null
jobstat -j demo,demo2,other --run r1 --html "$T/run.html" 2> "$T/run.err"
check "--run r1 --html: exit 0" [ $? -eq 0 ]
browse "$T/run.html" "$T/run.dom"
check "--run r1: both runs' rows and steps in the page, not r2's" \
  bash -c "[ \$(grep -o '<tr class=\"job\">' '$T/run.dom' | wc -l) -eq 2 ] && [ \$(grep -o 'class=\"lstep\"' '$T/run.dom' | wc -l) -eq 2 ] && grep -q '>sort<' '$T/run.dom' && ! grep -q '>other<' '$T/run.dom'"
check "--run r1: the title says the run" grep -q '<h1 id="title">2 jobs of run r1</h1>' "$T/run.dom"

# hostile names: a command line that ends the script element and opens another, an <img> with
# onerror, a run and a pipeline in markup, an invalid UTF-8 byte and a U+2028
EVIL_DIR="$T/bin"
mkdir -p "$EVIL_DIR"
cp /bin/true "$EVIL_DIR/<img src=x onerror=document.title='PWNED-tool'>"
cat > "$T/evil.sh" <<'W'
/bin/true '</script><script>document.title="PWNED-argv"</script>' '<!--' "$(printf 'bad\xff\xe2\x80\xa8end')"
"$1/<img src=x onerror=document.title='PWNED-tool'>"
W
ctl run --name '<b>evil</b>' --pipeline '<script>document.title="PWNED-pipe"</script>' \
  --run '"><img src=x onerror=document.title="PWNED-run">' -- bash "$T/evil.sh" "$EVIL_DIR" 2> /dev/null
jobstat -j '<b>evil</b>' --html "$T/evil.html" 2> "$T/evil.err"
check "hostile names: --html exit 0" [ $? -eq 0 ]
browse "$T/evil.html" "$T/evil.dom" "$T/evil.png"
check "hostile names: the page's script ran" grep -q 'data-ready="' "$T/evil.dom"
check "hostile names: the title is the page's own" \
  bash -c "grep -q '<title>tracer-jobstat: Run &lt;b&gt;evil&lt;/b&gt;</title>' '$T/evil.dom' && ! grep -q 'PWNED[^<]*</title>' '$T/evil.dom' || ! grep -q '<title>PWNED' '$T/evil.dom'"
check "hostile names: no element was injected (no img, no script but the page's two)" \
  bash -c "! grep -qi '<img' '$T/evil.dom' && [ \$(grep -oi '<script' '$T/evil.dom' | wc -l) -eq 2 ] && ! grep -q '<b>evil' '$T/evil.dom'"
check "hostile names: the markup shows as text" \
  bash -c "grep -q '&lt;img src=x onerror=document.title=.PWNED-tool.&gt;' '$T/evil.dom' && grep -q '&lt;b&gt;evil&lt;/b&gt;' '$T/evil.dom'"
check "hostile names: the command line with </script> shows as text in the tool table or chart" \
  grep -q '&lt;/script&gt;&lt;script&gt;document.title=' "$T/evil.dom"
check "hostile names: the raw file holds no closing script tag but the page's" \
  bash -c "[ \$(grep -o '</script>' '$T/evil.html' | wc -l) -eq 2 ] && ! grep -q '<!--' '$T/evil.html'"
check "hostile names: invalid UTF-8 and U+2028 shown escaped" \
  bash -c "grep -q 'bad\\\\xff\\\\u2028end' '$T/evil.dom' && ! LC_ALL=C grep -q \$'\\xe2\\x80\\xa8' '$T/evil.html'"

# a file that cannot be written: an error, nothing left behind
jobstat -j demo --html "$T/nodir/x.html" > /dev/null 2> "$T/err"
check "--html into a missing directory: exit 1 and a clear error" \
  bash -c "[ $? -eq 1 ] && grep -q 'cannot write.*nodir/x.html.tmp' '$T/err' && [ ! -e '$T/nodir' ]"
mkdir "$T/ro" && chmod 555 "$T/ro"
setpriv --reuid=nobody --regid=nogroup --clear-groups env TRACER_CONF="$TRACER_CONF" \
  "$BUILD/tracer-jobstat" -N $NODE -j demo --html "$T/ro/x.html" > /dev/null 2> "$T/err"
check "--html into a directory the user may not write: exit 1, no file" \
  bash -c "[ $? -ne 0 ] && [ -z \"\$(ls -A '$T/ro')\" ]"
jobstat -j demo --html "$T/demo.html" --json > /dev/null 2>&1
check "--html with --json: a usage error" [ $? -eq 2 ]

# 100 000 processes: written in at most 2 s, at most 5 MB, drawn or folded as the page says.
# 100 000 real execs would cost minutes of CPU, and the page reads only the store: a real run
# of some 550 processes of several tools (execstorm and its 400 true, gzip, sort, md5sum), its
# work then repeated in the store, as if its script had looped on to 100 000 processes.
STORM=$BUILD/itest/execstorm
gcc -O2 -o "$STORM" "$TOP/bench/execstorm.c" || fail "build execstorm"
cat > "$T/big.sh" <<W
"$STORM" 400 > /dev/null
for i in \$(seq 50); do
  gzip -c /etc/services > /dev/null
  sort /etc/passwd > /dev/null
  md5sum /etc/passwd > /dev/null
done
W
ctl run --name big -- bash "$T/big.sh" > /dev/null 2> "$T/big.out"
stop_daemon # its rows committed; the store is the test's alone while it grows
BIG=$(db "SELECT id FROM units WHERE name='big'")
REAL=$(db "SELECT COUNT(*) FROM processes WHERE unit=$BIG")
# grow_run UNIT N: the unit's work done again, to N processes. Its first process (the script)
# spans the run; every other one is copied into rounds 1, 2, ... (the last one partly), each
# round as long as the script ran, with the pids the kernel would hand out next (past pid_max,
# from 300 again), children under their round's parent, with their samples. The run is first
# moved back by the rounds' time, so that it ends when it did, not after the report (by whole
# ticks: the unit's root start is one; never before the boot). What tracerd summed as the rows
# came in is summed again: the script's counters and samples run on through the rounds; the
# unit's end, sample rounds and share of the store (stored_bytes: 320 bytes and its strings a
# process, 120 a sample, as tracerd counts them) take in the copies; its peaks stay a round's.
grow_run() {
  db "BEGIN;
    CREATE TEMP TABLE r AS SELECT rowid AS rid, * FROM processes WHERE unit=$1
      ORDER BY start_boot_ns LIMIT 1;
    CREATE TEMP TABLE w AS SELECT ROW_NUMBER() OVER (ORDER BY start_boot_ns, pid) - 1 AS i, *
      FROM processes WHERE unit=$1 AND rowid != (SELECT rid FROM r);
    CREATE UNIQUE INDEX temp.w_i ON w(i);
    CREATE TEMP TABLE g AS SELECT COUNT(*) AS m, MAX(pid) - MIN(pid) + 1 AS pids,
      (SELECT end_ns - start_ns FROM r) AS step, $2 - 1 - COUNT(*) AS need,
      $(cat /proc/sys/kernel/pid_max) - 300 AS pid_span FROM w;
    CREATE TEMP TABLE k AS WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c
      WHERE x + 1 < (SELECT need FROM g)) SELECT x / m + 1 AS rnd, x % m AS i FROM c, g;
    CREATE INDEX temp.k_i ON k(i);
    CREATE TEMP TABLE n AS SELECT MAX(rnd) AS last,
      MIN(MAX(rnd) * step, (SELECT start_boot_ns FROM r) - 1000000000) / 10000000 * 10000000
      AS back FROM k, g;
    CREATE TEMP VIEW held AS SELECT 320 * COUNT(*) + SUM(IFNULL(length(argv), 0) +
      length(CAST(IFNULL(comm, '') || IFNULL(exe, '') || IFNULL(tool, '') ||
      IFNULL(subcommand, '') AS BLOB))) + 120 * (SELECT COUNT(*) FROM samples WHERE unit=$1)
      AS bytes FROM processes WHERE unit=$1;
    CREATE TEMP TABLE b AS SELECT bytes FROM held;
    CREATE TEMP TABLE ws AS SELECT w.i, s.* FROM samples s JOIN w ON s.unit = w.unit
      AND s.pid = w.pid AND s.start_boot_ns = w.start_boot_ns;
    UPDATE processes SET start_boot_ns = start_boot_ns - n.back, start_ns = start_ns - n.back,
      exec_ns = exec_ns - n.back, end_ns = end_ns - n.back,
      stall_start_ns = stall_start_ns - CASE WHEN stall_start_ns > 0 THEN n.back ELSE 0 END,
      parent_start_boot_ns = parent_start_boot_ns - n.back FROM n WHERE unit=$1;
    UPDATE samples SET start_boot_ns = start_boot_ns - n.back, time_ns = time_ns - n.back
      FROM n WHERE unit=$1;
    INSERT INTO samples SELECT s.unit, s.pid, s.start_boot_ns, s.time_ns + x.rnd * g.step,
      s.cpu_ns + x.rnd * r.cpu_ns, s.rss_kb, s.cpu_wait_ns + x.rnd * r.cpu_wait_ns,
      s.iowait_ns + x.rnd * r.iowait_ns, s.offcpu_ns + x.rnd * r.offcpu_ns,
      s.net_rx_bytes + x.rnd * r.net_rx_bytes, s.net_tx_bytes + x.rnd * r.net_tx_bytes,
      s.read_bytes + x.rnd * r.read_bytes, s.write_bytes + x.rnd * r.write_bytes
      FROM samples s, r, g, n, (SELECT DISTINCT rnd FROM k) x
      WHERE s.unit=$1 AND s.pid = r.pid AND s.start_boot_ns = r.start_boot_ns - n.back;
    INSERT INTO samples SELECT s.unit, 300 + (s.pid - 300 + k.rnd * g.pids) % g.pid_span,
      s.start_boot_ns + k.rnd * g.step - n.back, s.time_ns + k.rnd * g.step - n.back,
      s.cpu_ns, s.rss_kb, s.cpu_wait_ns, s.iowait_ns, s.offcpu_ns, s.net_rx_bytes,
      s.net_tx_bytes, s.read_bytes, s.write_bytes
      FROM ws s JOIN k ON k.i = s.i, g, n;
    INSERT INTO processes SELECT p.boot_id, 300 + (p.pid - 300 + k.rnd * g.pids) % g.pid_span,
      p.start_boot_ns + k.rnd * g.step - n.back, p.unit,
      CASE WHEN p.ppid IN (SELECT pid FROM w)
        THEN 300 + (p.ppid - 300 + k.rnd * g.pids) % g.pid_span ELSE p.ppid END,
      p.uid, p.gid, p.start_ns + k.rnd * g.step - n.back, p.exec_ns + k.rnd * g.step - n.back,
      p.end_ns + k.rnd * g.step - n.back, p.comm, p.exe, p.argv, p.cgroup_id, p.cpu_ns,
      p.user_ns, p.sys_ns, p.maxrss_kb, p.rchar, p.wchar, p.syscr, p.syscw, p.read_bytes,
      p.write_bytes, p.cancelled_write_bytes, p.minflt, p.majflt, p.nvcsw, p.nivcsw,
      p.threads, p.status, p.flags, p.tool, p.subcommand, p.interpreter, p.tool_excluded,
      p.tool_wrapper, p.ru_maxrss_kb, p.pre_exec_cpu_ns, p.cpu_wait_ns, p.iowait_ns,
      p.offcpu_ns, p.net_rx_bytes, p.net_tx_bytes, p.net_rx_calls, p.net_tx_calls,
      p.stall_start_ns + CASE WHEN p.stall_start_ns > 0 THEN k.rnd * g.step - n.back ELSE 0 END,
      p.stall_ns, p.stall_reason, p.folded, p.parent_start_boot_ns - n.back +
      CASE WHEN p.ppid IN (SELECT pid FROM w) THEN k.rnd * g.step ELSE 0 END, NULL
      FROM k JOIN w p ON p.i = k.i, g, n;
    UPDATE processes SET (end_ns, cpu_ns, user_ns, sys_ns, rchar, wchar, syscr, syscw,
      read_bytes, write_bytes, cancelled_write_bytes, minflt, majflt, nvcsw, nivcsw,
      cpu_wait_ns, iowait_ns, offcpu_ns, net_rx_bytes, net_tx_bytes, net_rx_calls,
      net_tx_calls) = (SELECT r.end_ns - n.back + n.last * g.step, (n.last + 1) * r.cpu_ns,
      (n.last + 1) * r.user_ns, (n.last + 1) * r.sys_ns, (n.last + 1) * r.rchar,
      (n.last + 1) * r.wchar, (n.last + 1) * r.syscr, (n.last + 1) * r.syscw,
      (n.last + 1) * r.read_bytes, (n.last + 1) * r.write_bytes,
      (n.last + 1) * r.cancelled_write_bytes, (n.last + 1) * r.minflt,
      (n.last + 1) * r.majflt, (n.last + 1) * r.nvcsw, (n.last + 1) * r.nivcsw,
      (n.last + 1) * r.cpu_wait_ns, (n.last + 1) * r.iowait_ns, (n.last + 1) * r.offcpu_ns,
      (n.last + 1) * r.net_rx_bytes, (n.last + 1) * r.net_tx_bytes,
      (n.last + 1) * r.net_rx_calls, (n.last + 1) * r.net_tx_calls FROM r, n, g)
      WHERE rowid = (SELECT rid FROM r);
    UPDATE units SET start_ns = start_ns - n.back, root_start_ns = root_start_ns - n.back,
      end_ns = end_ns - n.back + n.last * g.step, sample_rounds = sample_rounds * (n.last + 1),
      stored_bytes = stored_bytes + (SELECT bytes FROM held) - (SELECT bytes FROM b)
      FROM n, g WHERE id=$1;
    COMMIT;"
}
grow_run "$BIG" 100000
start_daemon || { finish; exit 1; }
jobstat -j big -P -n -X -o NProcs > "$T/big.n"
echo "  processes recorded: $(cat "$T/big.n") ($REAL of them real)"
jobstat -j big --processes -P -o JobID > /dev/null 2>&1 # tracerd's store read once: warm
# the target is 2 s in all; what the page costs beyond collect is measured against fetching the
# same processes for --processes (tracerd's 55 MB reply, parsed and decoded); the page also
# fetches the samples and the tool records. Each the best of 3, in turns: a timing taken once on
# a loaded machine says more about the load than about the page.
ms=999999 fetch_ms=999999
for _ in 1 2 3; do
  t0=$(date +%s%N)
  jobstat -j big --html "$T/big.html" 2> "$T/big.err"
  rc=$?
  t=$(( ($(date +%s%N) - t0) / 1000000 ))
  [ $t -lt $ms ] && ms=$t
  [ $rc -eq 0 ] || break
  t0=$(date +%s%N)
  jobstat -j big --processes -P -o JobID > /dev/null 2>&1
  t=$(( ($(date +%s%N) - t0) / 1000000 ))
  [ $t -lt $fetch_ms ] && fetch_ms=$t
done
size=$(stat -c %s "$T/big.html")
echo "  --html of 100 000 processes: $ms ms (target 2000 ms), $size bytes; --processes of the same run: $fetch_ms ms"
check "100k: exit 0" [ $rc -eq 0 ]
check "100k: at least 100 000 processes in the run" [ "$(cat "$T/big.n")" -ge 100000 ]
check "100k: the file is at most 5 MB ($size bytes)" [ "$size" -le $((5 * 1024 * 1024)) ]
check "100k: the page and its samples and tools add at most 1 s to fetching its processes ($ms ms, the fetch $fetch_ms ms)" \
  [ $((ms - fetch_ms)) -le 1000 ]
browse "$T/big.html" "$T/big.dom" "$T/big.png"
check "100k: chromium rendered it, its script ran" grep -q 'data-ready="' "$T/big.dom"
check "100k: the page says what it folded" grep -Eq 'id="gantt-drawn">100[0-9]{3} processes: [0-9]+ drawn one by one .*, [0-9]+ folded per tool' "$T/big.dom"
check "100k: at most 1500 processes drawn" [ "$(grep -o 'class="proc"' "$T/big.html" | wc -l)" -le 1500 ]
mkdir -p "$TOP/build/itest/html"
cp "$T/demo.png" "$T/evil.png" "$T/big.png" "$T/demo.html" "$TOP/build/itest/html/" 2>/dev/null
echo "  screenshots: $TOP/build/itest/html/{demo,evil,big}.png"
finish
