# An unprivileged user against tracerd's control socket, each attack while root traces a
# command: 500 held connections, 200 MB of newlines, a flood of requests whose replies are
# never read, one 200 MB line, one byte per second, an idle connection, run_end of units
# that are not the user's to end, and planting its pids on root's next processes. Every time root's runs are traced whole (every process in
# its unit), tracerd's peak RSS (VmHWM) stays within 64 MiB and a status request is answered
# within 100 ms.
. "$(dirname "$0")/lib.sh"
ATTACKER=tracer-attacker
if ! id -u $ATTACKER >/dev/null 2>&1; then
  useradd -r -M -d /nonexistent -s /usr/sbin/nologin $ATTACKER || { echo "cannot create user $ATTACKER"; exit 1; }
fi
write_config
cat >> "$T/tracer.conf" <<CONF
ClientIdleTimeout = 4s
ClientRequestTimeout = 3s
SlurmdSpoolDir = $T/spool/%n
CONF
start_daemon || exit 1
SOCK=$T/run/tracerd-$NODE.sock
ATK="/usr/bin/python3 $TOP/tests/integration/progs/attacker.py $SOCK"
HWM_MAX_KB=65536
STATUS_MAX_MS=100
asattacker() { setpriv --reuid=$ATTACKER --regid="$(id -g $ATTACKER)" --clear-groups "$@"; }
hwm_kb() { awk '/^VmHWM/ {print $2}' /proc/$DAEMON_PID/status; }

# root's runs: a long one spanning the attack (sh, 30 true, 30 sleep) and a short one begun
# in the middle of it (sh, 20 true)
LONG='i=0; while [ $i -lt 30 ]; do /bin/true; sleep 0.1; i=$((i+1)); done'
SHORT='/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true;/bin/true; :'
traced_whole() { # traced_whole NAME NPROCS NTRUE
  local u n t
  u=$(db "SELECT id FROM units WHERE name='$1'")
  [ -n "$u" ] || { echo "    no unit $1"; return 1; }
  n=$(db "SELECT COUNT(*) FROM processes WHERE unit=$u")
  t=$(db "SELECT COUNT(*) FROM processes WHERE unit=$u AND exe='/bin/true'")
  [ "$n" = "$2" ] && [ "$t" = "$3" ] && grep -q "$2 recorded" "$T/$1.out" ||
    { echo "    $1: $n processes ($t true), want $2 ($3)"; cat "$T/$1.out"; return 1; }
}

# attack NAME COMMAND...: COMMAND runs as the attacker while root traces its two runs
attack() {
  local name=$1 apid wpid lpid worst fails hwm; shift
  echo 5 > /proc/$DAEMON_PID/clear_refs # VmHWM from here
  python3 $TOP/tests/integration/progs/attacker.py "$SOCK" status_watch "$T/watch" & wpid=$!
  ctl run --name "$name-long" -- /bin/sh -c "$LONG" 2> "$T/$name-long.out" & lpid=$!
  sleep 0.3
  asattacker "$@" > "$T/$name.atk" 2>&1 & apid=$!
  sleep 1
  ctl run --name "$name-short" -- /bin/sh -c "$SHORT" 2> "$T/$name-short.out"
  wait $apid $lpid
  kill -TERM $wpid 2>/dev/null; wait $wpid
  read -r worst fails < "$T/watch"
  hwm=$(hwm_kb)
  echo "  $name: attacker says '$(head -c 200 "$T/$name.atk")'; VmHWM $hwm kB; slowest status ${worst} ms"
  check "$name: root's long run traced whole" traced_whole "$name-long" 61 30
  check "$name: root's run begun during the attack traced whole" traced_whole "$name-short" 21 20
  check "$name: VmHWM $hwm kB <= $HWM_MAX_KB kB" [ "$hwm" -le $HWM_MAX_KB ]
  check "$name: status answered within $STATUS_MAX_MS ms (slowest ${worst} ms, $fails failed)" \
    awk -v w="$worst" -v f="$fails" -v m=$STATUS_MAX_MS 'BEGIN { exit !(w <= m && f == 0) }'
}

# 1. slot exhaustion: 500 connections held
refused_before=$(grep -c "refused" "$T/tracerd.log")
attack held500 $ATK hold 500 3
held=$(cat "$T/held500.atk")
check "held500: the attacker keeps at most MaxClientsPerUser (8) connections, has $held" [ "$held" -le 8 ]
check "held500: refusals are logged at a limited rate" \
  [ $(( $(grep -c "refused" "$T/tracerd.log") - refused_before )) -le 2 ]
# meanwhile another user and root (the SPANK plugin's and prolog's way in) still get in
asattacker $ATK hold 500 3 > /dev/null & apid=$!
sleep 1
setpriv --reuid=nobody --regid=nogroup --clear-groups env TRACER_CONF="$TRACER_CONF" \
  "$BUILD/tracerctl" -N $NODE run --name other-user -- /bin/true 2> "$T/other-user.out"
