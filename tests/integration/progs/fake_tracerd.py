#!/usr/bin/env python3
"""A fake tracerd for tests/integration/test_client_trust.sh: what a user (or a broken server)
could put where root's clients look for tracerd.

fake_tracerd.py SOCK MODE LOG [DROP_TO_USER]

MODE ok       answer every request line with {"v":1,"ok":true,"unit":{"id":7}}
MODE endless  after the request, send 'x' without end and without a newline
Each connection is logged to LOG: "accepted", then "request BYTES argv_cut=B nargs=N" once a
request line came, or "no request" when the client closed first; "sent BYTES" in endless mode.
With DROP_TO_USER the socket is bound as the caller, then the server takes that user's uid
before listen(): what SO_PEERCRED reports is that user.
"""
import json, os, pwd, socket, sys

SOCK, MODE, LOG = sys.argv[1:4]
DROP = sys.argv[4] if len(sys.argv) > 4 else None


def log(line):
    with open(LOG, "a") as f:
        f.write(line + "\n")


def serve(c):
    log("accepted")
    buf = b""
    while b"\n" not in buf:
        d = c.recv(65536)
        if not d:
            log("no request" if not buf else "partial request %d" % len(buf))
            return
        buf += d
    line = buf.split(b"\n", 1)[0]
    try:
        req = json.loads(line)
    except ValueError:
        req = {}
    log("request %d argv_cut=%s nargs=%d" % (len(line), req.get("argv_cut", False), len(req.get("argv", []))))
    if MODE == "ok":
        c.sendall(b'{"v":1,"ok":true,"unit":{"id":7}}\n')
        return
    sent, chunk = 0, b"x" * 65536
    try:
        while True:
            sent += c.send(chunk)
    except OSError:
        pass
    log("sent %d" % sent)


s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
if os.path.exists(SOCK):
    os.unlink(SOCK)
s.bind(SOCK)
os.chmod(SOCK, 0o777)
if DROP:
    pw = pwd.getpwnam(DROP)
    os.setgroups([])
    os.setgid(pw.pw_gid)
    os.setuid(pw.pw_uid)
s.listen(16)
log("listening")
while True:
    c, _ = s.accept()
    try:
        serve(c)
    finally:
        c.close()
