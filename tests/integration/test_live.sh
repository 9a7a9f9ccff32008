# tracer-jobstat --live in a real terminal (tmux, 160x50) against a real tracerd and a traced
# run (tracerctl run):
#   the run shows, a tool started later shows within 2 refreshes of its start, a process
#   blocked on a FIFO past StallAfter is flagged stalled;
#   a process whose argv[0] carries terminal escapes (OSC title, clear screen) shows them
#   escaped, and the pane's title stays as it was (a raw printf of the same bytes changes it:
#   the check can fail);
#   a run that only sleeps is flagged idle, the busy one is not;
#   keys: s cycles the sort, / filters, - folds, p pauses, ? shows the help;
#   a resize redraws to the new width; q, and SIGTERM, leave the alternate screen with the
#   terminal's modes as they were;
#   stdout no terminal: one snapshot (table, -P, --json that parses) and exit 0.
# The screen is saved to docs/live-screen.txt for the README when TRACER_LIVE_SCREEN_OUT names
# the file.
# lane: daemon cpu: 0.2
. "$(dirname "$0")/lib.sh"
command -v tmux > /dev/null || { fail "tmux is not installed (scripts/install-deps)"; finish; exit 1; }
write_config
echo "StallAfter = 2s" >> "$T/tracer.conf"
start_daemon || exit 1
S=tracer-live-$$
REFRESH=1
RUN_PID=
IDLE_PID=
cleanup() {
  tmux kill-session -t $S 2>/dev/null
  [ -z "$RUN_PID" ] || kill -- -$RUN_PID 2>/dev/null
  [ -z "$IDLE_PID" ] || kill -- -$IDLE_PID 2>/dev/null
  stop_daemon
  rm -rf "$T" "$PINS"
}
trap cleanup EXIT INT TERM

cp /bin/sleep "$T/latecomer"
mkfifo "$T/fifo"
# the run: a FIFO reader that stalls, a busy loop, a hostile argv[0], and 'latecomer' started
# 5 s in (its start stamped in a file)
cat > "$T/work.sh" <<EOF
#!/bin/bash
cat $T/fifo > /dev/null &
bash -c 'exec -a \$'"'"'\\e]0;OWNED\\a\\e[2Jevil'"'"' sleep 40' &
(while :; do :; done) &
busy=\$!
sleep 5
date +%s.%N > $T/late.start
$T/latecomer 30 &
sleep 25
kill \$busy
echo done 1<> $T/fifo
wait
EOF
chmod 755 "$T/work.sh"
# in a process group of its own, ended with the test
setsid "$BUILD/tracerctl" -N $NODE run --name livetest -- "$T/work.sh" > /dev/null 2>&1 &
RUN_PID=$!
# a run that only sleeps: idle
setsid "$BUILD/tracerctl" -N $NODE run --name liveidle -- sleep 120 > /dev/null 2>&1 &
IDLE_PID=$!

pane() { tmux capture-pane -p -t $S; }
until_pane() { # until_pane SECONDS PATTERN: the pane shows PATTERN (grep -E) within SECONDS
  local end=$(($(date +%s%N) + $1 * 1000000000))
  while [ "$(date +%s%N)" -lt $end ]; do
    pane | grep -qE -- "$2" && return 0
    sleep 0.1
  done
  return 1
}

tmux new-session -d -s $S -x 160 -y 50 "env -i PATH=$PATH TERM=xterm-256color PS1='live\$ ' bash --norc --noprofile"
until_pane 5 'live\$' || fail "the shell in tmux did not start"
# a positive control: raw OSC 0 does set the pane's title in this tmux
tmux send-keys -t $S "printf '\\033]0;PROBE\\007'; clear" Enter
sleep 0.5
control_title=$(tmux display -p -t $S '#{pane_title}')
tmux send-keys -t $S "printf '\\033]0;before\\007'; stty -g > $T/stty.before; clear" Enter
sleep 0.5
tmux send-keys -t $S "TRACER_CONF=$TRACER_CONF $BUILD/tracer-jobstat -N $NODE --live --refresh=${REFRESH}s -j livetest 2> $T/live.err" Enter

