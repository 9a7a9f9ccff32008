#!/usr/bin/env bash
# tracerd's Prometheus endpoint (MetricsListen): a local user who holds the port first does not
# keep tracerd from starting and tracing, status says so, and the endpoint comes up within the
# retry period once the port is free; the exposition is clean under promtool, its start time
# exact to the millisecond; a traced run's CPU rate, as a real Prometheus server scraping every
# second with a default scrape config computes it with PromQL, matches the run's own CPU within
# 5 %; no label of ours is renamed by Prometheus (a Slurm job's id stays slurm_job); its series
# are gone once it ends; every variable and panel query of etc/grafana/tracer.json returns
# series (the export's from a real exporter to the test receiver); and scrapers that hold
# connections, read a byte a second, send a 100 kB request line or malformed requests, and a
# run named with quotes, newlines, terminal escapes and invalid UTF-8, leave tracing whole,
# `tracerctl status` quick and tracerd's VmHWM within 64 MiB. No Slurm cluster: traced runs,
# and one unit registered as a Slurm task by root.
# lane: alone
source "$(dirname "$0")/lib.sh"

command -v promtool >/dev/null && command -v prometheus >/dev/null ||
  apt_install prometheus
PORT=$((20000 + RANDOM % 20000))
PPORT=$((PORT + 1))
URL=http://127.0.0.1:$PORT/metrics
PROM=http://127.0.0.1:$PPORT
HWM_MAX_KB=65536
STATUS_MAX_MS=100
RETRY_S=5 # MetricsRetryInterval: the wait for a taken port means the same at 5 s as at 60
SLURM_JOB=4242
BURN=$(prog cpuburn) || exit 1
KEEPER=$T/keeper # a tool of its own name (sleep is shell plumbing, kept out of tool series)
cp /bin/sleep "$KEEPER"
PROM_PID=
HOLDER=

otlp_receiver_start || { finish; exit 1; }
write_config
cat >> "$T/tracer.conf" <<CONF
MetricsListen = $PORT
MetricsRetryInterval = ${RETRY_S}s
OtlpEndpoint = $OTLP_URL
OtlpMetricsInterval = 1s
CONF
cleanup_prom() { [ -n "$PROM_PID" ] && kill $PROM_PID 2>/dev/null && wait $PROM_PID 2>/dev/null; PROM_PID=; }
cleanup_holder() { [ -n "$HOLDER" ] && kill $HOLDER 2>/dev/null; HOLDER=; }
trap 'cleanup_prom; cleanup_holder; stop_daemon; otlp_receiver_stop; rm -rf "$T"' INT TERM

echo "== a local user holds the port before tracerd starts"
# nobody listens on the port until $T/release exists
setpriv --reuid=nobody --regid=nogroup --clear-groups /usr/bin/python3 -c '
import os, socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen()
print("held", flush=True)
while not os.path.exists(sys.argv[2]):
    time.sleep(0.2)' "$PORT" "$T/release" > "$T/holder.out" 2>&1 &
HOLDER=$!
held() { ss -Hltnp "sport = :$PORT" | grep -q "pid=$HOLDER,"; }
for _ in $(seq 100); do held && break; sleep 0.1; done
check "nobody listens on $PORT ($(cat "$T/holder.out"))" held
start_daemon || { cleanup_holder; finish; exit 1; }
check "tracerd started all the same" kill -0 $DAEMON_PID
check "its log says it runs without the endpoint" \
  grep -q "cannot listen on $PORT: Address already in use; tracerd runs without its Prometheus endpoint" "$T/tracerd.log"
ctl status > "$T/st0"
grep prometheus "$T/st0" | sed 's/^/ /'
check "status says not listening, why, and the next try" \
  grep -Eq "^  prometheus +NOT listening on $PORT: Address already in use \(1 tries\); next try in [0-9]+ s$" "$T/st0"
ctl run --name held -- /bin/sh -c '/bin/true; /bin/true' > "$T/held.out" 2>&1
sleep 0.5
check "a run is traced while the port is held ($(db "SELECT COUNT(*) FROM processes WHERE unit=(SELECT MAX(id) FROM units WHERE name='held')") processes)" \
  [ "$(db "SELECT COUNT(*) FROM processes WHERE unit=(SELECT MAX(id) FROM units WHERE name='held')")" = 3 ]
