#!/usr/bin/env bash
# tracer's OTLP request bodies as a real receiver reads them: tests/otlp/receiver.js decodes each
# with OpenTelemetry's published decoders. Every sample of build/tests/otlp_samples (hostile
# names, values, argv and bodies; protobuf and JSON; gzipped or not; traces, logs and metrics) must
# decode; then what the receiver got is checked against what each sample's strings must become
# (worked out here on their own: Python's UTF-8 decoding, the cut rule of otlp.h), the same
# whichever the encoding. The receiver is shown to refuse what it should (invalid UTF-8, base64
# ids), so that its yes means something. No daemon, no cluster.
# lane: daemon cpu: 0.4
. "$(dirname "$0")/lib.sh"

SAMPLES=$BUILD/tests/otlp_samples
make -s -C "$TOP" build/tests/otlp_samples > "$T/make.log" 2>&1 ||
  { cat "$T/make.log"; fail "build otlp_samples"; finish; exit 1; }
otlp_receiver_start || { finish; exit 1; }
mkdir -p "$T/bodies"
check "encode the samples" "$SAMPLES" "$T/bodies"

post_raw() { # CONTENT-TYPE FILE: a trace request; prints the HTTP status
  curl -s -o /dev/null -w '%{http_code}' -H "Content-Type: $1" --data-binary "@$2" "$OTLP_URL/v1/traces"
}
post() { # FILE: prints the HTTP status
  local f=$1 name signal ctype=application/x-protobuf enc=()
  name=$(basename "$f")
  signal=$(echo "$name" | cut -d. -f2)
  case $name in *.json | *.json.gz) ctype=application/json ;; esac
  case $name in *.gz) enc=(-H "Content-Encoding: gzip") ;; esac
  curl -s -o /dev/null -w '%{http_code}' -H "Content-Type: $ctype" "${enc[@]}" \
    --data-binary "@$f" "$OTLP_URL/v1/$signal"
}

