# What an unprivileged user writes reaches no other user's terminal raw, a name never poses as
# an id, and subordinate uids share their owner's connections. On this test's own daemon:
#  - a user traces a run whose name, pipeline, run and step, program file name (so its comm and
#    tool) and arguments hold terminal escapes (ESC [2J, an OSC title ending in BEL), C1 controls
#    raw and in UTF-8 (CSI, OSC), invalid UTF-8, a bidi override and (in an argument) the
#    directional marks, separators and characters that show as nothing; the program waits on a FIFO
#    long enough to be listed as stalled, then fails. Root's tracerctl status (stalled list, and
#    --json) and every view of tracer-jobstat (default with its notes, -P, -p, --json, --tools,
#    --processes, --tree, --workflow, by id and by name, and on a terminal) are byte-scanned:
#    no byte 0x00-0x08, 0x0b-0x1f or 0x7f, valid UTF-8 with no C1 control (U+0080-U+009F), no
#    bidi control or mark, no line or paragraph separator and nothing that shows as nothing
#    (U+200B-U+200D, U+2060-U+2064, U+FEFF, tags), every --json read by a strict UTF-8 JSON
#    parser, the escapes shown;
#  - runs named like ids (r1, 4242, 4242.batch) are refused, one that only begins with a digit
#    (1000genomes) is not, and a stored run whose name reads as an id does not answer -j for
#    that id;
#  - the user's connections (MaxClientsPerUser = 4) are capped with those of uids in their
#    /etc/subuid range, reached with setpriv and, where newuidmap is installed, from a real user
#    namespace; a uid in no range keeps its own share; a changed file is read again; root's
#    connections count against no uid of a range of root's; a traced run of such a uid is
#    stored as its owner's (owner_uid).
# lane: cluster cpu: 0.2
. "$(dirname "$0")/lib.sh"
write_config
ATTACKER=tracertest
AUID=$(id -u $ATTACKER)
cat >> "$T/tracer.conf" <<CONF
StallAfter = 2s
MaxClientsPerUser = 4
SubUidFile = $T/subuid
CONF
# the user's range as /etc/subuid gives it (newuidmap reads that file, tracerd this copy)
SUB_START=$(awk -F: -v u=$ATTACKER '$1 == u { print $2; exit }' /etc/subuid 2>/dev/null)
SUB_START=${SUB_START:-200000}
echo "$ATTACKER:$SUB_START:65536" > "$T/subuid"
chmod 644 "$T/subuid"
start_daemon || { fail "tracerd started"; finish; exit 1; }
cat > "$T/scan.py" <<'PY'
import json, sys
path = sys.argv[1]
data = open(path, "rb").read()
bad = [f"byte 0x{b:02x} at {i}" for i, b in enumerate(data) if b < 0x20 and b not in (9, 10) or b == 0x7f]
try:
    text = data.decode("utf-8")  # strict: invalid UTF-8, raw C1 bytes among it, raises
except UnicodeDecodeError as e:
    text = None
    bad.append(f"invalid UTF-8 ({e})")
if text is not None:
    hidden = lambda c: (0x80 <= c <= 0x9f or c == 0x61c or 0x200b <= c <= 0x200f or 0x2028 <= c <= 0x202e
                        or 0x2060 <= c <= 0x2064 or 0x2066 <= c <= 0x2069 or c == 0xfeff or 0xe0000 <= c <= 0xe007f)
    bad += [f"U+{ord(c):04X}" for c in text if hidden(ord(c))]
    if path.endswith(".json"):
        try:
            json.loads(text)
        except ValueError as e:
            bad.append(f"not JSON ({e})")