check "held500: another user can still trace a command" grep -q "1 recorded" "$T/other-user.out"
sleep 30 & victim=$!
slurm_unit=$(ctl register --uid "$(id -u $ATTACKER)" --pid $victim --job-id 4242 --step-id 0 --name 4242.0)
check "held500: root can still register a Slurm task (unit '$slurm_unit')" [ -n "$slurm_unit" ]
wait $apid

# a burst of one user's own runs, three times MaxClientsPerUser at once: all traced (a client
# refused for want of a slot tries again)
pids=()
for i in $(seq 24); do
  setpriv --reuid=nobody --regid=nogroup --clear-groups env TRACER_CONF="$TRACER_CONF" \
    "$BUILD/tracerctl" -N $NODE run --name burst -- /bin/true 2> "$T/burst$i.out" & pids+=($!)
done
wait "${pids[@]}"
check "burst: 24 runs of one user at once are all traced" [ "$(cat "$T"/burst*.out | grep -c "1 recorded")" = 24 ] ||
  for f in $(grep -L "1 recorded" "$T"/burst*.out); do echo "    $f: $(tr '\n' ' ' < "$f")"; done

# 2. unbounded buffering: newlines, unread replies, one endless line
attack newlines $ATK newlines 200 4
attack requests $ATK requests 200 4
attack longline $ATK longline 200

# a listing of 3000 processes asked for on 8 connections and read at 100 bytes per second: the
# daemon holds a page for each, and lets them go when they take none for ClientIdleTimeout
asattacker env TRACER_CONF="$TRACER_CONF" "$BUILD/tracerctl" -N $NODE run --name big -- \
  /bin/sh -c 'i=0; while [ $i -lt 3000 ]; do /bin/true; i=$((i+1)); done' 2> "$T/big.out"
big=$(db "SELECT id FROM units WHERE name='big'")
attack slowlist $ATK slowlist "$big" 8 7
read -r _ let_go < "$T/slowlist.atk"
check "slowlist: readers that took no page in ClientIdleTimeout (4 s) were let go ($let_go of 8)" [ "$let_go" = 8 ]
n=$(asattacker env TRACER_CONF="$TRACER_CONF" "$BUILD/tracer-jobstat" -N $NODE -j "r$big" --processes -n -P | wc -l)
check "slowlist: the listing read at full speed has all 3001 processes ($n)" [ "$n" = 3001 ]

# 3. one byte per second, and silence
attack trickle $ATK trickle 8 8
closes=$(cat "$T/trickle.atk")
check "trickle: every slow request line was cut after ClientRequestTimeout (3 s): $closes" \
  awk -v c="$closes" 'BEGIN { n = split(c, t, " "); for (i = 1; i <= n; i++) if (t[i] < 2.5 || t[i] > 6) exit 1; exit n != 8 }'
idle=$(asattacker $ATK idle 10)
check "idle: a silent connection is let go after ClientIdleTimeout (4 s): $idle" \
  awk -v t="$idle" 'BEGIN { exit !(t >= 3.5 && t <= 7) }'

# 4. authority: run_end of root's run, and of the attacker's own Slurm task
root_unit=$(db "SELECT id FROM units WHERE name='held500-long'")
r=$(asattacker $ATK run_end "$root_unit")
case "$r" in *"not found or not yours"*) ok "run_end of root's unit refused";; *) fail "run_end of root's unit: '$r'";; esac
r=$(asattacker $ATK run_end "$slurm_unit")
case "$r" in *"permission denied"*"Slurm unit"*) ok "run_end of the attacker's own Slurm unit refused";;
             *) fail "run_end of a Slurm unit: '$r'";; esac
check "the Slurm unit is still running" [ "$(db "SELECT state FROM units WHERE id=$slurm_unit")" = RUNNING ]
ctl unregister "$slurm_unit" --status 0
check "root ends it" [ "$(db "SELECT state FROM units WHERE id=$slurm_unit")" = COMPLETED ]
kill $victim 2>/dev/null

# batch scripts: read only as regular files under SlurmdSpoolDir, never through a link, never
# blocking on a FIFO
spool=$T/spool/$NODE
mkdir -p $spool/job00042 $spool/job00043 $spool/job00044 $spool/job00045
printf '#!/bin/sh\nsnakemake --snakefile Snakefile\n' > $spool/job00042/slurm_script
ln -s /etc/shadow $spool/job00043/slurm_script
mkfifo $spool/job00044/slurm_script
register_batch() { # register_batch JOB PATH: as slurmstepd would, with the script's path as argv
  /usr/bin/python3 - "$SOCK" "$1" "$2" "$victim2" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(sys.argv[1])
req = {"v": 1, "op": "register", "uid": 0, "pid": int(sys.argv[4]), "job_id": int(sys.argv[2]),
       "step_id": 0xfffffffb, "argv": [sys.argv[3]]}
s.sendall(json.dumps(req).encode() + b"\n"); print(s.recv(65536).decode().strip())
PY
}
sleep 30 & victim2=$!
for j in 42 43 44; do register_batch $j $spool/job000$j/slurm_script > "$T/batch$j.out"; done
register_batch 45 /etc/passwd > "$T/batch45.out"
register_batch 46 "$spool/../../../etc/passwd" > "$T/batch46.out"
check "batch scripts: every registration answered" \
  bash -c "cat '$T'/batch4[2-6].out | grep -c '\"ok\":true' | grep -qx 5"
