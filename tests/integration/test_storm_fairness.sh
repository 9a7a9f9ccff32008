# One user's exec storms against another user's work. User A runs 8, then 16,
# `tracerctl run -- storm` at once (vfork + exec of /bin/true with two 4000-byte arguments, as
# fast as they go): on this test's daemon, where user B runs 1000 processes with `tracerctl
# run`, then 16 again with a ring of 64K that they fill; and on n1 of the test cluster
# (tests/slurm-docker), where B's Slurm batch job runs 1000 processes. Meanwhile root asks for
# status 50 times, each answered within 100 ms with 8 storms and 250 ms with 16 (250 ms on the
# cluster's node), and B's work is recorded whole with 0 events lost (with the 64K ring, at
# most 1 %): what the ring cannot take is refused to a user who holds at least its free space
# (the storms' user), and the events lost
# are the attacker's. Prints tracerd's CPU and the attacker's own loss. STORM_WHERE=local or
# cluster runs one half only (the cluster's under its lock, held for less time).
# lane: alone
. "$(dirname "$0")/lib.sh"
start_daemon || exit 1
ATTACKER=tracertest
BYSTANDER=tracertest2
STORM=$(prog storm) || { fail "build storm"; finish; exit 1; }
ATK_PY=$(prog attacker.py)
# status within 100 ms with 8 storms and with 16, here and on the cluster's node. With 16 on 2
# CPUs the slowest answers were 17-21 ms here and 26-34 ms on the node, over 3 runs each, once
# tracerd set its nice value on its own session too (autogroup: the cluster's tracerd leads a
# session of its own, where a nice value weighs only within the session; before, single
# probes there took 250-560 ms, the loop runnable but not scheduled). 16 storms are held to
# 250 ms, for the CPU time other work on the machine may take meanwhile.
STATUS_MAX_MS=100
STATUS_MAX_MS_16=${STATUS_MAX_MS_16:-250}
STATUS_MAX_MS_NODE=${STATUS_MAX_MS_NODE:-100}
STATUS_MAX_MS_NODE_16=${STATUS_MAX_MS_NODE_16:-250}
# events the victim may lose: none, but with a ring so small (64K) that one event of its can
# find it full between the attacker's refusals (at most 1 % of its events, some 6 a process)
VICTIM_LOSS_MAX=0
STORM_SECONDS=${STORM_SECONDS:-90} # at most: they stop once the victim's work is done
chmod 755 "$STORM" "$BUILD" "$BUILD/itest"
# the daemon under attack: its node, tracer.conf, socket and pid (this test's to begin with)
ON_NODE=$NODE ON_CONF=$TRACER_CONF ON_SOCK=$T/run/tracerd-$NODE.sock ON_PID=$DAEMON_PID
ON_LOG=$T/tracerd.log
asuser() { local u=$1; shift; setpriv --reuid="$u" --regid="$(id -g "$u")" --clear-groups "$@"; }
onctl() { TRACER_CONF=$ON_CONF "$BUILD/tracerctl" -N "$ON_NODE" "$@"; }
# the daemon's CPU time so far, in clock ticks
cpu_ticks() { awk '{print $14 + $15}' "/proc/$ON_PID/stat"; }
# a number out of a run's summary: summary_n FILE WORD (recorded, lost)
summary_n() { grep -o "[0-9]* $2" "$1" | head -1 | cut -d' ' -f1; }
# the machine's CPU time between two /proc/stat lines, by kind: cpu_shares LINE0 LINE1
cpu_shares() {
  awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x); split(b, y); t = 0
    for (i = 2; i <= n; i++) { d[i] = y[i] - x[i]; t += d[i] }
    printf "user %d%%, system %d%%, idle %d%%, iowait %d%%, steal %d%%", (d[2] + d[3]) * 100 / t,
      (d[4] + d[7] + d[8]) * 100 / t, d[5] * 100 / t, d[6] * 100 / t, d[9] * 100 / t }'
}
# a counter of the daemon's status: status_n NAME (lost, refused)
status_n() { onctl status --json | grep -o "\"$1\": *[0-9]*" | grep -o '[0-9]*$'; }