print("; ".join(bad[:4]) + (f" (+{len(bad) - 4} more)" if len(bad) > 4 else ""))
sys.exit(1 if bad else 0)
PY
# scan_outputs PREFIX: every $T/PREFIX.* byte-scanned; says which are not clean (then 1)
scan_outputs() {
  local f v why clean=0 dirty=0 sizes=
  for f in "$T/$1".*; do
    v=${f#"$T/$1".}
    sizes+=" $v $(wc -c < "$f"),"
    if why=$(python3 "$T/scan.py" "$f"); then clean=$((clean + 1)); else
      dirty=$((dirty + 1)); echo "    $v: $why"; fi
  done
  echo "  bytes of each output:${sizes%,}"
  echo "  outputs scanned: $clean clean, $dirty with raw controls, C1, bidi, invisibles or invalid UTF-8"
  [ $dirty = 0 ]
}
n_of() { local v; v=$(cat "$1" 2> /dev/null); echo "${v:-0}"; } # a count from a file, 0 if none
asuid() { local u=$1; shift; setpriv --reuid="$u" --regid="$u" --clear-groups "$@"; }
asattacker() { setpriv --reuid=$ATTACKER --regid="$(id -g $ATTACKER)" --clear-groups "$@"; }
SOCK=$T/run/tracerd-$NODE.sock
ATK_PY=$(prog attacker.py)

# ---- 1. text that acts on a terminal
ESC=$'\x1b[2J\x1b]0;OWNED\x07'
C1=$'\xc2\x9b2J\xc2\x9d0;T\x9b'
BAD=$'\xff\xfe'
BIDI=$'\xe2\x80\xae'
# U+200B, U+2060, U+FEFF, a tag, U+061C, U+200E, U+200F, U+2028, U+2029
HIDDEN=$'al\xe2\x80\x8bice\xe2\x81\xa0\xef\xbb\xbf\xf3\xa0\x80\x81\xd8\x9c\xe2\x80\x8e\xe2\x80\x8f\xe2\x80\xa8\xe2\x80\xa9'
EVIL="x${ESC}${C1}${BAD}${BIDI}txt"
B=$T/bin
mkdir -p "$B"
chmod 755 "$B"
PROG="$B/"$'\x1b[2J\xc2\x9b\xe2\x80\xae\xffw' # its comm and its tool: 10 bytes of it
mkfifo "$T/fifo"
chmod 666 "$T/fifo"
printf '#!/bin/sh\nread go < %s\nexit 3\n' "$T/fifo" > "$PROG"
chmod 755 "$PROG"
asattacker "$BUILD/tracerctl" -N $NODE run --name "$EVIL" --pipeline "$EVIL" --run "$EVIL" \
  --step "$EVIL" -- "$PROG" "$EVIL" "$ESC" "$C1" "$BAD" "$BIDI" "$HIDDEN" 2> "$T/run.err" & rpid=$!
for _ in $(seq 100); do # StallAfter (2 s) and a sample round
  ctl status > "$T/out.status" 2>&1
  grep -q "stalled since" "$T/out.status" && break
  sleep 0.1
done
check "tracerctl status lists the user's stalled process" grep -q "stalled since" "$T/out.status"
ctl status --json > "$T/out.status.json" 2>&1
# on a terminal: the pty's CR taken out
script -qec "$BUILD/tracerctl -N $NODE status" /dev/null > "$T/tty.status.raw" 2>&1
sed -e $'s/\r$//' "$T/tty.status.raw" > "$T/out.tty.status"
check "... on a terminal too" grep -q "stalled since" "$T/out.tty.status"
echo go > "$T/fifo"
wait $rpid
RUN=$(grep -o -- '-j r[0-9]*' "$T/run.err" | grep -o 'r[0-9]*$')
check "the run ended FAILED, as $RUN" [ -n "$RUN" ]
cp "$T/run.err" "$T/out.summary" # tracerctl run's own summary: the user's terminal

views=(default "" P "-P" p "-p" json "--json" tools "--tools" procs "--processes"
  procs.P "--processes -P" procs.json "--processes --json" tree "--tree" tools.json "--tools --json" workflow "--workflow"
  workflow.json "--workflow --json" workflow.P "--workflow -P")
for ((i = 0; i < ${#views[@]}; i += 2)); do
  # shellcheck disable=SC2086
  jobstat -j "$RUN" ${views[i + 1]} > "$T/out.${views[i]}" 2>&1
done
jobstat -j "$EVIL" > "$T/out.byname" 2>&1
jobstat -u $ATTACKER -P > "$T/out.user.P" 2>&1
jobstat -j "$EVIL${ESC}nothing" > "$T/out.notfound" 2>&1
# on a terminal (colours on): tracer-jobstat's own colour codes and the pty's CR taken out
script -qec "$BUILD/tracer-jobstat -N $NODE -j $RUN" /dev/null > "$T/tty.raw" 2>&1
sed -e $'s/\x1b\\[3[12]m//g; s/\x1b\\[0m//g; s/\r$//' "$T/tty.raw" > "$T/out.tty"

check "every output is clean (no C0 but tab and newline, no DEL, no C1, no bidi, no invisibles, valid UTF-8; JSON parses)" scan_outputs out
check "the escapes are shown: the notes header names the run with \\x1b[2J visible" \
  grep -qF "Run $RUN (x\\x1b[2J\\x1b]0;OWNED\\x07\\u009b2J\\u009d0;T\\x9b\\xff\\xfe\\u202etxt), FAILED:" "$T/out.default"
check "... and tracerctl status the stalled process and its unit" \
  grep -qF "(unit ${RUN#r} x\\x1b[2J" "$T/out.status"
check "... and -P the command, with the bidi override as \\u202e" grep -qF '\u202e' "$T/out.procs"
check "... and the characters that show as nothing, the tag as \\U000e0001" \
  grep -qF 'al\u200bice\u2060\ufeff\U000e0001\u061c\u200e\u200f\u2028\u2029' "$T/out.procs.P"
check "... and --json the name, escaped before json-c writes it" \
  python3 -c "import json,sys; d=json.load(open(sys.argv[1], encoding='utf-8')); sys.exit(d['jobs'][0]['JobName'] != 'x\\\\x1b[2J\\\\x1b]0;OWNED\\\\x07\\\\u009b2J\\\\u009d0;T\\\\x9b\\\\xff\\\\xfe\\\\u202etxt')" "$T/out.json"

# ---- 2. names that read as ids
for name in r1 4242 4242.batch 12_3; do
  asattacker "$BUILD/tracerctl" -N $NODE run --name "$name" -- /bin/true > /dev/null 2> "$T/idname.err"
  rc=$?
  check "a run named $name is refused (exit $rc: $(head -c 90 "$T/idname.err"))" \
    grep -q "may not read as an id" "$T/idname.err"
  check "... with exit status 2, the command not run" [ $rc = 2 ]
done
# a name that only begins with a digit is a name, and -j finds it by it
asattacker "$BUILD/tracerctl" -N $NODE run --name 1000genomes -- /bin/true > /dev/null 2> "$T/digitname.err"
check "a run named 1000genomes is taken (exit $?: $(head -c 90 "$T/digitname.err"))" \
  grep -q -- "-j r[0-9]" "$T/digitname.err"
got=$(jobstat -j 1000genomes -P -n -o JobName 2>&1 | paste -sd' ')
check "-j 1000genomes shows it by its name ($got)" [ "$got" = "1000genomes" ]
# ... and tracerd refuses it too, to a client that does not check
asattacker /usr/bin/python3 - "$SOCK" > "$T/idname.raw" <<'PY'
import os, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
pid = os.fork()
if pid == 0:
    s.close(); import time; time.sleep(2); os._exit(0)
s.sendall(b'{"v":1,"op":"run_begin","pid":%d,"name":"r1"}\n' % pid)
print(s.recv(4096).decode())
PY
check "tracerd refuses run_begin named r1 ($(head -c 100 "$T/idname.raw"))" grep -q "may not read as an id" "$T/idname.raw"
# a stored run whose name reads as an id (a store of an earlier version): -j takes the id only
ctl run --name first -- /bin/true 2> /dev/null
asattacker "$BUILD/tracerctl" -N $NODE run --name poser -- /bin/false 2> /dev/null
poser=$(db "SELECT MAX(id) FROM units WHERE name='poser'")
first=$(db "SELECT MAX(id) FROM units WHERE name='first'")
db "UPDATE units SET name='r$first' WHERE id=$poser"
got=$(jobstat -j "r$first" -P -n -o JobID,JobName 2>&1 | paste -sd' ')
check "-j r$first shows run r$first only, not run r$poser named r$first ($got)" [ "$got" = "r$first|first" ]
db "UPDATE units SET name='4242' WHERE id=$poser"
got=$(jobstat -j 4242 -P -n -o JobID,JobName 2>&1 | paste -sd' ')
check "-j 4242 shows no run named 4242 ($got)" grep -q "no job or run '4242'" <<< "$got"

# ---- 3. subordinate uids count as their owner's
check "tracerd read the subordinate uid ranges" grep -q "subordinate uids: 1 ranges from $T/subuid" "$T/tracerd.log"
asattacker /usr/bin/python3 "$ATK_PY" "$SOCK" hold 3 6 > "$T/own.held" & own=$!
sleep 1
asuid $((SUB_START + 1)) /usr/bin/python3 "$ATK_PY" "$SOCK" hold 10 3 > "$T/sub1.held" & s1=$!
asuid $((SUB_START + 2)) /usr/bin/python3 "$ATK_PY" "$SOCK" hold 10 3 > "$T/sub2.held" & s2=$!
asuid 400000 /usr/bin/python3 "$ATK_PY" "$SOCK" hold 10 3 > "$T/other.held" & o=$!
wait $s1 $s2 $o $own
held=$(($(n_of "$T/own.held") + $(n_of "$T/sub1.held") + $(n_of "$T/sub2.held")))
echo "  $ATTACKER held $(cat "$T/own.held"), its subordinate uids $(cat "$T/sub1.held") and $(cat "$T/sub2.held"); uid 400000 (no range) $(cat "$T/other.held")"
check "the user and two of its subordinate uids hold at most MaxClientsPerUser (4) together: $held" [ "$held" -le 4 ]
check "a uid in no range keeps its own share: $(cat "$T/other.held")" [ "$(cat "$T/other.held")" = 4 ]
# and its traced runs: MaxUnitsPerUser, UnitRatePerUser and the store's shares are the owner's
asuid $((SUB_START + 3)) "$BUILD/tracerctl" -N $NODE run --name subrun -- /bin/true > /dev/null 2>&1
got=$(db "SELECT uid || ':' || owner_uid FROM units WHERE name='subrun'")
check "a run of a subordinate uid is counted as its owner's ($got)" [ "$got" = "$((SUB_START + 3)):$AUID" ]
if command -v newuidmap > /dev/null && unshare --help 2>&1 | grep -q -- --map-users; then
  asattacker /usr/bin/python3 "$ATK_PY" "$SOCK" hold 3 5 > "$T/own.held" & own=$!
  sleep 1
  # inside: uid 0 is the first of the range; uids 1 and 2 hold connections
  mkdir -m 777 "$T/ns"
  asattacker unshare --user --map-users="$SUB_START,0,65536" --map-groups="$SUB_START,0,65536" \
    --setuid 0 --setgid 0 \
    sh -c "setpriv --reuid=1 --regid=1 --clear-groups /usr/bin/python3 $ATK_PY $SOCK hold 10 3 > $T/ns/1.held &
           setpriv --reuid=2 --regid=2 --clear-groups /usr/bin/python3 $ATK_PY $SOCK hold 10 3 > $T/ns/2.held; wait" 2> "$T/ns.err"
  wait $own
  held=$(($(n_of "$T/own.held") + $(n_of "$T/ns/1.held") + $(n_of "$T/ns/2.held")))
  echo "  from a user namespace (newuidmap): $ATTACKER held $(cat "$T/own.held"), uids 1 and 2 inside $(cat "$T/ns/1.held" 2> /dev/null) and $(cat "$T/ns/2.held" 2> /dev/null) $(head -c 100 "$T/ns.err")"
  check "a user namespace of the user's does not multiply its connections: $held of 4" [ "$held" -le 4 ]
else
  echo "  (newuidmap or unshare --map-users missing: the user namespace case is skipped)"
fi
# the file changed: read again (a uid of the new range is counted as its owner's at once)
printf '%s\n' "$ATTACKER:500000:10" "root:600000:10" > "$T/subuid.new" && chmod 644 "$T/subuid.new" &&
  mv "$T/subuid.new" "$T/subuid"
sleep 1.2
asattacker /usr/bin/python3 "$ATK_PY" "$SOCK" hold 4 4 > "$T/own.held" & own=$!
sleep 1
asuid 500003 /usr/bin/python3 "$ATK_PY" "$SOCK" hold 10 2 > "$T/new.held"
wait $own
check "a changed subuid file is read again: uid 500003 gets $(cat "$T/new.held") of its owner's 4 in use" [ "$(cat "$T/new.held")" = 0 ]
# root's connections (the SPANK plugin's, prolog's) are counted against no one: not against
# the uids of a range of root's either
/usr/bin/python3 "$ATK_PY" "$SOCK" hold 6 4 > "$T/root.held" & rootp=$!
sleep 1
asuid 600001 /usr/bin/python3 "$ATK_PY" "$SOCK" hold 10 2 > "$T/rootsub.held"
wait $rootp
check "uid 600001 of root's range keeps its MaxClientsPerUser (4) beside root's $(cat "$T/root.held"): $(cat "$T/rootsub.held")" \
  [ "$(cat "$T/rootsub.held")" = 4 ]

# ---- 4. on n1 of the test cluster: the user's Slurm job named so, its steps running programs
# named so with such arguments; root reads it (Slurm's JobName comes from slurmdbd)
stop_daemon
cluster_up
JOBS=$T/jobs
mkdir -p "$JOBS"
chmod 777 "$JOBS"
PROG2="$B/"$'\x1b]0;T\x07\xc2\x9d\xe2\x81\xa6\xfex'
printf '#!/bin/sh\nexit 3\n' > "$PROG2"
chmod 755 "$PROG2"
{
  printf '#!/bin/bash\n#SBATCH -w %s -n1 --mem=50M -t 2 -o /dev/null -J %s\n' "$N1" "$EVIL"
  printf '"%s" "%s" "%s" "%s"\n' "$PROG2" "$EVIL" "$ESC" "$BAD"
  printf 'srun -n1 "%s" "%s" "%s"\n' "$PROG2" "$C1" "$BIDI"
} > "$JOBS/evil.sh"
chmod 644 "$JOBS/evil.sh"
J=$(submit $ATTACKER "$JOBS/evil.sh")
check "the user's job $J ran" wait_jobs "$J"
for _ in $(seq 150); do # slurmdbd has its end and its name
  sacct -n -X -P -j "$J" -o JobName,End 2> /dev/null | grep -q '^x.*|[0-9]' && break
  sleep 0.2
done
sleep 1
views=(default "" P "-P" p "-p" json "--json" procs "--processes" procs.P "--processes -P"
  procs.json "--processes --json" tools "--tools" tools.json "--tools --json" tree "--tree")
for ((i = 0; i < ${#views[@]}; i += 2)); do
  # shellcheck disable=SC2086
  "$BUILD/tracer-jobstat" -j "$J" ${views[i + 1]} > "$T/n1.${views[i]}" 2>&1
done
echo "  job $J as root reads it: $(head -3 "$T/n1.default" | tail -1 | cut -c1-100)"
check "n1: every output of job $J is clean" scan_outputs n1
check "n1: the job's processes are there, their arguments escaped" grep -qF '\u009d0;T\x9b' "$T/n1.procs"
check "n1: Slurm's JobName shows escaped" grep -qF "$J|x\x1b[2J\x1b]0;OWNED\x07" "$T/n1.P"
[ -n "${KEEP_OUT:-}" ] && cp -r "$T" "$KEEP_OUT"
finish