check "batch scripts: a regular file in the spool directory is read" \
  bash -c "! grep -q 'job 42: batch script not read' '$T/tracerd.log'"
check "batch scripts: a symbolic link is not followed" grep -q "job 43: batch script not read: Too many levels" "$T/tracerd.log"
check "batch scripts: a FIFO is not read (and blocks nothing)" grep -q "job 44: batch script not read: Invalid argument" "$T/tracerd.log"
check "batch scripts: a path outside the spool directory is not read" grep -q "job 45: batch script not read: Operation not permitted" "$T/tracerd.log"
check "batch scripts: nor one that climbs out of it" grep -q "job 46: batch script not read: Operation not permitted" "$T/tracerd.log"
kill $victim2 2>/dev/null

# files: the store is the daemon's alone, the socket everyone's
check "the store's files are 0600" \
  [ "$(stat -c %a "$T/state/$NODE/tracer.db" "$T/state/$NODE/tracer.db-wal" | sort -u)" = 600 ]
check "the socket is 0666" [ "$(stat -c %a "$SOCK")" = 666 ]
t0=$(date +%s%N); ctl status > /dev/null; t1=$(date +%s%N)
check "tracerctl status at the end answered in $(( (t1 - t0) / 1000000 )) ms" [ $(( (t1 - t0) / 1000000 )) -le 100 ]
check "the daemon is still running" kill -0 $DAEMON_PID

# 5. PID planting: the attacker registers its zombie children, then the pids go to root's next
# processes (pid_max lowered so that pids come round again, and ns_last_pid aimed at them);
# none of root's processes may turn up in a unit of the attacker's
old_pid_max=$(cat /proc/sys/kernel/pid_max)
trap 'echo "$old_pid_max" > /proc/sys/kernel/pid_max; stop_daemon; rm -rf "$T"' EXIT INT TERM
echo $(( $(ls /proc | grep -c '^[0-9]') + 8192 )) > /proc/sys/kernel/pid_max
asattacker $ATK zombies 20 > "$T/zombies.out" 2>&1
while read -r pid verdict; do
  echo $((pid - 1)) > /proc/sys/kernel/ns_last_pid
  /bin/echo "root's process $pid" > /dev/null
done < "$T/zombies.out"
echo "$old_pid_max" > /proc/sys/kernel/pid_max
trap 'stop_daemon; rm -rf "$T"' INT TERM
trap - EXIT
check "planting: every zombie's registration is refused ($(grep -c refused "$T/zombies.out") of 20)" \
  [ "$(grep -c refused "$T/zombies.out")" -eq 20 ]
check "planting: none of root's processes that got those pids is in a unit of the attacker's" \
  [ "$(db "SELECT COUNT(*) FROM processes p JOIN units u ON p.unit = u.id WHERE u.uid = $(id -u $ATTACKER) AND p.exe = '/bin/echo'")" -eq 0 ]
check "planting: no unit was made of a zombie" [ "$(db "SELECT COUNT(*) FROM units WHERE name LIKE 'plant%'")" -eq 0 ]
check "planting: pid_max is restored" [ "$(cat /proc/sys/kernel/pid_max)" = "$old_pid_max" ]

# out of open files (a LimitNOFILE below what MaxClients needs): connections beyond it are
# let go, the loop does not spin, and the daemon serves again once they are gone
stop_daemon
chmod 644 "$T/state/$NODE/tracer.db"; chmod 777 "$T/state/$NODE"
echo "MaxClientsPerUser = 100" >> "$T/tracer.conf"
prlimit --nofile=48:48 "$BUILD/tracerd" -f -N $NODE -c "$T/tracer.conf" >> "$T/tracerd.log" 2>&1 &
DAEMON_PID=$!
for _ in $(seq 50); do ctl status > /dev/null 2>&1 && break; sleep 0.1; done
check "a restart puts the store's mode right again (0600, its directory 0750)" \
  [ "$(stat -c %a "$T/state/$NODE/tracer.db") $(stat -c %a "$T/state/$NODE")" = "600 750" ]
asattacker $ATK hold 60 3 > /dev/null & apid=$!
sleep 2
cpu=$(ps -o %cpu= -p $DAEMON_PID | cut -d. -f1)
check "out of files: tracerd does not spin (${cpu}% CPU)" [ "${cpu:-100}" -lt 20 ]
check "out of files: it says so, once" [ "$(grep -c "out of open files" "$T/tracerd.log")" = 1 ]
wait $apid
status_ok() { ctl status > /dev/null; }
check "out of files: status is answered again once the connections are gone" status_ok
finish