touch "$T/release"
wait $HOLDER
HOLDER=
t0=$(date +%s)
up=
for _ in $(seq $((RETRY_S + 15))); do
  curl -sf --max-time 2 "$URL" 2>/dev/null | grep -q '^tracer_units_running' && up=$(($(date +%s) - t0)) && break
  sleep 1
done
check "once the user lets go, the endpoint comes up within the retry period (${up:-never} s)" \
  [ "${up:-999999}" -le $((RETRY_S + 5)) ]
ctl status > "$T/st1"
check "status says listening" grep -Eq "^  prometheus +listening on $PORT$" "$T/st1"
check "its log says the address is free again" grep -q "Prometheus endpoint on $PORT (its address is free again)" "$T/tracerd.log"

hwm_kb() { awk '/^VmHWM/ {print $2}' /proc/$DAEMON_PID/status; }
cpu_ticks() { awk '{print $14 + $15}' /proc/$1/stat 2>/dev/null; }
# a PromQL instant query: its result as "labels value" lines
promql() {
  curl -sf --max-time 5 "$PROM/api/v1/query" --data-urlencode "query=$1" ${2:+--data-urlencode "time=$2"} |
    python3 -c 'import json,sys
d=json.load(sys.stdin)
assert d["status"] == "success", d
for r in d["data"]["result"]:
    print(json.dumps(r["metric"], sort_keys=True), r["value"][1])'
}
# the slowest of N status requests, in ms, and how many failed
status_ms() {
  local worst=0 fails=0 t0 t1 ms
  for _ in $(seq "$1"); do
    t0=$(date +%s%N)
    ctl status >/dev/null 2>&1 || fails=$((fails + 1))
    t1=$(date +%s%N)
    ms=$(((t1 - t0) / 1000000))
    [ $ms -gt $worst ] && worst=$ms
    sleep 0.05
  done
  echo "$worst $fails"
}
# processes stored for the newest unit named $1
stored_procs() { db "SELECT COUNT(*) FROM processes WHERE unit=(SELECT MAX(id) FROM units WHERE name='$1')"; }

echo "== the exposition"
curl -sf -D "$T/h1" "$URL" > "$T/m1"
check "GET /metrics answers 200 with text format 0.0.4" grep -qi '^Content-Type: text/plain; version=0.0.4' "$T/h1"
promtool check metrics < "$T/m1" > "$T/pt1" 2>&1
check "promtool check metrics is clean ($(wc -l < "$T/pt1") remarks)" [ ! -s "$T/pt1" ]
check "node health families are there" grep -q '^tracer_units_running{node="'"$NODE"'"} 0$' "$T/m1"
started=$(ctl status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["started_ns"])')
check "its start time is exact to the millisecond ($(grep '^tracer_start_time_seconds' "$T/m1"); started_ns $started)" \
  awk -v ns="$started" '/^tracer_start_time_seconds/ { d = $2 - ns / 1e9; found = 1 } END { exit !(found && d < 0.001 && d > -0.001) }' "$T/m1"
check "bound to loopback only" bash -c "ss -Hltn 'sport = :$PORT' | awk '{print \$4}' | grep -qx '127.0.0.1:$PORT'"

echo "== a real Prometheus scraping every second"
cat > "$T/prom.yml" <<YML
global: { scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s }
scrape_configs:
  - job_name: tracer
    static_configs: [ { targets: ['127.0.0.1:$PORT'] } ]
YML
# Prometheus's defaults: its own target labels (job, instance) win over a scraped one, which it
# renames exported_*; tracerd's labels must never meet them
check "the scrape config is the default one (no honor_labels)" bash -c "! grep -q honor_labels '$T/prom.yml'"
prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/tsdb" \
  --web.listen-address=127.0.0.1:$PPORT > "$T/prom.log" 2>&1 &
PROM_PID=$!
for _ in $(seq 100); do
  [ "$(promql 'up{job="tracer"}' 2>/dev/null | awk '{print $NF}')" = 1 ] && break
  sleep 0.3
done
check "Prometheus scrapes tracerd (up == 1)" [ "$(promql 'up{job="tracer"}' | awk '{print $NF}')" = 1 ] ||
  tail -5 "$T/prom.log"

