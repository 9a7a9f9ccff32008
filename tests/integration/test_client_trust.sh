#!/usr/bin/env bash
# Root's clients (the SPANK plugin in slurmstepd, tracer-prolog, tracer-epilog) talk only to a
# tracerd no other user could fake: a fake server on a user-owned socket path, in a root-owned
# but world-writable directory, under a user-owned ancestor, or a server that is not root, gets
# no request; a reply without end is cut at 64 KiB with the client's memory flat; a step whose
# arguments exceed the request limit is registered with them cut. The plugin runs in
# progs/spank_host.c, which plays slurmstepd; the prolog and epilog are run as Slurm runs them.
# lane: daemon cpu: 0.3
. "$(dirname "$0")/lib.sh"

ATTACKER=tracer-attacker
id $ATTACKER >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin $ATTACKER
asattacker() { setpriv --reuid=$ATTACKER --regid="$(id -g $ATTACKER)" --clear-groups "$@"; }

# built by make itest (it needs -rdynamic: the plugin finds Slurm's symbols in it), or here
HOST=$BUILD/itest/spank_host
[ "$HOST" -nt "$TOP/tests/integration/progs/spank_host.c" ] ||
  gcc -O1 -g -Wall -Wextra -rdynamic -o "$HOST" "$TOP/tests/integration/progs/spank_host.c" || exit 1
FAKE="/usr/bin/python3 $(prog fake_tracerd.py)"
PLUGIN=$BUILD/spank_tracer.so

sleep 300 & TASK=$!   # the task the plugin registers
sleep 300 & TASK2=$!  # a second task of the same step
FAKES=()
cleanup() { kill $TASK $TASK2 "${FAKES[@]}" 2>/dev/null; wait $TASK $TASK2 "${FAKES[@]}" 2>/dev/null; }
trap 'cleanup; stop_daemon; rm -rf "$T"; exit 1' INT TERM PIPE

# fake DIR MODE [DROP_TO]: a fake tracerd on DIR/tracerd-n1.sock (as the owner of DIR), log DIR.log
fake() {
  local dir=$1 mode=$2 drop=${3:-} as=()
  : > "$dir.log"; chmod 666 "$dir.log"
  [ "$(stat -c %u "$dir")" = 0 ] || as=(setpriv --reuid=$ATTACKER --regid="$(id -g $ATTACKER)" --clear-groups)
  "${as[@]}" $FAKE "$dir/tracerd-n1.sock" "$mode" "$dir.log" $drop 2>>"$T/fake.err" &
  FAKES+=($!)
  for _ in $(seq 50); do grep -q listening "$dir.log" && return 0; sleep 0.1; done
  echo "fake server in $dir did not start"; cat "$T/fake.err"; return 1
}

# plugin DIR OUTFILE: the plugin's exchange for one task with the tracerd at DIR
plugin() { "$HOST" "$PLUGIN" $TASK socket="$1/tracerd-n1.sock" timeout_ms=2000 > "$2" 2>&1; }
# prolog DIR OUTFILE [epilog]: tracer-prolog (or -epilog) with Slurm's environment, SocketDir=DIR
prolog() {
  printf 'SocketDir = %s\nStateDir = %s/state\nNodeName = n1\n' "$1" "$T" > "$1.conf"
  env -i PATH="$PATH" TRACER_CONF="$1.conf" SLURMD_NODENAME=n1 SLURM_JOB_ID=4242 SLURM_JOB_UID=0 \
    SLURM_JOB_NAME=trust "$BUILD/tracer-${3:-prolog}" > "$2" 2>&1
}
refused() { # refused DIR WHAT...: the plugin and prolog refuse DIR, their line says WHAT; no request
  local dir=$1; shift
  plugin "$dir" "$dir.plugin"; prolog "$dir" "$dir.prolog"
  check "plugin: $*" grep -q "^info: tracer: job runs untraced: socket .* not trusted: .*$*" "$dir.plugin"
  check "plugin's line names the socket" grep -q "socket $dir/tracerd-n1.sock not trusted" "$dir.plugin"
  check "prolog: $*" grep -q "not trusted: .*$*" "$dir.prolog"
  check "nothing was sent to the server" bash -c "! grep -q '^request' '$dir.log'"
}

echo "-- a fake server on a user-owned socket path"
mkdir "$T/user"; chown $ATTACKER "$T/user"; chmod 755 "$T/user"
fake "$T/user" ok
refused "$T/user" "directory $T/user is owned by uid $(id -u $ATTACKER), not root"
check "the plugin did not even connect" bash -c "! grep -q accepted '$T/user.log'"
check "the job is not failed" grep -q '^hwm_kb' "$T/user.plugin"
"$HOST" "$PLUGIN" $TASK conf="$T/user.conf" > "$T/user.plugin2" 2>&1
check "the same path from tracer.conf (conf=) is refused" \
  grep -q "^info: tracer: job runs untraced: socket $T/user/tracerd-n1.sock not trusted" "$T/user.plugin2"
check "nothing was sent to the server" bash -c "! grep -q accepted '$T/user.log'"

echo "-- a root-owned directory under a user-owned one"
mkdir -p "$T/user2/inner"; chown $ATTACKER "$T/user2"; chmod 755 "$T/user2" "$T/user2/inner"
fake "$T/user2/inner" ok
refused "$T/user2/inner" "directory $T/user2 is owned by uid $(id -u $ATTACKER), not root"

