# Queries from other nodes over TCP, each vouched for by a MUNGE credential that a real munged
# checks: a user still sees only their own units; forged, replayed and re-targeted credentials
# are refused; only queries are served.
# lane: daemon cpu: 0.3
. "$(dirname "$0")/lib.sh"
PORT=$((20000 + $$ % 20000))
MSOCK=$T/munge.sock
mungekey -c -k "$T/munge.key" -b 1024 2>/dev/null || dd if=/dev/urandom of="$T/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$T/munge.key"
munged -f -S "$MSOCK" --key-file="$T/munge.key" --pid-file="$T/munged.pid" \
  --log-file="$T/munged.log" --seed-file="$T/munged.seed" || { fail "munged start"; finish; exit 1; }
chmod 755 "$T"
write_config
printf 'ListenPort = %s\nMungeSocket = %s\n' "$PORT" "$MSOCK" >> "$T/tracer.conf"
start_daemon || { kill "$(cat "$T/munged.pid")"; exit 1; }
stop_all() {
  local m; m=$(cat "$T/munged.pid")
  stop_daemon; kill "$m" 2>/dev/null
  for _ in $(seq 50); do kill -0 "$m" 2>/dev/null || break; sleep 0.1; done
}

ctl run --name rootjob -- /bin/true 2>/dev/null
setpriv --reuid=nobody --regid=nogroup --clear-groups env TRACER_CONF="$TRACER_CONF" \
  "$BUILD/tracerctl" -N $NODE run --name userjob -- /bin/true 2>/dev/null

out=$(ctl -H 127.0.0.1:$PORT status 2>&1)   # -N names the node the request is for
grep -q "reached over TCP" <<< "$out" || echo "  tracerctl -H said: $out"
check "tracerctl -H status over TCP with MUNGE" grep -q "reached over TCP" <<< "$out"

# tcp_query USER JSON [CRED]: send JSON inside a credential made by USER (or the given one)
tcp_query() {
  setpriv --reuid="$1" --regid="$(id -g "$1")" --clear-groups /usr/bin/python3 - "$PORT" "$MSOCK" "$2" "${3:-}" <<'PY'
import json, socket, subprocess, sys
port, msock, body, cred = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
if not cred:
    cred = subprocess.run(["munge", "-S", msock, "-s", body], capture_output=True, text=True,
                          check=True).stdout.strip()
s = socket.create_connection(("127.0.0.1", int(port)), timeout=5)
s.sendall((json.dumps({"v": 1, "op": "munge", "cred": cred}) + "\n").encode())
data = b""
while not data.endswith(b"\n"):
    chunk = s.recv(65536)
    if not chunk: break
    data += chunk
print(data.decode().strip())
PY
}
q() { echo "{\"v\":1,\"node\":\"$NODE\",$1}"; }
r=$(tcp_query nobody "$(q '"op":"units","select":"userjob"')")
check "a user reads their own unit over TCP" grep -q '"name":"userjob"' <<< "$r"
r=$(tcp_query nobody "$(q '"op":"units","select":"rootjob"')")
check "a user gets none of another user's units over TCP" grep -q '"units":\[\]' <<< "$r"
r=$(tcp_query root "$(q '"op":"units","select":"userjob"')")
check "root reads every unit over TCP" grep -q '"name":"userjob"' <<< "$r"
r=$(tcp_query root "$(q '"op":"units","select":"a/b \\u00e9"')")
check "any JSON text is fine inside the credential" grep -q '"ok":true' <<< "$r"

cred=$(munge -S "$MSOCK" -s "$(q '"op":"status"')")
r1=$(tcp_query root - "$cred")
r2=$(tcp_query root - "$cred")
check "a fresh credential is taken" grep -q '"ok":true' <<< "$r1"
check "the same credential again is refused as replayed" grep -qi 'refused.*replay' <<< "$r2"
r=$(tcp_query root - "MUNGE:AwQFAAD9yXjJ+forged+credential=:")
check "a forged credential is refused" grep -q 'credential refused' <<< "$r"
r=$(tcp_query root '{"v":1,"node":"othernode","op":"status"}')
check "a credential for another node is refused" grep -q 'not for node' <<< "$r"
r=$(tcp_query root 'not json at all')
check "a credential carrying no request is refused" grep -q '"ok":false' <<< "$r"
r=$(tcp_query root "$(q '"op":"register","uid":0,"pid":1')")
check "registration is not served over TCP" grep -q 'not served over TCP' <<< "$r"
check "tracerd is still running" kill -0 $DAEMON_PID

# munged hung (a socket that accepts and never answers): a credential is given up on within
# 250 ms, and while that decode is stuck the next one is refused at once; local clients are
# served all the while
cred=$(munge -S "$MSOCK" -s "$(q '"op":"status"')")
stop_daemon
python3 -c "
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind('$T/hung.sock'); s.listen(16)
conns = []
while True:
    c, _ = s.accept(); conns.append(c)
" & hung=$!
for _ in $(seq 100); do [ -S "$T/hung.sock" ] && break; sleep 0.05; done # listening
sed -i "s|^MungeSocket = .*|MungeSocket = $T/hung.sock|" "$T/tracer.conf"
start_daemon || { kill $hung; stop_all; finish; exit 1; }
t0=$(date +%s%N); r1=$(tcp_query root - "$cred"); t1=$(date +%s%N)
r2=$(tcp_query root - "$cred"); t2=$(date +%s%N)
echo "  hung munged: first refusal after $(( (t1 - t0) / 1000000 )) ms, second after $(( (t2 - t1) / 1000000 )) ms"
check "hung munged: the credential is refused, not waited for" grep -q "did not answer within" <<< "$r1"
check "hung munged: the first refusal comes within a second" [ $(( (t1 - t0) / 1000000 )) -lt 1000 ]
check "hung munged: the next one is refused at once while munged is stuck" grep -q "munged is not answering" <<< "$r2"
status_quiet() { ctl status > /dev/null; }
check "hung munged: local clients are served" status_quiet
kill $hung 2>/dev/null
stop_all
finish
