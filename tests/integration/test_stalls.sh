# Stalls on one machine (StallAfter = 3s, sampled every 500 ms): a FIFO reader waiting 6 s is
# stalled; a shell running a short command every 1.5 s is not, though it is seldom sampled with
# a live child and its own CPU moves a clock tick in 10 s or so: the CPU of the children it
# waited for is its progress.
# lane: daemon cpu: 0.1
. "$(dirname "$0")/lib.sh"
write_config
sed -i 's/^SampleInterval = .*/SampleInterval = 500ms/' "$T/tracer.conf"
echo "StallAfter = 3s" >> "$T/tracer.conf"
start_daemon || exit 1
BURN=$(prog cpuburn) || { fail "build cpuburn"; finish; exit 1; }
mkfifo "$T/fifo" "$T/hold"

ctl run --name reader -- bash -c "(sleep 6; echo go > '$T/fifo') & cat '$T/fifo' > /dev/null; wait" \
  2> /dev/null &
READER=$!
# read -t on a FIFO opened for reading and writing: a wait that is no child
ctl run --name loop -- bash -c "for i in \$(seq 10); do '$BURN' 0.1; read -t 1.4 <> '$T/hold' || :; done" \
  2> /dev/null
wait $READER
stall() { # stall UNIT COMM: the longest stall of COMM's row, in ns (0: none)
  db "SELECT COALESCE(MAX(stall_ns), 0) FROM processes WHERE comm='$2' AND unit=(SELECT id FROM units WHERE name='$1')"
}
cat_ns=$(stall reader cat) bash_ns=$(stall loop bash) runs=$(db "SELECT COUNT(*) FROM processes WHERE comm='cpuburn' AND unit=(SELECT id FROM units WHERE name='loop')")
echo "  reader's cat stalled ${cat_ns} ns; the loop's bash ${bash_ns} ns over its $runs commands"
check "a FIFO reader waiting 6 s is stalled (at least StallAfter)" [ "${cat_ns:-0}" -ge 3000000000 ]
check "a shell running 10 short commands, one every 1.5 s, is not stalled" \
  [ "${bash_ns:-1}" = 0 -a "${runs:-0}" = 10 ]
finish
