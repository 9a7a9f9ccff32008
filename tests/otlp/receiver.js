#!/usr/bin/env node
/* A test OTLP/HTTP receiver: decodes every request with the decoders that OpenTelemetry
 * publishes (@opentelemetry/otlp-transformer's generated protobufjs code), never with a parser
 * of our own, and writes down what it received.
 *
 *   node receiver.js --port N [--host 127.0.0.1] --out FILE [--stats FILE] [--port-file FILE]
 *                    [--mode MODE] [--control FILE] [--retry-after N] [--rejected N]
 *                    [--huge-bytes N] [--max-body N]
 *
 * Serves POST /v1/traces, /v1/logs and /v1/metrics with Content-Type application/x-protobuf or
 * application/json, optionally Content-Encoding gzip. A request that does not decode (bad gzip,
 * invalid UTF-8 in a string or a JSON body, a field of the wrong type, an unknown JSON key, an id
 * that is not hex of the right length, a oneof with two values) is answered 400 and counted.
 *
 * --out FILE: one JSON line per decoded span, log record or metric, appended:
 *   {"signal":"traces","encoding":"protobuf"|"json","gzip":bool,"resource":{attrs},
 *    "scope":{"name","version"},"traceId":hex,"spanId":hex,"parentSpanId":hex,"name",
 *    "kind":int,"start":"ns","end":"ns","status":{"code":int,"message"},"attributes":{...}}
 *   {"signal":"logs",...,"time":"ns","observed":"ns","severityNumber":int,"severityText",
 *    "body":value,"traceId":hex,"spanId":hex,"attributes":{...}}
 *   {"signal":"metrics",...,"name","description","unit","type":"sum"|"gauge"|"histogram"|
 *    "exponentialHistogram"|"summary","temporality":int,"monotonic":bool,"attributes":{...},
 *    "start":"ns","time":"ns","value":"int"|number|null}
 *   (one line per data point; an integer value (asInt) as a decimal string, a double as a
 *   number, "NaN"/"Infinity" as the JSON mapping writes them, null for a point of no number)
 * Attribute values flattened: strings, booleans and doubles as themselves, ints as decimal
 * strings, arrays as arrays, key-value lists as objects, bytes as base64. Items are written
 * only when the reply is a 2xx (modes ok, partial, huge, garbage).
 *
 * --stats FILE: rewritten after every request: {"requests","decoded","rejected","byMode":{},
 *   "byStatus":{},"items":{"traces","logs","metrics"},"lastError"}.
 * --port 0 listens on a free port; --port-file FILE receives the port once listening. The
 * port is also printed on stdout as "listening PORT".
 *
 * Modes (--mode, default ok):
 *   ok           200 and an empty Export*ServiceResponse
 *   fail503      503, the request still decoded and counted but not written to --out
 *   throttle429  429 with "Retry-After: N" (--retry-after, default 1)
 *   hang         reads the request and never answers (the connection stays open)
 *   huge         200 with a body of --huge-bytes (default 100 MB) bytes of 'x', streamed
 *   garbage      200 with bytes that are no Export*ServiceResponse in either encoding
 *   partial      200 with partial_success: rejected count --rejected (default 1) and a message
 *   status       the status N (control file "status N", default 401) with a text/plain reason
 *                that holds an escape sequence (ESC [2J), as a collector's proxy might answer
 * In every mode the request is read and decoded first (and counted in "decoded" or
 * "rejected"); a request that does not decode is answered 400 whatever the mode.
 *
 * Run-time switch: --control FILE is read at every request, so no signal is needed; when it
 * exists and is not empty, its first line "MODE [N]" replaces the mode (N: the Retry-After
 * seconds for throttle429, the rejected count for partial, the byte count for huge). Remove
 * the file to go back to --mode. SIGHUP is ignored; SIGTERM and SIGINT close every connection
 * (a hanging one too) and exit 0.
 *
 * From an integration test: lib.sh's otlp_receiver_start [options] runs it with --out, --stats
 * and --control under $T/otlp/ and sets OTLP_URL; finish stops it.
 */
"use strict";
const http = require("http");
const fs = require("fs");
const zlib = require("zlib");
const protobuf = require("protobufjs/minimal");
const root = require("@opentelemetry/otlp-transformer/build/src/generated/root.js");