echo "== a traced run burning 8 s of CPU"
ctl run --name burn -- "$BURN" 8 > "$T/burn.out" 2>&1 &
RUN=$!
BPID=
for _ in $(seq 50); do BPID=$(pgrep -nx cpuburn) && break; sleep 0.1; done
sleep 2 # past its start: the window holds a steady rate
t_a=$(date +%s.%N); p_a=$(cpu_ticks "$BPID")
sleep 4
t_b=$(date +%s.%N); p_b=$(cpu_ticks "$BPID")
curl -sf "$URL" > "$T/m2"
hz=$(getconf CLK_TCK)
own=$(awk -v a="$p_a" -v b="$p_b" -v ta="$t_a" -v tb="$t_b" -v hz="$hz" 'BEGIN { printf "%.4f", (b - a) / hz / (tb - ta) }')
q=$(promql 'rate(tracer_job_cpu_seconds_total{unit="burn"}[4s])' "$t_b" | awk '{print $NF}')
echo "  burner's own CPU rate $own cores over [$t_a, $t_b]; PromQL rate(...[4s]) at its end: ${q:-none}"
check "the PromQL CPU rate matches the burner's within 5 % ($q vs $own)" \
  awk -v q="${q:-0}" -v o="$own" 'BEGIN { d = q - o; if (d < 0) d = -d; exit !(o > 0.2 && d <= 0.05 * o) }'
check "the running run's series carry its name, no pid" \
  bash -c "grep -q '^tracer_job_processes_running{node=\"$NODE\",slurm_job=\"\",step=\"\",task=\"\",user=\"root\",slurm_account=\"\",slurm_partition=\"\",unit=\"burn\",unit_id=\"[0-9]*\"} 1$' '$T/m2' && ! grep -q pid= '$T/m2'"
check "its tool is a series" grep -q '^tracer_tool_processes_running{.*unit="burn".*tool="cpuburn"} 1$' "$T/m2"
promtool check metrics < "$T/m2" > "$T/pt2" 2>&1
check "promtool check metrics is clean with a run" [ ! -s "$T/pt2" ]

echo "== a Slurm task (registered by root as slurmd's plugin would), a traced run kept running"
ctl run --name keep -- "$KEEPER" 60 > /dev/null 2>&1 &
KEEP=$!
# its process waits for its registration, then becomes a tool of its own
sh -c "while [ ! -e '$T/registered' ]; do sleep 0.1; done; exec '$KEEPER' 60" &
TASK=$!
# an account with a quote and a newline: a label value escaped, never a label or series of its own
SUNIT=$(ctl register --uid 0 --pid $TASK --job-id $SLURM_JOB --step-id 0 --task-id 0 --job-name align \
  --account 'bio"lab
x{y="1"}' --partition short)
touch "$T/registered"
check "the task is registered (unit ${SUNIT:-none})" [ -n "$SUNIT" ]
sleep 3
curl -sf "$URL" > "$T/mt"
# the account's quote escaped for the format, its newline shown as text first (\x0a)
want="tracer_job_processes_running{node=\"$NODE\",slurm_job=\"$SLURM_JOB\",step=\"0\",task=\"0\",user=\"root\",slurm_account=\"bio\\\"lab\\\\x0ax{y=\\\"1\\\"}\",slurm_partition=\"short\",unit=\"align\",unit_id=\"$SUNIT\"} 1"
check "its series carry slurm_job, its account and partition, no label job" grep -qxF "$want" "$T/mt"
check "no series of the exposition has a label Prometheus gives its targets (job, instance)" \
  bash -c "! grep -Eq '^[a-z_]+\{(.*,)?(job|instance)=' '$T/mt'"
q=$(promql "tracer_job_processes_running{slurm_job=\"$SLURM_JOB\"}")
echo "  in Prometheus: $q"
check "in Prometheus the task's series keeps slurm_job=$SLURM_JOB beside the scrape's job=tracer" \
  python3 -c "import json, sys; m = json.loads(sys.argv[1].rsplit(' ', 1)[0]); sys.exit(not (m['job'] == 'tracer' and m['slurm_job'] == '$SLURM_JOB' and m['instance'] == '127.0.0.1:$PORT'))" "$q"
labels=$(curl -sf --max-time 5 "$PROM/api/v1/labels" --data-urlencode 'match[]={__name__=~"tracer_.+"}')
check "no label of tracerd's was renamed exported_* ($labels)" \
  bash -c "echo '$labels' | grep -q '\"slurm_job\"' && ! echo '$labels' | grep -q exported_"

echo "== every variable and panel of etc/grafana/tracer.json"
sleep 2 # the OTLP exporter delivered metrics (OtlpMetricsInterval 1s) and was scraped since
python3 - "$TOP/etc/grafana/tracer.json" "$SLURM_JOB" > "$T/panels" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
for v in d["templating"]["list"]:
    if v["type"] == "query":
        print("variable " + v["name"] + "\tvar\t" + v["query"]["query"])
for p in d["panels"]:
    for t in p.get("targets", []):
        e = t["expr"].replace("$__rate_interval", "30s").replace("$node", ".*")
        # the Slurm job chosen: its series must come through by (..., slurm_job, ...) whole
        want = "job" if "$slurm_job" in e else "any"
        e = e.replace("$slurm_job", sys.argv[2])
        print(p["title"] + "\t" + want + "\t" + e)
PY
npanel=0
while IFS=$'\t' read -r title want expr; do
  case $want in
  var) # label_values(METRIC, LABEL): the values Grafana would offer
    metric=${expr#label_values(}; metric=${metric%%,*}
    label=${expr##*, }; label=${label%)}
    vals=$(curl -sfG --max-time 5 "$PROM/api/v1/label/$label/values" --data-urlencode "match[]=$metric" |
      python3 -c 'import json,sys; print(" ".join(json.load(sys.stdin)["data"]))')
    check "$title: $expr offers [$vals]" [ -n "$vals" ]
    [ "$label" = slurm_job ] && check "$title offers the Slurm job, never the scrape job" [ "$vals" = "$SLURM_JOB" ]
    ;;
  job)
    npanel=$((npanel + 1))
    n=$(promql "$expr" | grep -c "\"slurm_job\": \"$SLURM_JOB\"")
    check "panel '$title': $expr returns the job's series ($n)" [ "$n" -gt 0 ]
    ;;
  *)
    npanel=$((npanel + 1))
    n=$(promql "$expr" | wc -l)
    check "panel '$title': $expr returns $n series" [ "$n" -gt 0 ]
    ;;
  esac
