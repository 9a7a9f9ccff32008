# Registration in the kernel: a Slurm job whose tracerd does not answer is still recorded whole.
# On n1 of the test cluster, tracerd is stopped (SIGSTOP) while a job runs 100 processes in its
# batch step and a 2-task srun step: the SPANK plugin's requests time out, but it has put each
# task in the pinned registry, so the kernel tracks them from their first exec; once tracerd
# goes on, it links what it recorded under each task's key to the unit the request makes. The
# attacker's side: the registry is root's alone, a user cannot open it, and a PinDir another
# user could have made is refused, with the reason in status.
# lane: cluster cpu: 0.2
. "$(dirname "$0")/lib.sh"
start_daemon || exit 1
ATTACKER=tracertest
id $ATTACKER >/dev/null 2>&1 || ATTACKER=nobody # the kernel matrix's guests have no test users

# -- a private daemon: the registry, and who may reach it
PIN=$(ctl status --json | tr -d '\n' | sed -n 's/.*"kernel_registration": *{[^}]*"path": *"\([^"]*\)".*/\1/p' | sed 's|\\/|/|g')
check "the registry is pinned (${PIN:-none})" [ -n "$PIN" ]
check "its directory is root's, 0700" [ "$(stat -c '%U %a' "$(dirname "$PIN")")" = "root 700" ]
check "a user cannot open it" \
  bash -c "! setpriv --reuid=$ATTACKER --regid=$(id -g $ATTACKER) --clear-groups bpftool map show pinned '$PIN' >/dev/null 2>&1"
stop_daemon
# a PinDir a user made before tracerd: refused, the socket alone, and status says why
PLANTED=/sys/fs/bpf/tracer-planted-$$
mkdir -p "$PLANTED"; chown $ATTACKER "$PLANTED"
sed -i "s|^PinDir = .*|PinDir = $PLANTED|" "$T/tracer.conf"
start_daemon || { fail "start with a planted PinDir"; finish; exit 1; }
ctl status > "$T/status"
check "a PinDir of another user's is refused" grep -q "through the socket alone" "$T/status"
check "status says why" grep -q "$PLANTED.*not permitted" "$T/status"
check "nothing was pinned in it" [ -z "$(ls -A "$PLANTED")" ]
rm -rf "$PLANTED"
stop_daemon

# -- the cluster: a job while its node's tracerd does not answer
if ! command -v sbatch >/dev/null; then
  echo "  skip the Slurm job: no Slurm here (the kernel matrix's guests)"
  finish; exit
fi
cluster_up
PIDF=$BASE/run/tracerd-$N1.pid
ndb() { sqlite3 "$BASE/state/$N1/tracer.db" "$@"; }
cat > "$T/job.sh" <<'JOB'
#!/bin/bash
#SBATCH -n2 --mem=100M -o /dev/null
for i in $(seq 100); do /bin/true; done
srun -n2 bash -c 'for i in $(seq 20); do /bin/true; done'
JOB
chmod 644 "$T/job.sh"
kill -STOP "$(cat "$PIDF")"
j=$(submit tracertest2 "-w $N1 $T/job.sh")
wait_jobs "$j"
kill -CONT "$(cat "$PIDF")"
for _ in $(seq 150); do
  b=$(ndb "SELECT COUNT(*) FROM processes p JOIN units u ON p.unit=u.id WHERE u.name='$j.batch' AND p.comm='true'")
  s=$(ndb "SELECT COUNT(*) FROM processes p JOIN units u ON p.unit=u.id WHERE u.name='$j.0' AND p.comm='true'")
  st=$(ndb "SELECT group_concat(DISTINCT state) FROM units WHERE job_id=$j")
  [ "$b" = 100 ] && [ "$s" = 40 ] && [ "$st" = COMPLETED ] && break
  sleep 0.2
done
echo "  job $j: $b of 100 true in its batch step, $s of 40 in step 0, units $st"
grep "\[$j\." "$BASE/log/slurmd-$N1.log" | grep "tracer:" | sed 's/^/    slurmd: /' | head -4
check "the plugin said the tasks are tracked in the kernel" \
  grep -q "\[$j\.batch\].*tracked in the kernel" "$BASE/log/slurmd-$N1.log"
check "the batch step's 100 processes were recorded ($b)" [ "$b" = 100 ]
check "step 0's 2 tasks' 40 processes were recorded ($s)" [ "$s" = 40 ]
check "every unit of the job ended COMPLETED ($st)" [ "$st" = COMPLETED ]
check "no row is left under a task's key" [ "$(ndb "SELECT COUNT(*) FROM processes WHERE unit < 0")" = 0 ]
check "tracerd said what it linked" grep -q "($j\.[a-z0-9]*): .*tracked from its registration in the kernel" "$BASE/log/tracerd-$N1.log"
# the tasks' ends, sent without a reply to wait for, name their units by key: each ends with its
# task's own status, not only at the epilog
check "step 0's 2 tasks ended by their own exits (status 0)" \
  [ "$(grep -c "($j\.0) ended, status 0" "$BASE/log/tracerd-$N1.log")" = 2 ]
finish