const pb = root.opentelemetry.proto;
const SIGNALS = {
  "/v1/traces": { name: "traces", req: pb.collector.trace.v1.ExportTraceServiceRequest,
    resp: pb.collector.trace.v1.ExportTraceServiceResponse, rejectedKey: "rejectedSpans" },
  "/v1/logs": { name: "logs", req: pb.collector.logs.v1.ExportLogsServiceRequest,
    resp: pb.collector.logs.v1.ExportLogsServiceResponse, rejectedKey: "rejectedLogRecords" },
  "/v1/metrics": { name: "metrics", req: pb.collector.metrics.v1.ExportMetricsServiceRequest,
    resp: pb.collector.metrics.v1.ExportMetricsServiceResponse, rejectedKey: "rejectedDataPoints" },
};
const MODES = ["ok", "fail503", "throttle429", "hang", "huge", "garbage", "partial", "status"];
const ID_BYTES = { traceId: 16, spanId: 8, parentSpanId: 8 };

function parseArgs(argv) {
  const o = { port: 4318, host: "127.0.0.1", out: null, stats: null, portFile: null, mode: "ok",
    control: null, retryAfter: 1, rejected: 1, hugeBytes: 100 * 1024 * 1024, maxBody: 64 << 20 };
  const keys = { "--port": "port", "--host": "host", "--out": "out", "--stats": "stats",
    "--port-file": "portFile", "--mode": "mode", "--control": "control",
    "--retry-after": "retryAfter", "--rejected": "rejected", "--huge-bytes": "hugeBytes",
    "--max-body": "maxBody" };
  for (let i = 2; i < argv.length; i++) {
    const k = keys[argv[i]];
    if (!k || i + 1 >= argv.length) usage(`unknown or incomplete option ${argv[i]}`);
    const v = argv[++i];
    o[k] = typeof o[k] === "number" ? Number(v) : v;
    if (typeof o[k] === "number" && !Number.isInteger(o[k])) usage(`${argv[i - 1]}: not a number`);
  }
  if (!MODES.includes(o.mode)) usage(`unknown mode ${o.mode}`);
  if (!o.out) usage("--out is required");
  return o;
}

function usage(msg) {
  process.stderr.write(`receiver.js: ${msg}\n`);
  process.exit(2);
}

const opt = parseArgs(process.argv);
const stats = { requests: 0, decoded: 0, rejected: 0, byMode: {}, byStatus: {},
  items: { traces: 0, logs: 0, metrics: 0 }, lastError: null };

/* Strings in protobuf must be valid UTF-8 (proto3): decode them strictly, so that an invalid
 * byte fails the request instead of turning silently into U+FFFD here. */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
function strictString() {
  return strictUtf8.decode(this.bytes());
}
protobuf.Reader.prototype.string = strictString;
if (protobuf.BufferReader) protobuf.BufferReader.prototype.string = strictString;

/* The current mode and its number: the control file's first line, or the command line's */
function currentMode() {
  let m = opt.mode, n = null;
  if (opt.control) {
    let text = "";
    try {
      text = fs.readFileSync(opt.control, "utf8");
    } catch (e) {
      if (e.code !== "ENOENT") throw e;
    }
    const w = text.split("\n")[0].trim().split(/\s+/);
    if (w[0]) {
      if (!MODES.includes(w[0])) throw new Error(`control file: unknown mode ${w[0]}`);
      m = w[0];
      if (w[1] !== undefined) n = Number(w[1]);
    }
  }
  return { mode: m, n };
}

/* OTLP/JSON: ids are hex, not base64 (the one departure from the protobuf JSON mapping).
 * Returns a copy with ids as bytes; throws on an id that is not hex of its length. */
function idsFromHex(v, path) {
  if (Array.isArray(v)) return v.map((e, i) => idsFromHex(e, `${path}[${i}]`));
  if (v === null) throw new Error(`${path}: null`);
  if (typeof v !== "object") return v;
  const o = {};
  for (const [k, e] of Object.entries(v)) {
    if (k in ID_BYTES && typeof e === "string") {
      if (e !== "" && !new RegExp(`^[0-9a-fA-F]{${2 * ID_BYTES[k]}}$`).test(e))
        throw new Error(`${path}.${k}: not ${ID_BYTES[k]} bytes of hex: ${JSON.stringify(e)}`);
      o[k] = Buffer.from(e, "hex");
    } else {
      o[k] = idsFromHex(e, `${path}.${k}`);
    }
  }
  return o;
}

