# The control socket: malformed input gets an error and a closed connection while the daemon
# carries on; SO_PEERCRED decides who may register, trace and read what; config errors name
# file:line and stop the start.
# lane: daemon cpu: 0.2
. "$(dirname "$0")/lib.sh"
start_daemon || exit 1
SOCK=$T/run/tracerd-$NODE.sock

send() { # send BYTES: print the reply line (or nothing when the daemon just closed)
  python3 - "$SOCK" "$1" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode().decode('unicode_escape').encode('latin-1'))
data = b""
try:
    while not data.endswith(b"\n"):
        chunk = s.recv(65536)
        if not chunk: break
        data += chunk
    closed = s.recv(1) == b""
except socket.timeout:
    closed = False
print(data.decode(errors="replace").strip(), "CLOSED" if closed else "OPEN")
PY
}
expect_error() { # expect_error WHAT BYTES
  local r; r=$(send "$2")
  case "$r" in *'"ok":false'*CLOSED) ok "$1: error reply, connection closed";;
               *) fail "$1: got '$r'";; esac
}
expect_error "not JSON" 'hello\n'
expect_error "JSON array" '[1,2]\n'
expect_error "wrong version" '{"v":2,"op":"status"}\n'
expect_error "missing op" '{"v":1}\n'
expect_error "NUL byte" '{"v":1,"op":"st\x00atus"}\n'
expect_error "nesting bomb" "$(printf '{"v":1,"op":"status","x":%s1%s}\\n' "$(printf '[%.0s' $(seq 200))" "$(printf ']%.0s' $(seq 200))")"
r=$(python3 -c "
import socket; s=socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect('$SOCK')
s.sendall(b'{\"v\":1,\"op\":\"status\",\"pad\":\"' + b'x' * 70000 + b'\"}\n')
print(s.recv(4096).decode())")
case "$r" in *'longer than'*) ok "70 kB request refused";; *) fail "70 kB request: '$r'";; esac
r=$(send '{"v":1,"op":"fly"}\n')
case "$r" in *"unknown op"*OPEN) ok "unknown op: error, connection stays";; *) fail "unknown op: '$r'";; esac
r=$(send '{"v":1,"op":"status"}\n')
case "$r" in *'"ok":true'*) ok "the daemon still answers after all that";; *) fail "status after garbage: '$r'";; esac
check "the daemon is still running" kill -0 $DAEMON_PID

# who may do what
USER1=nobody
asuser() { setpriv --reuid=$USER1 --regid=nogroup --clear-groups env TRACER_CONF="$TRACER_CONF" "$@"; }
ctl run --name rootrun -- /bin/true 2>/dev/null
asuser "$BUILD/tracerctl" -N $NODE run --name userrun -- /bin/true 2> "$T/user.out"
check "an unprivileged user can trace a command of their own" grep -q "1 recorded" "$T/user.out"
check "its unit belongs to that user" [ "$(db "SELECT uid FROM units WHERE name='userrun'")" = "$(id -u $USER1)" ]
asuser "$BUILD/tracerctl" -N $NODE register --uid 0 --pid 1 2> "$T/reg.out"
check "an unprivileged user may not register" grep -q "permission denied" "$T/reg.out"
asuser "$BUILD/tracer-jobstat" -N $NODE -j rootrun 2> "$T/js.out" > "$T/js.txt"
check "an unprivileged user does not see root's run" grep -q "no job or run 'rootrun'" "$T/js.out"
check "and gets none of its data" [ ! -s "$T/js.txt" ]
check "root sees the user's run" bash -c "'$BUILD/tracer-jobstat' -N $NODE -j userrun -n -P | grep -q COMPLETED"
sleep 30 & victim=$!
r=$(asuser /usr/bin/python3 -c "
import socket; s=socket.socket(socket.AF_UNIX); s.connect('$SOCK')
s.sendall(b'{\"v\":1,\"op\":\"run_begin\",\"pid\":$victim}\n'); print(s.recv(4096).decode())")
kill $victim
case "$r" in *"not a child of the caller"*) ok "a user cannot track another's process";; *) fail "run_begin on a foreign pid: '$r'";; esac

# bad config: file:line and no start
printf 'SocketDir = %s/run2\nSampleInterval = soon\n' "$T" > "$T/bad.conf"
"$BUILD/tracerd" -f -N bad -c "$T/bad.conf" 2> "$T/bad.out"; rc=$?
check "a bad config stops tracerd (rc $rc)" [ $rc -ne 0 ]
check "and names file:line" grep -q "bad.conf:2" "$T/bad.out"
printf 'Colour = blue\n' > "$T/bad2.conf"
"$BUILD/tracerd" -f -N bad -c "$T/bad2.conf" 2> "$T/bad2.out"
check "an unknown key is refused with file:line" grep -q "bad2.conf:1" "$T/bad2.out"

# SIGHUP with a broken config keeps the settings in force
cp "$T/tracer.conf" "$T/good.conf"; echo "LogLevel = loud" >> "$T/tracer.conf"
kill -HUP $DAEMON_PID; sleep 0.3
check "a reload with a bad config is refused and logged" grep -q "reload refused" "$T/tracerd.log"
check "the daemon keeps running after it" kill -0 $DAEMON_PID
cp "$T/good.conf" "$T/tracer.conf"
# a process of another uid inside a user's unit (a setuid program, sudo's child) is recorded,
# but its arguments are for root and SlurmUser only
bash -c 'sleep 0.5; exec bash -c "sleep 0.5; : --secret-arg-of-root"' &
rootproc=$!
sleep 0.2
unit=$(ctl register --uid "$(id -u $USER1)" --pid $rootproc --name foreign)
wait $rootproc
ctl unregister "$unit" > /dev/null
asuser "$BUILD/tracer-jobstat" -N $NODE -j foreign --processes --json > "$T/foreign.json" 2>&1
check "the user sees the foreign process in their unit" grep -q '"PID": *'$rootproc "$T/foreign.json"
check "but not its arguments" bash -c "! grep -q secret-arg-of-root '$T/foreign.json'"
"$BUILD/tracer-jobstat" -N $NODE -j foreign --processes --json > "$T/foreign-root.json" 2>&1
check "root sees them" grep -q secret-arg-of-root "$T/foreign-root.json"
finish