check "the live view shows the run" until_pane 10 'r[0-9]+ livetest'
check "the alternate screen is on while it runs" [ "$(tmux display -p -t $S '#{alternate_on}')" = 1 ]
check "the status line says how long a refresh took" until_pane 3 'refresh took [0-9]+ ms'

# latecomer: within 2 refreshes of its start
for _ in $(seq 100); do [ -s "$T/late.start" ] && break; sleep 0.1; done
seen=
end=$(($(date +%s%N) + 6000000000))
while [ "$(date +%s%N)" -lt $end ]; do
  if pane | grep -q 'latecomer'; then seen=$(date +%s.%N); break; fi
  sleep 0.05
done
if [ -n "$seen" ]; then
  after=$(awk -v a="$(cat "$T/late.start")" -v b="$seen" 'BEGIN { printf "%.2f", b - a }')
  echo "  latecomer on the screen ${after} s after its start (refresh ${REFRESH} s)"
  check "a tool started later shows within 2 refreshes of its start" \
    awk -v d="$after" -v r=$REFRESH 'BEGIN { exit !(d <= 2 * r) }'
else
  fail "a tool started later shows within 2 refreshes of its start (never seen)"
fi

check "the FIFO reader is flagged stalled" until_pane 10 'cat .*STALLED .*stalled [0-9]+s'
check "the hostile argv[0] shows escaped" until_pane 5 '\\x1b\]0;OWNED\\x07\\x1b\[2Jevil'
title=$(tmux display -p -t $S '#{pane_title}')
if [ "$control_title" = PROBE ]; then
  check "the pane's title is not changed by the process name (it is '$title')" [ "$title" = before ]
else
  echo "  (this tmux does not take OSC 0 titles: '$control_title'; the title check says nothing)"
fi
check "no raw escape reached the pane (the screen was not cleared by it)" until_pane 2 'Name .*State'

# keys
tmux send-keys -t $S s
check "s cycles the sort (CPU)" until_pane 3 'sort: CPU'
tmux send-keys -t $S s s s s # back to start
tmux send-keys -t $S /
tmux send-keys -t $S -l latecomer
tmux send-keys -t $S Enter
check "/ filters the rows (the filter shows)" until_pane 3 'filter: latecomer'
sleep 1.5
check "the filter keeps latecomer and its ancestors, not the other tools" \
  bash -c "tmux capture-pane -p -t $S | grep -q latecomer && ! tmux capture-pane -p -t $S | grep -q ' yes\| cat '"
tmux send-keys -t $S /
tmux send-keys -t $S Escape
sleep 1.5
check "Esc at the filter prompt clears it" bash -c "! tmux capture-pane -p -t $S | grep -q 'filter: latecomer'"
tmux send-keys -t $S p
check "p pauses" until_pane 3 'PAUSED'
tmux send-keys -t $S p
tmux send-keys -t $S '?'
check "? shows the help" until_pane 3 'open or fold the selected row'
tmux send-keys -t $S x
sleep 0.5
# the selection is on the run's row (the first): - folds it to one row
tmux send-keys -t $S Home -
sleep 1.5
check "- folds the selected row" bash -c "tmux capture-pane -p -t $S | grep -q '^+ r[0-9]* livetest' && ! tmux capture-pane -p -t $S | grep -q latecomer"
tmux send-keys -t $S +
check "+ opens it again" until_pane 3 'latecomer'

# the screen for the README: sorted by start again, the selection moved off the first row
tmux send-keys -t $S j j
sleep 2
pane > "$T/screen.txt"
[ -z "${TRACER_LIVE_SCREEN_OUT:-}" ] || cp "$T/screen.txt" "$TRACER_LIVE_SCREEN_OUT"