done < "$T/panels"
check "the dashboard has queries ($npanel)" [ $npanel -ge 14 ]
check "the export row's queries are among them" [ "$(grep -c 'tracer_export_' "$T/panels")" -ge 4 ]
ctl unregister "$SUNIT" > /dev/null
kill $TASK 2>/dev/null; wait $TASK 2>/dev/null
wait $RUN

echo "== its series end with it"
check "the run was traced" grep -q 'recorded' "$T/burn.out"
curl -sf "$URL" > "$T/m3"
check "the ended run has no series in the exposition" bash -c "! grep -q 'unit=\"burn\"' '$T/m3'"
gone=
for _ in $(seq 30); do
  [ -z "$(promql 'tracer_job_cpu_seconds_total{unit="burn"}')" ] && gone=1 && break
  sleep 0.2
done
check "nor in Prometheus, past its last scrape" [ -n "$gone" ]
check "the run kept running still has its series" grep -q 'unit="keep"' "$T/m3"
cleanup_prom

echo "== attacks on the endpoint"
python3 - "$PORT" > "$T/attacks" 2>&1 <<'PY' &
import socket, sys, time
port = int(sys.argv[1])
def conn():
    s = socket.socket()
    s.connect(("127.0.0.1", port))
    return s
def status_line(s):
    s.settimeout(5)
    data = b""
    try:
        while b"\r\n" not in data:
            b = s.recv(4096)
            if not b:
                break
            data += b
    except Exception as e:
        return "error %s" % e
    return data.split(b"\r\n")[0].decode(errors="replace") or "closed"
# requests of every wrong kind
for name, req in [("long", b"GET /" + b"A" * 100000 + b" HTTP/1.1\r\n\r\n"),
                  ("post", b"POST /metrics HTTP/1.1\r\n\r\n"),
                  ("path", b"GET /secret HTTP/1.1\r\n\r\n"),
                  ("garbage", b"\x00\xff\r\n\r\n")]:
    s = conn()
    try:
        s.sendall(req)
    except OSError:
        pass
    print(name, status_line(s), flush=True)
    s.close()
