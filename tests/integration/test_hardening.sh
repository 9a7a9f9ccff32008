# tracerd under the hardening of etc/systemd/tracerd.service still loads its BPF programs and
# traces: through systemd-run with the unit's own settings when systemd runs the machine, else
# with what can be had without it (the unit's capability bounding set, no new privileges, and
# a read-only root file system with only the daemon's directories writable).
. "$(dirname "$0")/lib.sh"
UNIT_FILE=$TOP/etc/systemd/tracerd.service
setting() { sed -n "s/^$1=//p" "$UNIT_FILE"; }
traces() { # traces CONF: a command run with tracerctl is recorded
  TRACER_CONF=$1 "$BUILD/tracerctl" -N $NODE run --name hardened -- /bin/true 2>&1 | grep -q "1 recorded"
}
wait_socket() { for _ in $(seq 50); do [ -S "$1" ] && return 0; sleep 0.1; done; return 1; }

if [ "$(ps -p 1 -o comm=)" = systemd ]; then
  # the unit's [Service] settings, less how it is started and where it keeps its files
  D=/run/tracer-it.$$; mkdir -p $D
  printf 'SocketDir = %s/run\nStateDir = %s/state\n' $D $D > $D/tracer.conf
  props=()
  while IFS= read -r line; do props+=(-p "$line"); done < <(sed -n '/^\[Service\]/,/^\[/p' "$UNIT_FILE" |
    grep -E '^[A-Z][A-Za-z]+=' | grep -vE '^(Type|ExecStart|ExecReload|Restart|RestartSec|StateDirectory|StateDirectoryMode|RuntimeDirectory|RuntimeDirectoryMode|RuntimeDirectoryPreserve|ReadWritePaths)=')
  systemd-run --unit=tracerd-itest-$$ "${props[@]}" -p ReadWritePaths=$D "$BUILD/tracerd" -f -N $NODE -c $D/tracer.conf
  wait_socket $D/run/tracerd-$NODE.sock
  check "tracerd under the unit's settings (systemd-run) traces a command" traces $D/tracer.conf
  systemctl stop tracerd-itest-$$; rm -rf $D
  finish; exit
fi
echo "  (systemd is not PID 1 here: the unit's settings that need it are not tested)"
caps=$(setting CapabilityBoundingSet | tr 'A-Z' 'a-z' | sed 's/cap_/+/g; s/ /,/g')
check "the unit names a capability bounding set ($caps)" [ -n "$caps" ]
check "and NoNewPrivileges" [ "$(setting NoNewPrivileges)" = yes ]
write_config
mkdir -p "$T/run" "$T/state"
unshare --mount --propagation private sh -c '
  mount --bind "$1" "$1" && mount -o remount,bind,ro / &&
  exec setpriv --no-new-privs --inh-caps=-all --bounding-set "-all,$2" "$3" -f -N "$4" -c "$1/tracer.conf"' \
  sh "$T" "$caps" "$BUILD/tracerd" $NODE >> "$T/tracerd.log" 2>&1 &
DAEMON_PID=$!
wait_socket "$T/run/tracerd-$NODE.sock"
check "tracerd with only those capabilities, no new privileges and / read-only traces a command" traces "$T/tracer.conf"
pid=$(pgrep -f "tracerd -f -N $NODE -c $T/tracer.conf" | head -1)
check "its bounding set is the unit's" [ "$(awk '/^CapBnd/ {print $2}' /proc/${pid:-0}/status)" != 000001ffffffffff ]
check "no new privileges" [ "$(awk '/^NoNewPrivs/ {print $2}' /proc/${pid:-0}/status)" = 1 ]
finish
