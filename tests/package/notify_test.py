#!/usr/bin/env python3
"""systemd's notify protocol, spoken to a socket of our own (no systemd
needed): the server in http mode under NOTIFY_SOCKET and WATCHDOG_USEC.

  1. READY=1 comes once it listens (and its journal opened), naming the URL
     that then answers /readyz; WATCHDOG=1 pings follow (the watchdog's round trips
     through the supervisor actor); SIGTERM brings STOPPING=1 and exit 0.
  2. A journal that cannot open (its directory is under a regular file):
     a STATUS= line says why and no READY=1 comes, however many pings do.

Usage: notify_test.py BINARY. Waits for messages, never for time to pass
(each wait is bounded, for a failing server).
"""
import os
import signal
import socket
import subprocess
import sys
import tempfile
import urllib.request

BINARY = sys.argv[1]
WAIT_S = 20  # bound on any one message: a broken server fails, not hangs


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


class Server:
    def __init__(self, tmp, name, args):
        self.path = os.path.join(tmp, name + ".sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.settimeout(WAIT_S)
        env = dict(os.environ, NOTIFY_SOCKET=self.path,
                   WATCHDOG_USEC="200000")  # a ping every 100 ms
        env.pop("WATCHDOG_PID", None)
        self.stderr = open(os.path.join(tmp, name + ".log"), "w+")
        self.proc = subprocess.Popen(
            [BINARY, "http", "--listen", "127.0.0.1:0"] + args,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=self.stderr, env=env)
        self.seen = []

    def next(self):
        try:
            data = self.sock.recv(4096).decode()
        except socket.timeout:
            self.stop()
            fail(f"no notify message within {WAIT_S} s after {self.seen}; "
                 f"log:\n{self.log()}")
        self.seen.append(data)
        return dict(line.split("=", 1) for line in data.split("\n") if line)

    def until(self, key):
        while True:
            msg = self.next()
            if key in msg:
                return msg

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=WAIT_S)

    def log(self):
        self.stderr.seek(0)
        return self.stderr.read()


with tempfile.TemporaryDirectory() as tmp:
    # 1. ready, pings, stopping
    s = Server(tmp, "ok", ["--data-dir", os.path.join(tmp, "data")])
    ready = s.until("READY")
    if ready["READY"] != "1":
        fail(f"READY={ready['READY']}")
    status = ready.get("STATUS", "")
    prefix = "serving MCP over HTTP at "
    if not status.startswith(prefix):
        fail(f"READY's STATUS is {status!r}")
    url = status[len(prefix):]
    health = url.rsplit("/", 1)[0] + "/readyz"
    with urllib.request.urlopen(health, timeout=WAIT_S) as r:
        if r.status != 200:
            fail(f"{health}: {r.status}")
    pings = 0
    while pings < 3:
        if s.next().get("WATCHDOG") == "1":
            pings += 1
    s.proc.send_signal(signal.SIGTERM)
    stopping = s.until("STOPPING")
    if stopping["STOPPING"] != "1" or "SIGTERM" not in stopping.get("STATUS", ""):
        fail(f"at SIGTERM: {stopping}")
    rc = s.stop()
    if rc != 0:
        fail(f"exit {rc}; log:\n{s.log()}")
    print(f"ok: READY=1 at {url} after the journal opened, {pings} pings, "
          f"STOPPING=1 at SIGTERM, exit 0")

    # 2. a journal that cannot open: no READY, a STATUS that says why
    blocker = os.path.join(tmp, "a-file")
    open(blocker, "w").close()
    s = Server(tmp, "broken", ["--data-dir", os.path.join(blocker, "data")])
    status = s.until("STATUS")
    while "unavailable" not in status.get("STATUS", ""):
        if "READY" in status:
            fail(f"READY with a journal that cannot open: {s.seen}")
        status = s.until("STATUS")
    pings = 0
    while pings < 3:  # pinged, alive, but never ready
        msg = s.next()
        if "READY" in msg:
            fail(f"READY with a journal that cannot open: {s.seen}")
        if msg.get("WATCHDOG") == "1":
            pings += 1
    rc = s.stop()
    if rc != 0:
        fail(f"exit {rc}; log:\n{s.log()}")
    print(f"ok: journal unavailable: {status['STATUS']!r}, pinged, never READY")