/* The published fromObject ignores keys it does not know and converts what it is given; so
 * every key and value of the request must come back, with its type, from toObject of what
 * fromObject made: a misspelt key, a wrong type or an enum by name fails. asStr is toObject
 * with 64-bit ints as strings, asNum with them as numbers (which tells an int64 from a string). */
function sameAsDecoded(inp, asStr, asNum, path) {
  if (Array.isArray(inp)) {
    if (!Array.isArray(asStr) || asStr.length !== inp.length)
      throw new Error(`${path}: array not kept`);
    inp.forEach((e, i) => sameAsDecoded(e, asStr[i], asNum[i], `${path}[${i}]`));
    return;
  }
  if (inp !== null && typeof inp === "object") {
    if (asStr === null || typeof asStr !== "object" || Array.isArray(asStr))
      throw new Error(`${path}: object expected`);
    for (const [k, e] of Object.entries(inp)) {
      if (!(k in asStr)) throw new Error(`${path}.${k}: unknown field`);
      if (k in ID_BYTES && typeof e === "string") {
        if (Buffer.from(asStr[k], "base64").toString("hex") !== e.toLowerCase())
          throw new Error(`${path}.${k}: id not kept`);
        continue;
      }
      sameAsDecoded(e, asStr[k], asNum[k], `${path}.${k}`);
    }
    return;
  }
  const isInt64 = typeof asStr === "string" && typeof asNum === "number";
  if (isInt64) {
    const ok = (typeof inp === "string" && /^-?[0-9]+$/.test(inp)) ||
      (typeof inp === "number" && Number.isSafeInteger(inp));
    if (!ok || String(inp) !== asStr) throw new Error(`${path}: not a 64-bit integer: ${inp}`);
  } else if (typeof inp !== typeof asStr || (inp !== asStr && !(Number.isNaN(inp) && Number.isNaN(asStr)))) {
    throw new Error(`${path}: ${JSON.stringify(inp)} is not of the field's type`);
  }
}

function decodeJson(Type, body) {
  const text = strictUtf8.decode(body); /* throws on invalid UTF-8 */
  const inp = JSON.parse(text);
  if (inp === null || typeof inp !== "object" || Array.isArray(inp))
    throw new Error("request: not an object");
  const msg = Type.fromObject(idsFromHex(inp, "request"));
  const err = Type.verify(msg);
  if (err) throw new Error(err);
  const base = { enums: Number, bytes: String, arrays: true, json: true };
  sameAsDecoded(inp, Type.toObject(msg, { ...base, longs: String }),
    Type.toObject(msg, { ...base, longs: Number }), "request");
  return msg;
}

function decodeProtobuf(Type, body) {
  const msg = Type.decode(body);
  const err = Type.verify(msg);
  if (err) throw new Error(err);
  return msg;
}

const hex = (b) => Buffer.from(b || []).toString("hex");
const str64 = (v) => (v === undefined || v === null ? "0" : v.toString());

function flatValue(v) {
  if (!v) return null;
  if (v.stringValue !== undefined && v.hasOwnProperty("stringValue")) return v.stringValue;
  if (v.hasOwnProperty("boolValue")) return v.boolValue;
  if (v.hasOwnProperty("intValue")) return str64(v.intValue);
  if (v.hasOwnProperty("doubleValue")) return v.doubleValue;
  if (v.hasOwnProperty("arrayValue")) return (v.arrayValue.values || []).map(flatValue);
  if (v.hasOwnProperty("kvlistValue")) return flatAttrs(v.kvlistValue.values);
  if (v.hasOwnProperty("bytesValue")) return Buffer.from(v.bytesValue).toString("base64");
  return null;
}

function flatAttrs(kvs) {
  const o = {};
  for (const kv of kvs || []) o[kv.key] = flatValue(kv.value);
  return o;
}