echo "-- a root-owned but world-writable directory (sticky or not)"
mkdir "$T/ww" "$T/sticky"; chmod 777 "$T/ww"; chmod 1777 "$T/sticky"
fake "$T/ww" ok
refused "$T/ww" "directory $T/ww is writable by all users"
fake "$T/sticky" ok
refused "$T/sticky" "directory $T/sticky is writable by all users"

echo "-- a proper directory, but a server that is not root (SO_PEERCRED)"
mkdir "$T/peer"; chmod 755 "$T/peer"
fake "$T/peer" ok $ATTACKER
refused "$T/peer" "its server (pid [0-9]*) runs as uid $(id -u $ATTACKER), not root"

echo "-- the socket must be a socket"
mkdir "$T/notsock"; chmod 755 "$T/notsock"; : > "$T/notsock.log"; mkfifo "$T/notsock/tracerd-n1.sock"
refused "$T/notsock" "$T/notsock/tracerd-n1.sock is not a socket"

echo "-- a root server in a proper directory: registered, arguments cut to fit"
mkdir "$T/good"; chmod 755 "$T/good"
fake "$T/good" ok
plugin "$T/good" "$T/good.plugin"
check "plugin registers and ends the task" bash -c "[ \$(grep -c '^request' '$T/good.log') = 2 ] && ! grep -q info: '$T/good.plugin'"
check "a small step's arguments are not marked cut" grep -q 'argv_cut=False nargs=1' "$T/good.log"
: > "$T/good.log"
SPANK_HOST_ARGV=100:2000 plugin "$T/good" "$T/good.plugin"
read -r len cut < <(awk '/^request/ { sub("argv_cut=", "", $3); print $2, $3; exit }' "$T/good.log")
check "200 kB of arguments: one request of at most 65536 bytes ($len)" test "${len:-99999}" -le 65536 -a "${len:-0}" -gt 60000
check "… marked as cut" test "$cut" = True
check "… and registered" bash -c "! grep -q info: '$T/good.plugin'"
prolog "$T/good" "$T/good.prolog"
check "prolog is answered, says nothing" bash -c "grep -q '^request' '$T/good.log' && [ ! -s '$T/good.prolog' ]"

echo "-- a root server whose reply has no end"
mkdir "$T/endless"; chmod 755 "$T/endless"
fake "$T/endless" endless
plugin "$T/endless" "$T/endless.plugin"
check "plugin: the reply is cut at 64 KiB" grep -q "not reachable.*reply longer than 65536 bytes" "$T/endless.plugin"
hwm=$(awk '/^hwm_kb/ { print $2 }' "$T/endless.plugin")
check "plugin's peak RSS stays small (${hwm:-?} kB)" test "${hwm:-999999}" -lt 16384
t0=$(date +%s%N)
prolog "$T/endless" "$T/endless.prolog" epilog
check "epilog: the reply is cut at 64 KiB" grep -q "reply longer than 65536 bytes" "$T/endless.prolog"
check "epilog gives up at once" test $(( ($(date +%s%N) - t0) / 1000000 )) -lt 1000

echo "-- the real tracerd"
start_daemon || { cleanup; finish; exit 1; }
SOCKDIR=$T/run
"$HOST" "$PLUGIN" $TASK socket="$SOCKDIR/tracerd-$NODE.sock" > "$T/real.plugin" 2>&1
check "plugin registers a task with tracerd" grep -q "registered: job 4242 step 0 task 0 pid $TASK" "$T/tracerd.log"
check "… and says nothing" bash -c "! grep -q info: '$T/real.plugin'"
SPANK_HOST_JOB=4243 SPANK_HOST_ARGV=100:2000 "$HOST" "$PLUGIN" $TASK socket="$SOCKDIR/tracerd-$NODE.sock" \
  > "$T/real2.plugin" 2>&1
check "a step with 200 kB of arguments is registered" grep -q "registered: job 4243 step 0" "$T/tracerd.log"
printf 'SocketDir = %s\nNodeName = %s\n' "$SOCKDIR" "$NODE" > "$T/plugin.conf"
SPANK_HOST_JOB=4245 SPANK_HOST_BETWEEN="rm $T/plugin.conf" "$HOST" "$PLUGIN" $TASK,$TASK2 conf="$T/plugin.conf" \
  > "$T/real3.plugin" 2>&1
check "tracer.conf is read once per step: both tasks registered, the file gone after the first" \
  bash -c "grep -q 'registered: job 4245 step 0 task 0' '$T/tracerd.log' &&
           grep -q 'registered: job 4245 step 0 task 1' '$T/tracerd.log'"
check "… both ended" test "$(grep -c '(4245\.0) ended' "$T/tracerd.log")" = 2
check "… and the plugin said nothing" bash -c "! grep -v '^hwm_kb' '$T/real3.plugin' | grep -q ."
env -i PATH="$PATH" TRACER_CONF="$T/tracer.conf" SLURMD_NODENAME=$NODE SLURM_JOB_ID=4244 SLURM_JOB_UID=0 \
  "$BUILD/tracer-prolog" > "$T/real.prolog" 2>&1
env -i PATH="$PATH" TRACER_CONF="$T/tracer.conf" SLURMD_NODENAME=$NODE SLURM_JOB_ID=4244 SLURM_JOB_UID=0 \
  "$BUILD/tracer-epilog" >> "$T/real.prolog" 2>&1
check "prolog and epilog are answered" bash -c "[ ! -s '$T/real.prolog' ] && grep -q 'job 4244 ended' '$T/tracerd.log'"

cleanup
finish
