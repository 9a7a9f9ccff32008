# What run-all knows of each test file: its lane, the nodes it holds, and what a test may leave
# on the machine. Sourced by run-all.

# the test cluster's nodes: as many as the cluster tests hold when they all run at once
CLUSTER_NODES=${TRACER_IT_CLUSTER_NODES:-8}

# lane_of TEST: daemon, cluster or alone, from its `# lane:` line (daemon when it has none)
lane_of() {
  local l
  l=$(sed -n 's/^# lane: *\([a-z]*\).*/\1/p' "$1" | head -1)
  case $l in cluster | alone) echo "$l" ;; *) echo daemon ;; esac
}
# uses_cluster TEST: it brings the test cluster up (a cluster test, or one alone that uses it)
uses_cluster() { grep -qE '^[^#]*(cluster_up|cluster_export)' "$1"; }
# nodes_of TEST: how many of the cluster's nodes a cluster test holds (`nodes: K`, 1 by default)
nodes_of() {
  local k
  k=$(sed -n 's/^# lane: *cluster.*nodes: *\([0-9]*\).*/\1/p' "$1" | head -1)
  echo "${k:-1}"
}
# cpu_of TEST: the cores its lane line says it keeps busy (`cpu: C`), empty when it says none
cpu_of() { sed -n 's/^# lane:.* cpu: *\([0-9.]*\).*/\1/p' "$1" | head -1; }

# tracer_programs: the ids of tracer's BPF collectors loaded on the machine (a handle_fork
# program each), attached by a running tracerd or left by a stopped one in its pin set
tracer_programs() {
  bpftool prog show 2> /dev/null | awk '/ name handle_fork / { sub(":", "", $1); print $1 }' | sort -u
}
# held_programs: the ids of the BPF programs some process holds open (a running tracerd)
held_programs() {
  grep -h '^prog_id:' /proc/[0-9]*/fdinfo/* 2> /dev/null | awk '{ print $2 }' | sort -u
}
# pin_sets: the test daemons' pin sets (lib.sh's PINS: tracer-it-X for /tmp/tracer-it.X)
pin_sets() { ls /sys/fs/bpf/tracer-test 2> /dev/null | sort; }
# left_behind PROGRAMS-BEFORE SETS-BEFORE: what this run left, empty when nothing: a pin set made
# since whose test has ended (its /tmp directory gone), a collector loaded since that no process
# holds (a stopped daemon's pins keep it attached to every fork, exec and exit of the machine)
left_behind() {
  local sets progs s
  sets=$(comm -13 <(echo "$2") <(pin_sets) | while read -r s; do
    [ -e "/tmp/${s/tracer-it-/tracer-it.}" ] || echo "$s"; done | tr '\n' ' ')
  progs=$(comm -13 <(echo "$1") <(tracer_programs) | comm -23 - <(held_programs) | tr '\n' ' ')
  [ -z "$sets" ] || echo -n "pin sets of test daemons in /sys/fs/bpf/tracer-test: $sets; "
  [ -z "$progs" ] || echo -n "BPF collectors no process holds (bpftool prog show id): $progs"
}
