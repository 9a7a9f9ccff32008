# tracer-jobstat --html: one self-contained page of a run, rendered by a real browser (Chromium,
# headless) after its script ran. A small workflow of several tools under `tracerctl run`: CPU
# (cpuburn), memory (alloc), writes (dd), a process that fails (ls), one the OOM killer stops
# (alloc in a 40 MiB memory cgroup) and one that stalls (cat on a FIFO for 6 s); a second run of
# the same workflow run makes --run a report across runs. Hostile names (a command line that
# closes the script element, an <img onerror>, a run and a pipeline named in markup) show as
# text and run nothing. A run of 100 000 processes is written into at most 5 MB,
# its processes drawn or folded as the page says (the time is printed; what the page adds to
# fetching the processes is asserted). A file that cannot be written is an error,
# and no partial file is left.
# lane: daemon cpu: 1
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

# 100 000 processes: written in at most 2 s, at most 5 MB, drawn or folded as the page says
STORM=$BUILD/itest/execstorm
gcc -O2 -o "$STORM" "$TOP/bench/execstorm.c" || fail "build execstorm"
ctl run --name big -- "$STORM" 100000 > /dev/null 2> "$T/big.out"
sleep 2
jobstat -j big -P -n -X -o NProcs > "$T/big.n"
echo "  processes recorded: $(cat "$T/big.n")"
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
