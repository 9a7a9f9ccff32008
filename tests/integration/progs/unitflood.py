#!/usr/bin/env python3
"""unitflood.py SOCK SECONDS CONNS: start a sleeping child, then ask tracerd to trace it again and
again (run_begin) for SECONDS on CONNS connections at once, each waiting for its reply; print
"ACCEPTED REFUSED" (test_store_fairness.sh)."""
import os, socket, subprocess, sys, threading, time

SOCK, SECONDS, CONNS = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
child = subprocess.Popen(["sleep", str(int(SECONDS) + 60)])
counts = {"ok": 0, "no": 0}
lock = threading.Lock()
end = time.monotonic() + SECONDS


def worker():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(SOCK)
    f = s.makefile("rb")
    req = b'{"v":1,"op":"run_begin","pid":%d}\n' % child.pid
    while time.monotonic() < end:
        s.sendall(req)
        line = f.readline()
        if not line:
            break
        with lock:
            counts["ok" if b'"ok": true' in line or b'"ok":true' in line else "no"] += 1
    s.close()


threads = [threading.Thread(target=worker) for _ in range(CONNS)]
for t in threads:
    t.start()
for t in threads:
    t.join()
child.kill()
child.wait()
print(counts["ok"], counts["no"])
