# tracerd under the hardening of etc/systemd/tracerd.service still loads its BPF programs and
# traces: through systemd-run with the unit's own settings when systemd runs the machine, else
# with as many of them as can be had without it (see below), each checked on the daemon.
# lane: daemon cpu: 0.4
. "$(dirname "$0")/lib.sh"
UNIT_FILE=$TOP/etc/systemd/tracerd.service
setting() { sed -n "s/^$1=//p" "$UNIT_FILE"; }
traces() { # traces CONF: a command run with tracerctl is recorded
  TRACER_CONF=$1 "$BUILD/tracerctl" -N $NODE run --name hardened -- /bin/true 2>&1 | grep -q "1 recorded"
}
wait_socket() { for _ in $(seq 50); do [ -S "$1" ] && return 0; sleep 0.1; done; return 1; }
# the daemon's directories and its binary outside /tmp, which is private to it (the build tree
# may be under /tmp)
D=/run/tracer-it.$$
mkdir -p $D/run $D/state
install -m 755 "$BUILD/tracerd" $D/tracerd

if [ "$(ps -p 1 -o comm=)" = systemd ]; then
  # the unit's [Service] settings, less how it is started and where it keeps its files
  printf 'SocketDir = %s/run\nStateDir = %s/state\nPinDir = %s\n' $D $D "$PINS" > $D/tracer.conf
  props=()
  while IFS= read -r line; do props+=(-p "$line"); done < <(sed -n '/^\[Service\]/,/^\[/p' "$UNIT_FILE" |
    grep -E '^[A-Z][A-Za-z]+=' | grep -vE '^(Type|ExecStart|ExecReload|Restart|RestartSec|StateDirectory|StateDirectoryMode|RuntimeDirectory|RuntimeDirectoryMode|RuntimeDirectoryPreserve|ReadWritePaths)=')
  systemd-run --unit=tracerd-itest-$$ "${props[@]}" -p ReadWritePaths=$D $D/tracerd -f -N $NODE -c $D/tracer.conf
  wait_socket $D/run/tracerd-$NODE.sock
  check "tracerd under the unit's settings (systemd-run) traces a command" traces $D/tracer.conf
  systemctl stop tracerd-itest-$$; rm -rf $D
  finish; exit
fi
echo "  (systemd is not PID 1 here: the unit's settings applied by hand, as far as they can be)"
# What is applied without systemd: the capability bounding set, NoNewPrivileges, UMask,
# LimitNOFILE, MemoryMax and TasksMax (a memory and a pids cgroup of the test's
# own, v1 or v2), ProtectSystem=strict (/ read-only but for the daemon's directories),
# ProtectHome=read-only, PrivateTmp and PrivateDevices (a /dev of the basic devices), in a
# mount namespace. Seccomp's settings (SystemCallArchitectures, RestrictAddressFamilies,
# MemoryDenyWriteExecute, RestrictNamespaces...) need systemd, and RLIMIT_MEMLOCK cannot be
# raised on these machines (LimitMEMLOCK): not tested here.
caps=$(setting CapabilityBoundingSet | tr 'A-Z' 'a-z' | sed 's/cap_/+/g; s/ /,/g')
check "the unit names a capability bounding set ($caps)" [ -n "$caps" ]
check "and NoNewPrivileges" [ "$(setting NoNewPrivileges)" = yes ]
for k in MemoryMax TasksMax LimitNOFILE UMask ProtectSystem ProtectHome PrivateTmp PrivateDevices; do
  check "and $k ($(setting $k))" [ -n "$(setting $k)" ]
done
bytes() { numfmt --from=iec "$1"; }
mem_max=$(bytes "$(setting MemoryMax)") tasks_max=$(setting TasksMax) nofile=$(setting LimitNOFILE)
CG=tracer-it.$$
# its pins with the test's, removed at its end: the default PinDir's would stay attached
printf 'SocketDir = %s/run\nStateDir = %s/state\nPinDir = %s\nSampleInterval = 1s\nCommitInterval = 200ms\n' $D $D "$PINS" > $D/tracer.conf
cgroups=()
if [ -d /sys/fs/cgroup/memory ] && [ -d /sys/fs/cgroup/pids ]; then # v1 controllers
  mkdir /sys/fs/cgroup/memory/$CG /sys/fs/cgroup/pids/$CG
  echo "$mem_max" > /sys/fs/cgroup/memory/$CG/memory.limit_in_bytes
  echo "$tasks_max" > /sys/fs/cgroup/pids/$CG/pids.max
  cgroups=(/sys/fs/cgroup/memory/$CG /sys/fs/cgroup/pids/$CG)