posted=0 bad=0
for f in "$T"/bodies/*; do
  code=$(post "$f")
  posted=$((posted + 1))
  [ "$code" = 200 ] || { bad=$((bad + 1)); echo "    $(basename "$f"): HTTP $code"; }
done
[ "$posted" = 84 ] && ok "84 bodies posted (7 samples, 3 signals, 2 encodings, gzip or not)" ||
  fail "posted $posted bodies, want 84"
[ "$bad" = 0 ] && ok "the receiver decoded every body" || {
  fail "$bad bodies refused"; tail -5 "$T/otlp/receiver.log"; }
check "the receiver counts $posted decoded, none rejected" python3 - "$T/otlp/stats.json" "$posted" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
sys.exit(0 if s["decoded"] == int(sys.argv[2]) and s["rejected"] == 0 else 1)
PY

# What each sample's strings must become, and the same items whatever the encoding
check "decoded items: hex ids, valid UTF-8, strings cut where expected, equal in all encodings" \
  python3 - "$T/otlp/items.jsonl" <<'PY'
import json, re, sys
from collections import defaultdict

MAX, MARK = 4096, "\u2026"

def clean(b):  # the samples hold no cut multi-byte prefix: one U+FFFD per bad byte here too
    return b.decode("utf-8", "replace")

def cut(s, limit=MAX):
    if len(s.encode()) <= limit:
        return s, False
    out = ""
    for ch in s:
        if len((out + ch).encode()) + len(MARK.encode()) > limit:
            break
        out += ch
    return out + MARK, True

def strings(blob):  # NUL-terminated strings back to back, the last maybe not terminated
    if blob.endswith(b"\0"):
        blob = blob[:-1]
    items, budget = [], MAX
    for e in blob.split(b"\0") if blob else []:
        if budget == 0:
            items.append(MARK)
            break
        c, was_cut = cut(clean(e), budget - 1)
        items.append(c)
        budget -= min(len(c.encode()) + 1, budget)
        if was_cut:
            break
    return items

def first(s):
    return cut(clean(s))[0]

xs, es, euros = b"x" * 5000, "\u00e9".encode() * 5000, "\u20ac".encode() * 2000
want = {  # sample: name, value, body, status message, argv blob
    "plain": (b"samtools", b"sort", b"oom kill of samtools", None, b"samtools\0sort\0-o\0x.bam"),
    "invalid-utf8": (b"bad\xff\xfename", b"\xc3(", b"b\xed\xa0\x80dy", b"st\xf4\x90\x80\x80",
                     b"a\xc0\xaf\0"),
    "controls": (b'q"b\\s\x01\x1b[2J\n\t', b"\x7f\x1f\r", b"line1\nline2\x07", b'exit "1"', b"x"),
    "long-ascii": (xs, b"v" * 200000, b"v" * 200000, xs, b"arg\0" * 3000),
    "long-multibyte": (es, euros, es, None, euros),
    "argv-nul": (b"sh", b"", b"", None, b'sh\0-c\0echo "hi" \\\\ \x01\0\0bad\xff\xfe\0'),
    "many": (b"step", b"v", b"b", b"failed", b"a\0b"),
}

def utf8_ok(v):
    if isinstance(v, str):
        v.encode("utf-8")  # raises on a lone surrogate: invalid UTF-8 got through
    elif isinstance(v, list):
        for e in v: utf8_ok(e)
    elif isinstance(v, dict):
        for k, e in v.items(): utf8_ok(k); utf8_ok(e)

errors = []
def expect(what, got, exp):
    if got != exp:
        errors.append(f"{what}: got {str(got)[:120]!r}, want {str(exp)[:120]!r}")

groups = defaultdict(list)
for line in open(sys.argv[1]):
    it = json.loads(line)
    utf8_ok(it)
    groups[(it["attributes"]["sample"], it["signal"], it["encoding"], it["gzip"])].append(it)

for sample, (name, value, body, status, argv) in want.items():
    n = 200 if sample == "many" else 1
    for signal in ("traces", "logs", "metrics"):
        variants = [groups.get((sample, signal, e, g), []) for e in ("protobuf", "json") for g in (False, True)]
        for v in variants:  # metrics: a point of each of the two metrics per item
            expect(f"{sample} {signal}: items", len(v), 2 * n if signal == "metrics" else n)
        strip = lambda v: [{k: x for k, x in it.items() if k not in ("encoding", "gzip")} for it in v]
        for v in variants[1:]:
            if strip(v) != strip(variants[0]):
                errors.append(f"{sample} {signal}: encodings disagree")
        for i, it in enumerate(variants[0]):
            w = f"{sample} {signal} #{i}"
            if signal == "metrics":
                continue  # below
            if not re.fullmatch(r"[0-9a-f]{32}", it["traceId"]) or not re.fullmatch(r"[0-9a-f]{16}", it["spanId"]):
                errors.append(f"{w}: ids {it['traceId']} {it['spanId']}")
            a = it["attributes"]
            expect(f"{w} value", a["value"], first(value))
            expect(f"{w} argv", a["process.command_args"], strings(argv))
            expect(f"{w} ints", (a["process.pid"], a["process.exit_code"]), ("4242", "-9"))
            expect(f"{w} double, bool", (a["cpu.ratio"], a["oom"]), (0.25, True))
            expect(f"{w} resource", it["resource"], {"service.name": "tracer", "host.name": "node\ufffd1"})
            expect(f"{w} scope", it["scope"], {"name": "tracer", "version": "0.1"})
            if signal == "traces":
                expect(f"{w} name", it["name"], first(name))
                expect(f"{w} kind", it["kind"], 1)
                expect(f"{w} start, end", (it["start"], it["end"]),
                       (str(1700000000123456789 + i), str(1700000001987654321 + i)))
                expect(f"{w} status", it["status"],
                       {"code": 2 if status else 0, "message": first(status) if status else ""})
                expect(f"{w} parent", it["parentSpanId"], variants[0][0]["spanId"] if i else "")
            else:
                expect(f"{w} body", it["body"], first(body))
                expect(f"{w} severity", (it["severityNumber"], it["severityText"]), (17, "ERROR"))
                expect(f"{w} times", (it["time"], it["observed"]),
                       (str(1700000001987654321 + i), str(1700000001987654322 + i)))
        if sample == "many" and signal != "metrics":
            expect("many: distinct span ids", len({it["spanId"] for it in variants[0]}), n)
    # metrics: a cumulative sum of doubles named and described as the span, then a gauge of ints
    pts = groups.get((sample, "metrics", "protobuf", False), [])
    for k, it in enumerate(pts):
        i, w = k % n, f"{sample} metrics #{k}"
        a = it["attributes"]
        expect(f"{w} value attr", a["value"], first(value))
        expect(f"{w} argv", a["process.command_args"], strings(argv))
        expect(f"{w} ints, double, bool", (a["process.pid"], a["cpu.ratio"], a["oom"]), ("4242", 0.25, True))
        expect(f"{w} resource, scope", (it["resource"], it["scope"]),
               ({"service.name": "tracer", "host.name": "node\ufffd1"}, {"name": "tracer", "version": "0.1"}))
        if k < n:
            expect(f"{w} sum", (it["name"], it["description"], it["unit"], it["type"], it["temporality"],
                                it["monotonic"], it["value"]),
                   (first(name), first(status) if status else "", "s", "sum", 2, True, 1.5 + i))
            expect(f"{w} times", (it["start"], it["time"]),
                   (str(1700000000123456789 + i), str(1700000001987654321 + i)))
        else:
            expect(f"{w} gauge", (it["name"], it["unit"], it["type"], it["temporality"], it["monotonic"],
                                  it["value"], it["start"], it["time"]),
                   ("tracer.job.processes.running", "{process}", "gauge", 0, False, str(-4242 - i), "0",
                    str(1700000001987654321 + i)))

# the cut strings are as long as the rule allows, never longer
for it in groups[("long-multibyte", "traces", "protobuf", False)]:
    expect("long-multibyte name bytes", len(it["name"].encode()), 2046 * 2 + 3)
for it in groups[("long-ascii", "traces", "json", True)]:
    expect("long-ascii argv: 1024 strings and the mark", len(it["attributes"]["process.command_args"]), 1025)
for e in errors[:20]:
    print("   ", e)
sys.exit(1 if errors else 0)
PY

# The receiver refuses what a collector must refuse: its yes above means something
printf '\x0a\x07\x12\x05\x12\x03\x2a\x01\xff' > "$T/bad-utf8.pb" # a span named "\xff"
code=$(post_raw application/x-protobuf "$T/bad-utf8.pb")
[ "$code" = 400 ] && ok "a protobuf string of invalid UTF-8 is refused" || fail "invalid UTF-8: HTTP $code"
sed 's/"traceId":"[0-9a-f]*"/"traceId":"AQIDBAUGBwgJCgsMDQ4PEA=="/' "$T/bodies/plain.traces.json" > "$T/base64-ids.json"
code=$(post_raw application/json "$T/base64-ids.json")
[ "$code" = 400 ] && ok "JSON with base64 ids (not hex) is refused" || fail "base64 ids: HTTP $code"
sed 's/"kind":1/"kind":"SPAN_KIND_INTERNAL"/' "$T/bodies/plain.traces.json" > "$T/enum-name.json"
code=$(post_raw application/json "$T/enum-name.json")
[ "$code" = 400 ] && ok "JSON with an enum by name (the specification writes integers) is refused" ||
  fail "enum by name: HTTP $code"
sed 's/"startTimeUnixNano"/"startTime"/' "$T/bodies/plain.traces.json" > "$T/unknown-key.json"
code=$(post_raw application/json "$T/unknown-key.json")
[ "$code" = 400 ] && ok "JSON with a key the schema does not have is refused" || fail "unknown key: HTTP $code"

# The receiver's replies as otlp_decode_response reads them: a partial success its published
# encoder wrote, in both encodings, and garbage
reply() { # MODE FORMAT BODY: what the reply to BODY decodes to
  echo "$1" > "$T/otlp/control"
  curl -s -o "$T/reply" -H "Content-Type: $([ "$2" = json ] && echo application/json || echo application/x-protobuf)" \
    --data-binary "@$3" "$OTLP_URL/v1/traces"
  "$SAMPLES" --reply "$2" "$T/reply"
}
got=$(reply "partial 7" pb "$T/bodies/plain.traces.pb")
[ "$got" = "rejected 7 message rejected by the test receiver" ] && ok "a protobuf partial success read: $got" ||
  fail "protobuf partial success read as: $got"
got=$(reply "partial 9" json "$T/bodies/plain.traces.json")
[ "$got" = "rejected 9 message rejected by the test receiver" ] && ok "a JSON partial success read: $got" ||
  fail "JSON partial success read as: $got"
got=$(reply ok pb "$T/bodies/plain.traces.pb")
[ "$got" = "rejected 0 message " ] && ok "an empty success read as no rejection" || fail "success read as: $got"
for fmt in pb json; do
  got=$(reply garbage $fmt "$T/bodies/plain.traces.$fmt")
  [ "$got" = "error Bad message" ] && ok "a garbage $fmt reply is refused" || fail "garbage $fmt reply read as: $got"
done
rm -f "$T/otlp/control"

finish