# B's work: VICTIM short processes, for some 15 s under the storms here (the storms burn both cores
# for as long as B works: 3000 took 90 s, a third of the suite's CPU, and 1000 lost no more often
# than 400: the storms fill the ring in their first seconds)
VICTIM=400
# B's processes, traced with tracerctl run: victim_run TAG OUTDIR (its loss in OUTDIR/blost)
victim_run() {
  asuser $BYSTANDER env TRACER_CONF="$ON_CONF" "$BUILD/tracerctl" -N "$ON_NODE" run \
    --name "victim$1" -- bash -c 'for i in $(seq "$0"); do /bin/true; done' $VICTIM 2> "$2/b.sum"
  sed 's/^/    victim: /' "$2/b.sum"
  check "$1: the victim's run was traced" grep -q "recorded" "$2/b.sum"
  local rec blost
  rec=$(summary_n "$2/b.sum" recorded); blost=$(summary_n "$2/b.sum" "events lost")
  check "$1: the victim's $((VICTIM + 2)) processes recorded (${rec:-none}, at most $VICTIM_LOSS_MAX short)" \
    [ "${rec:-0}" -ge $((VICTIM + 2 - VICTIM_LOSS_MAX)) ]
  check "$1: the victim lost at most $VICTIM_LOSS_MAX events (${blost:-?})" \
    [ "${blost:-99999}" -le "$VICTIM_LOSS_MAX" ]
  echo "${blost:-0}" > "$2/blost"
}

# storms N TAG VICTIM [full]: N storms of A's while VICTIM (a function, as victim_run) runs
storms() {
  local n=$1 tag=$2 victim=$3 i t0 c0 t1 c1 start wall pids=() out=$T/storm$2 worst fails times
  local rec lost alost=0 aruns=0 blost lost0 lost1 refused0 refused1 probe limit cpu0 cpu1 log0
  mkdir -p "$out"; chmod 777 "$out"
  cpu0=$(head -1 /proc/stat); log0=$(wc -l < "$ON_LOG")
  lost0=$(status_n lost); refused0=$(status_n refused)
  t0=$(date +%s%N); c0=$(cpu_ticks)
  for i in $(seq "$n"); do
    asuser $ATTACKER env TRACER_CONF="$ON_CONF" "$BUILD/tracerctl" -N "$ON_NODE" run \
      --name "storm$tag-$i" -- "$STORM" "$STORM_SECONDS" "$out/stop" > "$out/a$i.out" 2> "$out/a$i.sum" &
    pids+=($!)
  done
  sleep 3 # the storms are under way
  PROBE_TIMEOUT=5 /usr/bin/python3 "$ATK_PY" "$ON_SOCK" status_probe 50 "$out/probe" & probe=$!
  start=$(date +%s%N)
  $victim "$tag" "$out"
  blost=$(cat "$out/blost")
  wall=$((($(date +%s%N) - start) / 1000000))
  wait $probe
  touch "$out/stop" # B done: the storms are not needed any longer
  for i in "${pids[@]}"; do wait "$i"; done
  t1=$(date +%s%N); c1=$(cpu_ticks)
  cpu1=$(head -1 /proc/stat)
  lost1=$(status_n lost); refused1=$(status_n refused)
  for i in $(seq "$n"); do
    lost=$(summary_n "$out/a$i.sum" "events lost"); rec=$(summary_n "$out/a$i.sum" recorded)
    alost=$((alost + ${lost:-0})); aruns=$((aruns + ${rec:-0}))
  done
  read -r worst fails times < "$out/probe"
  echo "  $tag: status slowest ${worst} ms ($fails failed); tracerd CPU" \
    "$(( (c1 - c0) * 100 * 1000000000 / $(getconf CLK_TCK) / (t1 - t0) ))%;" \
    "attacker: $aruns processes recorded, $alost events lost; daemon: $((lost1 - lost0)) lost," \
    "$((refused1 - refused0)) refused; the victim's work took ${wall} ms"
  echo "    status answers (ms): $times"
  # figures under storms mean little on a machine busy with more: what it did meanwhile
  echo "    the machine meanwhile: $(cpu_shares "$cpu0" "$cpu1")"
  tail -n +"$((log0 + 1))" "$ON_LOG" | grep "loop turn took" | head -5 | sed 's/^/    /'
  limit=$([ "$n" -le 8 ] && echo $STATUS_MAX_MS || echo $STATUS_MAX_MS_16)
  if [ "$ON_NODE" != "$NODE" ]; then
    limit=$([ "$n" -le 8 ] && echo $STATUS_MAX_MS_NODE || echo $STATUS_MAX_MS_NODE_16)
  fi
  check "$tag: status answered within $limit ms, 50 times (slowest ${worst} ms, $fails failed)" \
    awk -v w="$worst" -v f="$fails" -v m="$limit" 'BEGIN { exit !(w <= m && f == 0) }'
  check "$tag: the events lost are the attacker's, the victim's at most $VICTIM_LOSS_MAX ($alost of $((lost1 - lost0)), the victim's ${blost:-?})" \
    [ "$alost" -ge $((lost1 - lost0 - VICTIM_LOSS_MAX)) ]
  [ "${4:-}" != full ] || check "$tag: the ring was full: the attacker lost $alost events" [ "$alost" -gt 0 ]
}