elif grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then # v2
  mkdir /sys/fs/cgroup/$CG
  echo "$mem_max" > /sys/fs/cgroup/$CG/memory.max
  echo "$tasks_max" > /sys/fs/cgroup/$CG/pids.max
  cgroups=(/sys/fs/cgroup/$CG)
fi
cleanup() {
  stop_daemon
  for c in "${cgroups[@]}"; do rmdir "$c" 2>/dev/null; done
  rm -rf $D "$T" "$PINS"
}
trap cleanup EXIT INT TERM
# the daemon: into the cgroups, then a private mount namespace, then its limits and privileges
env D=$D UMASK_="$(setting UMask)" NOFILE=$nofile CAPS=$caps TRACERD=$D/tracerd NODE=$NODE sh -c '
  for c in "$@"; do echo $$ > "$c/cgroup.procs" || exit 1; done
  exec unshare --mount --propagation private sh -c "
    mount --bind \$D \$D && mount -o remount,bind,ro / &&
    for h in /home /root /run/user; do
      [ ! -d \$h ] || { mount --bind \$h \$h && mount -o remount,bind,ro \$h; } || exit 1
    done &&
    mount -t tmpfs -o mode=1777 tmpfs /tmp && mount -t tmpfs -o mode=1777 tmpfs /var/tmp &&
    mount -t tmpfs -o mode=755 tmpfs /dev &&
    mknod -m 666 /dev/null c 1 3 && mknod -m 666 /dev/zero c 1 5 &&
    mknod -m 666 /dev/random c 1 8 && mknod -m 666 /dev/urandom c 1 9 &&
    umask \$UMASK_ &&
    exec prlimit --nofile=\$NOFILE:\$NOFILE -- \
      setpriv --no-new-privs --inh-caps=-all --bounding-set -all,\$CAPS \
      \$TRACERD -f -N \$NODE -c \$D/tracer.conf"' sh "${cgroups[@]}" >> "$T/tracerd.log" 2>&1 &
DAEMON_PID=$!
wait_socket $D/run/tracerd-$NODE.sock
check "tracerd under the unit's settings traces a command" traces $D/tracer.conf
pid=$(pgrep -f "tracerd -f -N $NODE -c $D/tracer.conf" | head -1)
st() { awk -v k="$1:" '$1 == k {print $2}' /proc/${pid:-0}/status; }
check "its bounding set is the unit's" [ "$(st CapBnd)" != 000001ffffffffff ]
check "no new privileges" [ "$(st NoNewPrivs)" = 1 ]
check "its open files are limited to LimitNOFILE ($nofile)" \
  [ "$(awk '/^Max open files/ {print $4}' /proc/${pid:-0}/limits)" = "$nofile" ]
if [ ${#cgroups[@]} -gt 0 ]; then
  check "it runs in a cgroup limited to MemoryMax and TasksMax" grep -q "$CG" /proc/${pid:-0}/cgroup
  for c in "${cgroups[@]}"; do
    [ -e "$c/memory.limit_in_bytes" ] && used=$(cat "$c/memory.max_usage_in_bytes")
    [ -e "$c/memory.peak" ] && used=$(cat "$c/memory.peak")
  done
  echo "  memory of its cgroup at its peak: ${used:-?} bytes (MemoryMax $mem_max)"
  check "its BPF maps, ring buffer and heap fit MemoryMax" \
    awk -v u="${used:-0}" -v m="$mem_max" 'BEGIN { exit !(u > 0 && u < m) }'
else
  fail "no memory and pids cgroup controllers: MemoryMax and TasksMax cannot be applied"
fi
# in_daemon COMMAND...: true when COMMAND succeeds in the daemon's mount namespace, false when
# it fails or there is no daemon
in_daemon() { [ -n "${pid:-}" ] && nsenter -t "$pid" -m "$@" 2>/dev/null; }
not_in_daemon() { [ -n "${pid:-}" ] && ! nsenter -t "$pid" -m "$@" 2>/dev/null; }
check "ProtectHome=read-only: /root is read-only to it" not_in_daemon touch /root/.tracer-it
check "ProtectSystem=strict: /etc is read-only to it" not_in_daemon touch /etc/.tracer-it
check "... but its state directory is not" in_daemon touch $D/state/.tracer-it
touch /tmp/.tracer-it.$$
check "PrivateTmp: its /tmp is its own" not_in_daemon test -e /tmp/.tracer-it.$$
rm -f /tmp/.tracer-it.$$
check "PrivateDevices: its /dev holds only the basic devices" [ "$(in_daemon ls /dev | wc -l)" = 4 ]
check "UMask: its store is 0600" [ "$(stat -c %a $D/state/$NODE/tracer.db)" = 600 ]
finish
