# A hung tracerd costs Slurm's hooks nothing and loses no request: with tracerd stopped
# (SIGSTOP), 40 jobs' prologs and then their epilogs run at once (root, as slurmd runs them).
# The first waits its timeout and notes that tracerd does not answer; the others leave their
# request without the wait. After SIGCONT every request is carried out, though they are many
# more than MaxClients: a full table leaves connections queued in the kernel, not refused.
# lane: daemon cpu: 0.4
. "$(dirname "$0")/lib.sh"
N=40
write_config
echo "MaxClients = 8" >> "$T/tracer.conf"
start_daemon || { finish; exit 1; }
hooks() { # prolog|epilog: N jobs' hooks at once; prints how long they took, in ms
  local t0 i
  t0=$(date +%s%N)
  for i in $(seq $N); do
    SLURM_JOB_ID=$((7000 + i)) SLURM_JOB_UID=0 SLURMD_NODENAME=$NODE "$BUILD/tracer-$1" &
  done
  wait
  echo $((($(date +%s%N) - t0) / 1000000))
}
count() { db -cmd ".timeout 2000" "SELECT COUNT(*) FROM units WHERE job_id BETWEEN 7001 AND $((7000 + N)) ${1:-}"; }

kill -STOP $DAEMON_PID
ms=$(hooks prolog)
check "$N prologs with tracerd stopped took $ms ms in all" [ "$ms" -lt 3000 ]
check "the first noted that tracerd did not answer" [ -e "$T/run/tracerd-$NODE.sock.unanswered" ]
kill -CONT $DAEMON_PID
for _ in $(seq 100); do [ "$(count)" = $N ] && break; sleep 0.1; done
check "after SIGCONT every job's start is recorded ($(count) of $N)" [ "$(count)" = $N ]

kill -STOP $DAEMON_PID
ms=$(hooks epilog)
check "$N epilogs with tracerd stopped took $ms ms in all" [ "$ms" -lt 3000 ]
kill -CONT $DAEMON_PID
for _ in $(seq 100); do [ "$(count "AND state != 'RUNNING'")" = $N ] && break; sleep 0.1; done
check "and every job's end ($(count "AND state != 'RUNNING'") of $N)" [ "$(count "AND state != 'RUNNING'")" = $N ]
check "none was refused" bash -c "! grep -q 'refused' '$T/tracerd.log'"
# the note is kept for 30 s; past them, the next hook waits for the answer again, and once
# answered the note goes
touch -d '-31 seconds' "$T/run/tracerd-$NODE.sock.unanswered"
SLURM_JOB_ID=7999 SLURM_JOB_UID=0 SLURMD_NODENAME=$NODE "$BUILD/tracer-prolog"
check "a hook answered removes the note" [ ! -e "$T/run/tracerd-$NODE.sock.unanswered" ]
finish
