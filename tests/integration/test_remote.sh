# Queries from other nodes over TCP, each vouched for by a MUNGE credential that a real munged
# checks: a user still sees only their own units; forged, replayed and re-targeted credentials
# are refused; only queries are served.
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
stop_all() { stop_daemon; kill "$(cat "$T/munged.pid")" 2>/dev/null; }

ctl run --name rootjob -- /bin/true 2>/dev/null
setpriv --reuid=nobody --regid=nogroup --clear-groups env TRACER_CONF="$TRACER_CONF" \
  "$BUILD/tracerctl" -N $NODE run --name userjob -- /bin/true 2>/dev/null

out=$(ctl -H 127.0.0.1:$PORT status 2>&1)
check "tracerctl -H status over TCP with MUNGE" grep -q "reached over TCP" <<< "$out"

# tcp_query USER JSON [CRED]: send JSON with a credential made by USER (or the given one)
tcp_query() {
  setpriv --reuid="$1" --regid="$(id -g "$1")" --clear-groups /usr/bin/python3 - "$PORT" "$MSOCK" "$2" "${3:-}" <<'PY'
import json, socket, subprocess, sys
port, msock, body, cred = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
req = json.loads(body)
if not cred:
    cred = subprocess.run(["munge", "-S", msock, "-s", json.dumps(req, separators=(",", ":"))],
                          capture_output=True, text=True, check=True).stdout.strip()
req["cred"] = cred
s = socket.create_connection(("127.0.0.1", int(port)), timeout=5)
s.sendall((json.dumps(req, separators=(",", ":")) + "\n").encode())
data = b""
while not data.endswith(b"\n"):
    chunk = s.recv(65536)
    if not chunk: break
    data += chunk
print(data.decode().strip())
PY
}
r=$(tcp_query nobody '{"v":1,"op":"units","select":"userjob"}')
check "a user reads their own unit over TCP" grep -q '"name":"userjob"' <<< "$r"
r=$(tcp_query nobody '{"v":1,"op":"units","select":"rootjob"}')
check "a user gets none of another user's units over TCP" grep -q '"units":\[\]' <<< "$r"
r=$(tcp_query root '{"v":1,"op":"units","select":"userjob"}')
check "root reads every unit over TCP" grep -q '"name":"userjob"' <<< "$r"

cred=$(munge -S "$MSOCK" -s '{"v":1,"op":"status"}')
r1=$(tcp_query root '{"v":1,"op":"status"}' "$cred")
r2=$(tcp_query root '{"v":1,"op":"status"}' "$cred")
check "a fresh credential is taken" grep -q '"ok":true' <<< "$r1"
check "the same credential again is refused as replayed" grep -qi 'refused.*replay' <<< "$r2"
r=$(tcp_query root '{"v":1,"op":"status"}' "MUNGE:AwQFAAD9yXjJ+forged+credential=:")
check "a forged credential is refused" grep -q 'credential refused' <<< "$r"
cred=$(munge -S "$MSOCK" -s '{"v":1,"op":"status"}')
r=$(tcp_query root '{"v":1,"op":"units","select":"rootjob"}' "$cred")
check "a credential issued for another request is refused" grep -q 'another request' <<< "$r"
r=$(tcp_query root '{"v":1,"op":"units","select":"rootjob"}' "-")
check "a request without a real credential is refused" grep -q 'credential refused' <<< "$r"
r=$(tcp_query root '{"v":1,"op":"register","uid":0,"pid":1}')
check "registration is not served over TCP" grep -q 'not served over TCP' <<< "$r"
check "tracerd is still running" kill -0 $DAEMON_PID
stop_all
finish