WHERE=${STORM_WHERE:-both}
if [ "$WHERE" != cluster ]; then
  storms 8 8storms victim_run
  storms 16 16storms victim_run
  # a ring that the storms fill whatever tracerd's pace
  stop_daemon
  echo "RingBufferSize = 64K" >> "$T/tracer.conf"
  start_daemon || { fail "restart with a 64K ring"; finish; exit 1; }
  ON_PID=$DAEMON_PID
  VICTIM_LOSS_MAX=$((VICTIM * 6 / 100)) storms 16 16storms-ring64K victim_run full
fi
[ "$WHERE" = local ] && { finish; exit; }

# On a node of the test cluster: B's Slurm batch job of VICTIM processes, in its batch step.
cluster_up
ON_NODE=$N1 ON_CONF=$TRACER_CONF ON_SOCK=$BASE/run/tracerd-$N1.sock ON_PID=$(cat "$BASE/run/tracerd-$N1.pid")
ON_LOG=$BASE/log/tracerd-$N1.log
ndb() { sqlite3 "$BASE/state/$N1/tracer.db" "$@"; }
victim_job() { # victim_job TAG OUTDIR, as victim_run
  local j b l st
  cat > "$2/job.sh" <<JOB
#!/bin/bash
#SBATCH -n1 --mem=100M -o /dev/null
for i in \$(seq $VICTIM); do /bin/true; done
JOB
  chmod 644 "$2/job.sh"
  j=$(submit $BYSTANDER "-w $N1 $2/job.sh")
  wait_jobs "$j"
  # n1 commits within its CommitInterval, but the storms still run: its last exits may wait
  # behind them in the ring (none is lost), so give them up to 30 s
  for _ in $(seq 150); do
    b=$(ndb "SELECT COUNT(*) FROM processes p JOIN units u ON p.unit=u.id WHERE u.name='$j.batch' AND p.comm='true'")
    l=$(ndb "SELECT COALESCE(SUM(lost_events), -1) FROM units WHERE job_id=$j")
    st=$(ndb "SELECT group_concat(DISTINCT state) FROM units WHERE job_id=$j")
    [ "$b" = $VICTIM ] && [ "$st" = COMPLETED ] && break
    sleep 0.2
  done
  echo "    victim: job $j of $BYSTANDER: $b of $VICTIM true in its batch step, $l events lost, units $st"
  check "$1: the victim's job $j: its $VICTIM processes recorded" [ "$b" = $VICTIM ]
  check "$1: the victim's job $j lost no event, its units COMPLETED" [ "$l" = 0 -a "$st" = COMPLETED ]
  echo "$l" > "$2/blost"
}
storms 8 n1-8storms victim_job
storms 16 n1-16storms victim_job
finish
