#!/usr/bin/env python3
"""What an unprivileged user can throw at tracerd's control socket (tests/integration/test_attacks.sh).

attacker.py SOCK hold N SECONDS            open N connections, hold them; print how many stayed open
attacker.py SOCK newlines MB CONNS         send MB MiB of newlines over CONNS connections at once
attacker.py SOCK requests MB CONNS         the same with valid requests, never reading a reply
attacker.py SOCK longline MB               one MB MiB line without a newline
attacker.py SOCK trickle CONNS SECONDS     one byte per second on each connection; print when each was closed
attacker.py SOCK idle SECONDS              connect, say nothing; print when the daemon closed it
attacker.py SOCK slowlist UNIT CONNS SECS [close]
                                           ask for UNIT's processes on CONNS connections, read 100 bytes
                                           per second on each; print the bytes read and how many
                                           connections the daemon let go (read to the end at full
                                           speed after SECS; with close, closed then: 0 let go)
attacker.py SOCK run_end UNIT              ask to end UNIT; print the reply
attacker.py SOCK zombies N                 N times: fork a child that exits at once and, before
                                           reaping it, ask to trace its pid; print "PID accepted|refused"
attacker.py SOCK status_watch OUTFILE      (root) ask for status every 50 ms until SIGTERM; write the slowest answer in ms
attacker.py SOCK status_probe N OUTFILE    (root) the same, N times: write the slowest answer in ms, the failures
                                           and every answer's time (PROBE_TIMEOUT: seconds, 2)
"""
import os, select, signal, socket, sys, threading, time

SOCK = sys.argv[1]
WHAT = sys.argv[2]
ARGS = sys.argv[3:]


def connect():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(SOCK)
    return s


FLOOD_SECONDS = 10  # a flood stops here even when the daemon took less than asked


def flood(total, chunk, conns):
    """Send total bytes of chunk over conns connections at once, reconnecting when closed;
    print the bytes the daemon's sockets took."""
    sent = [0]
    lock = threading.Lock()
    end = time.monotonic() + FLOOD_SECONDS

    def worker():
        s = None
        while time.monotonic() < end:
            with lock:
                if sent[0] >= total:
                    break
            try:
                if s is None:
                    s = connect()
                    s.settimeout(1)
                n = s.send(chunk)
                with lock:
                    sent[0] += n
            except OSError:
                if s is not None:
                    s.close()
                s = None
                time.sleep(0.001)
        if s is not None:
            s.close()

    threads = [threading.Thread(target=worker) for _ in range(conns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(sent[0])


def closed_by_peer(s):
    try:
        data = s.recv(4096)
    except OSError:
        return True, b""
    return data == b"" or b'"ok":false' in data, data


if WHAT == "hold":
    n, secs = int(ARGS[0]), float(ARGS[1])
    socks = []
    for _ in range(n):
        try:
            socks.append(connect())
        except OSError:
            pass
    time.sleep(secs)
    alive = 0
    for s in socks:
        s.setblocking(False)
        try:
            s.recv(1)  # a refusal, or the end of a connection the daemon let go
        except BlockingIOError:
            alive += 1  # nothing to read and not closed: the daemon still holds it
        except OSError:
            pass
    print(alive)
elif WHAT == "newlines":
    flood(int(ARGS[0]) << 20, b"\n" * 65536, int(ARGS[1]))
elif WHAT == "requests":
    req = b'{"v":1,"op":"status"}\n'
    flood(int(ARGS[0]) << 20, req * (65536 // len(req)), int(ARGS[1]))
elif WHAT == "longline":
    flood(int(ARGS[0]) << 20, b"x" * 65536, 1)
elif WHAT == "trickle":
    n, secs = int(ARGS[0]), float(ARGS[1])
    socks = [connect() for _ in range(n)]
    t0 = time.time()
    closed = {}
    while time.time() - t0 < secs and len(closed) < n:
        for i, s in enumerate(socks):
            if i in closed:
                continue
            try:
                s.send(b"{")
            except OSError:
                closed[i] = time.time() - t0
        r, _, _ = select.select([s for i, s in enumerate(socks) if i not in closed], [], [], 1.0)
        for s in r:
            gone, _ = closed_by_peer(s)
            if gone:
                closed[socks.index(s)] = time.time() - t0
    print(" ".join("%.1f" % closed.get(i, -1) for i in range(n)))
elif WHAT == "idle":
    s = connect()
    t0 = time.time()
    s.settimeout(float(ARGS[0]))
    try:
        gone = s.recv(1) == b""
    except socket.timeout:
        gone = False
    print("%.1f" % (time.time() - t0) if gone else "open")
elif WHAT == "slowlist":
    unit, n, secs = int(ARGS[0]), int(ARGS[1]), float(ARGS[2])
    socks = []
    for _ in range(n):
        s = connect()
        s.sendall(b'{"v":1,"op":"processes","unit":%d}\n' % unit)
        socks.append(s)
    got = 0
    end = time.monotonic() + secs
    while time.monotonic() < end:
        for s in socks:
            s.settimeout(0.1)
            try:
                got += len(s.recv(100))
            except OSError:
                pass
        time.sleep(1)
    # then read at full speed: a connection the daemon let go ends before the reply does
    closed = 0
    for s in socks if ARGS[3:] != ["close"] else []:
        s.settimeout(2)
        tail = b""
        try:
            while True:
                chunk = s.recv(1 << 16)
                if not chunk:
                    closed += 1
                    break
                tail = (tail + chunk)[-3:]
                if tail == b"]}\n":
                    break
        except OSError:
            pass
    print(got, closed)
elif WHAT == "run_end":
    s = connect()
    s.settimeout(10)
    s.sendall(b'{"v":1,"op":"run_end","unit":%d}\n' % int(ARGS[0]))
    print(s.recv(65536).decode().strip())
elif WHAT == "zombies":
    for i in range(int(ARGS[0])):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        # a zombie now: exited, not reaped (waited for, not slept for: on a busy machine a
        # child 50 ms old had not always exited, and its registration, a live process of the
        # user's own, was rightly accepted)
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
        s = connect()
        s.sendall(b'{"v":1,"op":"run_begin","name":"plant%d","pid":%d}\n' % (i, pid))
        reply = s.recv(65536)
        s.close()
        os.waitpid(pid, 0)
        print(pid, "accepted" if b'"ok":true' in reply else "refused", flush=True)
elif WHAT in ("status_watch", "status_probe"):
    probes = int(ARGS[0]) if WHAT == "status_probe" else -1
    out = ARGS[-1]
    stop = [False]
    signal.signal(signal.SIGTERM, lambda *_: stop.__setitem__(0, True))
    worst, fails, times = 0.0, 0, []
    while not stop[0] and probes != 0:
        probes -= 1
        t0 = time.monotonic()
        try:
            s = connect()
            s.settimeout(float(os.environ.get("PROBE_TIMEOUT", "2")))
            s.sendall(b'{"v":1,"op":"status"}\n')
            data = b""
            while not data.endswith(b"\n"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            s.close()
            if b'"ok":true' not in data:
                fails += 1
        except OSError:
            fails += 1
        times.append((time.monotonic() - t0) * 1000)
        worst = max(worst, times[-1])
        time.sleep(0.05)
    with open(out, "w") as f:
        f.write("%.1f %d" % (worst, fails))
        f.write(" %s\n" % " ".join("%.0f" % t for t in times) if WHAT == "status_probe" else "\n")
else:
    sys.exit(__doc__)