# a scraper reading a byte a second: let go of by tracerd, not waited on
slow = socket.socket()
slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024) # before connect: a small window
slow.connect(("127.0.0.1", port))
slow.sendall(b"GET /metrics HTTP/1.1\r\n\r\n")
t0 = time.time()
got = 0
while time.time() - t0 < 20:
    try:
        b = slow.recv(1)
    except OSError:
        break
    if not b:
        break
    got += 1
    time.sleep(1)
    if time.time() - t0 > 12:
        break
# what tracerd holds of it by now: the scrapers it counts, this one's scrape included
s = conn()
s.sendall(b"GET /metrics HTTP/1.1\r\n\r\n")
s.settimeout(5)
text = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    text += b
held_now = [l for l in text.decode().splitlines() if l.startswith("tracer_metrics_scrapers")]
print("slow read %d bytes in %.0f s; then %s" % (got, time.time() - t0, held_now[0] if held_now else "no reply"), flush=True)
slow.close()
# 200 connections held open for 6 s, a few of them sending half a request
held = []
for i in range(200):
    try:
        s = conn()
        if i % 2:
            s.send(b"GET /met")
        held.append(s)
    except OSError as e:
        print("connect", i, e)
print("holding", len(held), flush=True)
time.sleep(6)
for s in held:
    s.close()
print("released", flush=True)
PY
ATK=$!
# status asked all along the attacks; a run traced while 200 connections are held
worst=0 fails=0 during=
while kill -0 $ATK 2>/dev/null; do
  read -r w f < <(status_ms 10)
  [ "$w" -gt $worst ] && worst=$w
  fails=$((fails + f))
  if [ -z "$during" ] && grep -q '^holding' "$T/attacks"; then
    during=1
    ctl run --name during -- /bin/sh -c '/bin/true; /bin/true; /bin/true' > "$T/during.out" 2>&1
  fi
done
wait $ATK
cat "$T/attacks" | sed 's/^/  attacker: /'
check "a 100 kB request line gets 431" grep -q '^long HTTP/1.1 431' "$T/attacks"
check "POST gets 405" grep -q '^post HTTP/1.1 405' "$T/attacks"
check "another path gets 404" grep -q '^path HTTP/1.1 404' "$T/attacks"
check "garbage gets 400" grep -q '^garbage HTTP/1.1 400' "$T/attacks"
check "a scraper reading a byte a second holds nothing of tracerd's after 12 s" \
  grep -q '^slow read .*tracer_metrics_scrapers{node="'"$NODE"'"} 1$' "$T/attacks"
check "tracerctl status answered within $STATUS_MAX_MS ms throughout (slowest $worst ms, $fails failed)" \
  [ "$worst" -le $STATUS_MAX_MS -a "$fails" = 0 ]
sleep 0.5
check "a run while 200 connections are held is traced whole ($(stored_procs during) processes)" [ "$(stored_procs during)" = 4 ]
curl -sf --max-time 5 "$URL" > "$T/m4"
check "the endpoint answers again after the attacks" grep -q '^tracer_metrics_scrape_refusals_total' "$T/m4"
echo "  refused or cut off: $(grep '^tracer_metrics_scrape_refusals_total' "$T/m4" | awk '{print $2}')"
# the hostile name, while it ran: one scrape of it
ctl run --name $'evil"\\\n\x1b]0;T\x07\xff\xfe{x="y"} 9' -- "$KEEPER" 3 > /dev/null 2>&1 &
EVIL=$!
sleep 1.5
curl -sf "$URL" > "$T/m5"
wait $EVIL
promtool check metrics < "$T/m5" > "$T/pt5" 2>&1
check "a run named with quotes, newline, escapes and invalid UTF-8: promtool clean" [ ! -s "$T/pt5" ]
check "its name is one escaped label value" \
  grep -qF 'unit="evil\"\\\\x0a\\x1b]0;T\\x07\\xff\\xfe{x=\"y\"} 9"' "$T/m5"
check "every line of it a comment or a tracer series" bash -c "! grep -qv -e '^#' -e '^tracer_' '$T/m5'"
kill $KEEP 2>/dev/null; wait $KEEP 2>/dev/null
hwm=$(hwm_kb)
echo "  tracerd VmHWM $hwm kB"
check "VmHWM $hwm kB <= $HWM_MAX_KB kB" [ "$hwm" -le $HWM_MAX_KB ]
finish