/* One JSON line per item of a decoded request */
function items(signal, msg, encoding, gzip) {
  const out = [];
  const each = (list, scopedKey, itemsKey, fn) => {
    for (const r of list || []) {
      const resource = flatAttrs(r.resource && r.resource.attributes);
      for (const s of r[scopedKey] || []) {
        const scope = { name: (s.scope && s.scope.name) || "", version: (s.scope && s.scope.version) || "" };
        for (const it of s[itemsKey] || [])
          for (const o of [].concat(fn(it)))
            out.push({ signal, encoding, gzip, resource, scope, ...o });
      }
    }
  };
  if (signal === "traces")
    each(msg.resourceSpans, "scopeSpans", "spans", (sp) => ({
      traceId: hex(sp.traceId), spanId: hex(sp.spanId), parentSpanId: hex(sp.parentSpanId),
      name: sp.name, kind: sp.kind || 0, start: str64(sp.startTimeUnixNano),
      end: str64(sp.endTimeUnixNano),
      status: { code: (sp.status && sp.status.code) || 0, message: (sp.status && sp.status.message) || "" },
      attributes: flatAttrs(sp.attributes),
    }));
  else if (signal === "logs")
    each(msg.resourceLogs, "scopeLogs", "logRecords", (lr) => ({
      time: str64(lr.timeUnixNano), observed: str64(lr.observedTimeUnixNano),
      severityNumber: lr.severityNumber || 0, severityText: lr.severityText || "", body: flatValue(lr.body),
      traceId: hex(lr.traceId), spanId: hex(lr.spanId), attributes: flatAttrs(lr.attributes),
    }));
  else
    each(msg.resourceMetrics, "scopeMetrics", "metrics", (m) => {
      const type = ["sum", "gauge", "histogram", "exponentialHistogram", "summary"].find((t) => m[t]);
      if (!type) throw new Error(`metric ${JSON.stringify(m.name)}: no data`);
      const d = m[type];
      return (d.dataPoints || []).map((p) => {
        const has = (k) => Object.prototype.hasOwnProperty.call(p, k) && p[k] !== null;
        let value = null;
        if (has("asInt") && has("asDouble")) throw new Error(`metric ${m.name}: a point of two values`);
        if (has("asInt")) value = str64(p.asInt);
        else if (has("asDouble")) value = Number.isFinite(p.asDouble) ? p.asDouble : String(p.asDouble);
        return { name: m.name, description: m.description || "", unit: m.unit || "", type,
          temporality: d.aggregationTemporality || 0, monotonic: !!d.isMonotonic,
          attributes: flatAttrs(p.attributes), start: str64(p.startTimeUnixNano),
          time: str64(p.timeUnixNano), value };
      });
    });
  return out;
}