# resize
tmux resize-window -t $S -x 100 -y 40
sleep 2
check "after a resize no line is wider than the pane" bash -c "tmux capture-pane -p -t $S | awk '{ if (length(\$0) > 100) bad = 1 } END { exit bad }'"
check "after a resize the view is drawn again" until_pane 3 'Name .*State'

tmux send-keys -t $S q
sleep 1
check "q leaves the alternate screen" [ "$(tmux display -p -t $S '#{alternate_on}')" = 0 ]
tmux send-keys -t $S "stty -g > $T/stty.after; echo SHELL-IS-BACK" Enter
check "the shell is back after q" until_pane 3 '^SHELL-IS-BACK'
check "the terminal's modes are as before" cmp -s "$T/stty.before" "$T/stty.after"
check "nothing on stderr" [ ! -s "$T/live.err" ]

# SIGTERM: restored as well (the view in the foreground, the signal from outside)
tmux send-keys -t $S "clear; TRACER_CONF=$TRACER_CONF $BUILD/tracer-jobstat -N $NODE --live -j livetest 2> $T/live.err; echo rc=\$?; stty -g > $T/stty.term" Enter
until_pane 10 'r[0-9]+ livetest' || fail "the view did not start again"
LP=$(ps -o pid= --ppid "$(tmux display -p -t $S '#{pane_pid}')" | tr -d ' ')
[ -n "$LP" ] && kill -TERM "$LP"
check "SIGTERM ends the view with status 0" until_pane 10 '^rc=0'
check "SIGTERM leaves the alternate screen" [ "$(tmux display -p -t $S '#{alternate_on}')" = 0 ]
check "SIGTERM restores the terminal's modes" cmp -s "$T/stty.before" "$T/stty.term"

# not a terminal: one snapshot
out=$(timeout 20 "$BUILD/tracer-jobstat" -N $NODE --live -j livetest | cat; echo "rc=${PIPESTATUS[0]}")
check "piped, --live prints one snapshot and exits 0" grep -q '^rc=0' <<< "$out"
check "the snapshot has the run, its tools and the stall" \
  bash -c 'grep -qE "r[0-9]+ livetest" <<< "$1" && grep -q latecomer <<< "$1" && grep -q "stalled" <<< "$1"' _ "$out"
check "the snapshot escapes the hostile name" grep -qF '\x1b]0;OWNED\x07' <<< "$out"
check "the snapshot holds no ESC byte" bash -c '! grep -q $'"'"'\x1b'"'"' <<< "$1"' _ "$out"
parsable=$("$BUILD/tracer-jobstat" -N $NODE --live -j livetest -P)
check "-P: a header and '|' between fields" bash -c 'head -1 <<< "$1" | grep -q "^Level|Name|State|CPU%" && grep -q "^process|.*latecomer" <<< "$1"' _ "$parsable"
"$BUILD/tracer-jobstat" -N $NODE --live -j livetest --json > "$T/live.json"
check "--json parses, with the stalled process and its reason" python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert any(r["level"] == "job" and r["running"] for r in rows)
assert any(r["level"] == "process" and "stall_reason" in r and r.get("stalled_s", 0) >= 2 for r in rows)
assert any(r["level"] == "tool" and r["name"] == "latecomer" for r in rows)
' "$T/live.json"

idle=$("$BUILD/tracer-jobstat" -N $NODE --live -j liveidle -P)
check "a run whose processes only sleep is flagged idle" grep -qE "^job\|r[0-9]+ liveidle\|RUNNING\|.*idle [0-9]+s" <<< "$idle"
check "the busy run is not" bash -c '! grep -qE "^job\|r[0-9]+ livetest\|.*idle [0-9]+s" <<< "$1"' _ "$parsable"

tmux kill-session -t $S 2>/dev/null
kill -- -$RUN_PID -$IDLE_PID 2>/dev/null
RUN_PID= IDLE_PID=
finish