function writeStats() {
  if (!opt.stats) return;
  const tmp = `${opt.stats}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(stats) + "\n");
  fs.renameSync(tmp, opt.stats);
}

function count(map, key) {
  map[key] = (map[key] || 0) + 1;
}

function reply(res, status, headers, body) {
  count(stats.byStatus, String(status));
  writeStats();
  res.writeHead(status, { "Content-Length": Buffer.byteLength(body), ...headers });
  res.end(body);
}

function rejectRequest(res, status, why) {
  stats.rejected++;
  stats.lastError = why;
  process.stderr.write(`receiver.js: rejected (${status}): ${why}\n`);
  reply(res, status, { "Content-Type": "text/plain" }, why + "\n");
}

function answer(res, sig, json, mode, n) {
  const type = json ? "application/json" : "application/x-protobuf";
  const encode = (obj) => {
    const m = sig.resp.fromObject(obj);
    return json ? JSON.stringify(sig.resp.toObject(m, { longs: String, json: true }))
      : Buffer.from(sig.resp.encode(m).finish());
  };
  switch (mode) {
  case "fail503":
    return reply(res, 503, { "Content-Type": "text/plain" }, "unavailable\n");
  case "status": {
    const code = Number(n ?? 401);
    return reply(res, code, { "Content-Type": "text/plain" },
      `test receiver: HTTP ${code}: invalid api key \x1b[2J for tenant t1\n`);
  }
  case "throttle429":
    return reply(res, 429, { "Content-Type": "text/plain", "Retry-After": String(n ?? opt.retryAfter) },
      "slow down\n");
  case "garbage":
    return reply(res, 200, { "Content-Type": type },
      json ? "{\"partialSuccess\": [1, 2" : Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]));
  case "partial":
    return reply(res, 200, { "Content-Type": type }, encode({ partialSuccess: {
      [sig.rejectedKey]: String(n ?? opt.rejected), errorMessage: "rejected by the test receiver" } }));
  case "huge": {
    const total = n ?? opt.hugeBytes, chunk = Buffer.alloc(1 << 20, "x");
    count(stats.byStatus, "200");
    writeStats();
    res.writeHead(200, { "Content-Type": type, "Content-Length": total });
    let left = total;
    const pump = () => {
      while (left > 0) {
        const c = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= c.length;
        if (!res.write(c)) return res.once("drain", pump);
      }
      res.end();
    };
    res.on("error", () => {});
    return pump();
  }
  default:
    return reply(res, 200, { "Content-Type": type }, encode({}));
  }
}

function handle(req, res, body) {
  stats.requests++;
  let mode, n;
  try {
    ({ mode, n } = currentMode());
  } catch (e) {
    return rejectRequest(res, 500, e.message);
  }
  count(stats.byMode, mode);
  const sig = SIGNALS[req.url.split("?")[0]]; // a query (an api key) is no part of the path
  if (!sig) return rejectRequest(res, 404, `no signal at ${req.url}`);
  if (req.method !== "POST") return rejectRequest(res, 405, `${req.method} is not POST`);
  const ctype = (req.headers["content-type"] || "").split(";")[0].trim().toLowerCase();
  if (ctype !== "application/json" && ctype !== "application/x-protobuf")
    return rejectRequest(res, 415, `content type ${JSON.stringify(ctype)}`);
  const json = ctype === "application/json";
  const cenc = (req.headers["content-encoding"] || "identity").trim().toLowerCase();
  let msg, raw;
  try {
    if (cenc === "gzip") raw = zlib.gunzipSync(body, { maxOutputLength: opt.maxBody });
    else if (cenc === "identity") raw = body;
    else throw new Error(`content encoding ${cenc}`);
    msg = json ? decodeJson(sig.req, raw) : decodeProtobuf(sig.req, raw);
  } catch (e) {
    return rejectRequest(res, 400, `${sig.name} ${json ? "json" : "protobuf"}: ${e.message}`);
  }
  stats.decoded++;
  if (mode === "hang") {
    writeStats();
    return; /* the connection stays open until the client gives up */
  }
  if (["ok", "partial", "huge", "garbage"].includes(mode)) {
    const lines = items(sig.name, msg, json ? "json" : "protobuf", cenc === "gzip");
    stats.items[sig.name] += lines.length;
    if (lines.length)
      fs.appendFileSync(opt.out, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  }
  answer(res, sig, json, mode, n);
}

fs.closeSync(fs.openSync(opt.out, "a"));
const sockets = new Set();
const server = http.createServer((req, res) => {
  const parts = [];
  let size = 0, over = false;
  req.on("data", (c) => {
    size += c.length;
    if (size > opt.maxBody) over = true;
    else parts.push(c);
  });
  req.on("end", () => {
    if (over) {
      stats.requests++;
      return rejectRequest(res, 413, `body over ${opt.maxBody} bytes`);
    }
    try {
      handle(req, res, Buffer.concat(parts));
    } catch (e) { /* a fault of the receiver's own: say so, and keep serving */
      process.stderr.write(`receiver.js: ${e.stack}\n`);
      if (!res.headersSent) rejectRequest(res, 500, `receiver fault: ${e.message}`);
    }
  });
  req.on("error", () => {});
});
server.on("connection", (s) => {
  sockets.add(s);
  s.on("close", () => sockets.delete(s));
});
server.listen(opt.port, opt.host, () => {
  const port = server.address().port;
  if (opt.portFile) fs.writeFileSync(opt.portFile, `${port}\n`);
  writeStats();
  process.stdout.write(`listening ${port}\n`);
});
const stop = () => {
  server.close();
  for (const s of sockets) s.destroy();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
process.on("SIGHUP", () => {});
