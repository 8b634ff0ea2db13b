#!/usr/bin/env python3
"""The install and the Debian package (docs/operations.md, "Installing as a
Debian service"), from the already-built tree: nothing here compiles.

  package_test.py install BUILD   `cmake --install BUILD --prefix TMP`: the
      files; the man page renders without a groff or man warning; the unit
      passes `systemd-analyze verify` (its ExecStart, the binary installed
      in TMP; its man: link found through MANPATH) and `systemd-analyze
      security --offline=yes` rates it at most 2.0.
  package_test.py deb BUILD       `cpack -G DEB` (BUILD/package/*.deb);
      cpack's preinstall step finds the tree built and builds nothing.
  package_test.py lintian BUILD   lintian on it: no E: line (W: and I: lines
      are printed; docs/operations.md says why each is left).
  package_test.py run BUILD       the .deb's control (Depends, conffiles),
      then its binary, unpacked by `dpkg-deb -x`: --version, the stdio
      handshake (initialize, tools/list), the unit's command with the
      unit's environment and the packaged config (READY=1 over a notify
      socket, STOPPING=1), and `check` where it has one.
"""
import glob
import gzip
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile

MODE, BUILD = sys.argv[1], os.path.abspath(sys.argv[2])
NAME = "time-tracker-mcp"
MAX_EXPOSURE = 2.0


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(cmd, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    return subprocess.run(cmd, **kw)


def the_deb():
    debs = glob.glob(os.path.join(BUILD, "package", f"{NAME}_*.deb"))
    if len(debs) != 1:
        fail(f"expected one {NAME}_*.deb in {BUILD}/package (package.deb "
             f"makes it), found {debs}")
    return debs[0]


def check_man_page(page):
    """groff's and man's warnings, as lintian's manpage checks run them."""
    with gzip.open(page, "rt") if page.endswith(".gz") else open(page) as f:
        roff = f.read()
    r = run(["groff", "-man", "-Tutf8", "-ww", "-z"], input=roff)
    if r.returncode != 0 or r.stderr.strip():
        fail(f"groff warns about {page}:\n{r.stderr}")
    env = dict(os.environ, LC_ALL="C.UTF-8", MANROFFSEQ="", MANWIDTH="80")
    r = run(["man", "--warnings", "-E", "UTF-8", "-l", "-Tutf8", "-Z", page],
            env=env)
    if r.returncode != 0 or r.stderr.strip():
        fail(f"man --warnings on {page}:\n{r.stderr}")
    # The page is the option table: every flag --help lists is on it.
    binary = os.path.join(BUILD, NAME)
    flags = set(re.findall(r"^  (--[a-z-]+)", run([binary, "--help"]).stdout,
                           re.M))
    missing = [f for f in flags if f.replace("-", "\\-") not in roff]
    if not flags or missing:
        fail(f"the man page lacks {missing or 'every flag'}")
    print(f"man page: {len(flags)} options, no groff/man warnings")


def check_unit(unit, manpath):
    env = dict(os.environ, MANPATH=manpath + ":")
    r = run(["systemd-analyze", "verify", unit], env=env)
    if r.returncode != 0 or (r.stdout + r.stderr).strip():
        fail(f"systemd-analyze verify {unit} (exit {r.returncode}):\n"
             f"{r.stdout}{r.stderr}")
    r = run(["systemd-analyze", "security", "--offline=yes", unit])
    m = re.search(r"Overall exposure level for \S+: ([0-9.]+) (\w+)", r.stdout)
    if not m:
        fail(f"no exposure level in systemd-analyze security's output:\n"
             f"{r.stdout}{r.stderr}")
    score = float(m.group(1))
    print("\n".join(l for l in r.stdout.splitlines() if l.startswith("✗")))
    if score > MAX_EXPOSURE:
        fail(f"exposure {score} {m.group(2)} is above {MAX_EXPOSURE}")
    print(f"systemd-analyze verify: clean; security: exposure {score} "
          f"{m.group(2)} (at most {MAX_EXPOSURE})")


def install():
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "prefix")
        r = run(["cmake", "--install", BUILD, "--prefix", prefix])
        if r.returncode != 0:
            fail(f"cmake --install:\n{r.stdout}{r.stderr}")
        want = [f"bin/{NAME}", f"share/man/man1/{NAME}.1.gz",
                f"share/doc/{NAME}/copyright",
                f"share/doc/{NAME}/changelog.gz",
                f"share/doc/{NAME}/examples/config.json",
                f"etc/{NAME}/config.json", f"etc/default/{NAME}",
                f"lib/systemd/system/{NAME}.service"]
        missing = [w for w in want if not os.path.isfile(os.path.join(prefix, w))]
        if missing:
            fail(f"cmake --install did not install {missing}")
        unit = os.path.join(prefix, f"lib/systemd/system/{NAME}.service")
        text = open(unit).read()
        if f"ExecStart={prefix}/bin/{NAME} http" not in text:
            fail(f"the unit's ExecStart is not the installed binary:\n{text}")
        check_man_page(os.path.join(prefix, f"share/man/man1/{NAME}.1.gz"))
        check_unit(unit, os.path.join(prefix, "share/man"))
        # A second install keeps an operator's edited config file.
        config = os.path.join(prefix, f"etc/{NAME}/config.json")
        with open(config, "w") as f:
            f.write('{"log_level": "debug"}\n')
        run(["cmake", "--install", BUILD, "--prefix", prefix])
        if open(config).read() != '{"log_level": "debug"}\n':
            fail("a re-install overwrote the edited config file")
        print(f"cmake --install: {len(want)} files in place; an edited "
              f"config survives a re-install")


def deb():
    for old in glob.glob(os.path.join(BUILD, "package", f"{NAME}_*.deb")):
        os.remove(old)
    r = run(["cpack", "-G", "DEB", "--config",
             os.path.join(BUILD, "CPackConfig.cmake")], cwd=BUILD)
    print(r.stdout + r.stderr)
    if r.returncode != 0:
        fail("cpack -G DEB failed")
    print(f"built {the_deb()}")


def lintian():
    r = run(["lintian", "-I", "--pedantic", "--no-tag-display-limit",
             the_deb()])
    lines = [l for l in (r.stdout + r.stderr).splitlines()
             if re.match(r"^[EWIPX]: ", l)]
    print("\n".join(lines) or "lintian: no tags")
    errors = [l for l in lines if l.startswith("E: ")]
    if errors or r.returncode not in (0, 1):
        fail(f"lintian errors:\n" + "\n".join(errors) + r.stderr)
    counts = {k: sum(l.startswith(k) for l in lines) for k in "EWIP"}
    print(f"lintian: {counts['E']} errors, {counts['W']} warnings, "
          f"{counts['I']} info, {counts['P']} pedantic")


def handshake(binary, data):
    """initialize + tools/list over stdin, as an MCP client's first lines;
    the journal in `data`."""
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "package-test", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    stdin = "".join(json.dumps(l) + "\n" for l in lines)
    r = run([binary, "stdio", "--data-dir", data], input=stdin, timeout=60)
    if r.returncode != 0:
        fail(f"stdio exit {r.returncode}:\n{r.stderr}")
    replies = {m.get("id"): m for m in map(json.loads, r.stdout.splitlines())}
    info = replies.get(1, {}).get("result", {}).get("serverInfo", {})
    tools = replies.get(2, {}).get("result", {}).get("tools", [])
    if info.get("name") != NAME or not tools:
        fail(f"handshake replies: {r.stdout}")
    return info, tools


def serve_as_the_unit(root, tmp):
    """The packaged unit's ExecStart with its Environment= lines (%S: a
    state directory of our own), the packaged config file, and nothing
    else in the environment (systemd's is as clean); NOTIFY_SOCKET a socket
    of ours, the port a free one (as /etc/default/time-tracker-mcp could
    set it). READY=1 must come, then STOPPING=1 at SIGTERM and exit 0."""
    unit = open(os.path.join(root, f"lib/systemd/system/{NAME}.service")).read()
    state = os.path.join(tmp, "state")
    os.makedirs(state)
    local = lambda p: os.path.join(root, p.lstrip("/")) if p.startswith(("/etc/", "/usr/")) else p
    env = {"PATH": "/usr/bin:/bin", "TIME_TRACKER_MCP_LISTEN": "127.0.0.1:0"}
    for k, v in re.findall(r"^Environment=([A-Z_]+)=(.*)$", unit, re.M):
        env[k] = local(v.replace("%S", state))
    argv = [local(a) for a in re.search(r"^ExecStart=(.*)$", unit, re.M).group(1).split()]
    sock_path = os.path.join(tmp, "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(sock_path)
    sock.settimeout(20)
    env["NOTIFY_SOCKET"] = sock_path
    log = open(os.path.join(tmp, "unit.log"), "w+")
    proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=log)
    seen = []

    def until(key):
        while True:
            try:
                msg = sock.recv(4096).decode()
            except socket.timeout:
                proc.kill()
                log.seek(0)
                fail(f"no {key} from the packaged unit's command {argv} "
                     f"after {seen}:\n{log.read()}")
            seen.append(msg)
            if msg.startswith(key + "=") or ("\n" + key + "=") in msg:
                return msg

    ready = until("READY")
    proc.send_signal(signal.SIGTERM)
    until("STOPPING")
    rc = proc.wait(timeout=30)
    if rc != 0 or not os.path.exists(os.path.join(state, NAME, "journal.sqlite3")):
        log.seek(0)
        fail(f"the unit's command: exit {rc}, journal in %S/{NAME}?\n{log.read()}")
    print(f"packaged unit's command: {ready.splitlines()[-1]}; journal in "
          f"%S/{NAME}; STOPPING=1 at SIGTERM, exit 0")


def run_deb():
    pkg = the_deb()
    control = run(["dpkg-deb", "-f", pkg, "Package", "Depends"]).stdout
    print(control.strip())
    depends = re.search(r"^Depends: (.*)$", control, re.M)
    if f"Package: {NAME}" not in control or not depends:
        fail(f"control fields: {control}")
    for dep in ("tzdata", "libsystemd0", "libsqlite3-0", "libc6"):
        if not re.search(rf"(^|, ){re.escape(dep)}\b", depends.group(1)):
            fail(f"Depends lacks {dep}: {depends.group(1)}")
    with tempfile.TemporaryDirectory() as tmp:
        r = run(["dpkg-deb", "--ctrl-tarfile", pkg], text=False)
        r = run(["tar", "-xO", "./conffiles"], input=r.stdout, text=False)
        conffiles = r.stdout.decode().split()
        if sorted(conffiles) != [f"/etc/default/{NAME}", f"/etc/{NAME}/config.json"]:
            fail(f"conffiles: {conffiles}")
        root = os.path.join(tmp, "root")
        r = run(["dpkg-deb", "-x", pkg, root])
        if r.returncode != 0:
            fail(f"dpkg-deb -x: {r.stderr}")
        binary = os.path.join(root, "usr/bin", NAME)
        version = run([binary, "--version"])
        if version.returncode != 0 or not version.stdout.startswith(NAME + " "):
            fail(f"--version: {version.stdout}{version.stderr}")
        data = os.path.join(tmp, "data")
        info, tools = handshake(binary, data)
        print(f"packaged binary: {version.stdout.strip()}; initialize answered "
              f"by {info['name']} {info.get('version')}; tools/list: "
              f"{len(tools)} tools")
        serve_as_the_unit(root, tmp)
        # The admin `check` on the packaged config and the journal the
        # handshake left: config, zone database, journal integrity.
        r = run([binary, "check", "--config",
                 os.path.join(root, f"etc/{NAME}/config.json"),
                 "--data-dir", data])
        print(r.stdout + r.stderr)
        if r.returncode != 0 or "journal" not in r.stdout:
            fail(f"check on the packaged config: exit {r.returncode}")
        print("packaged binary: check passed")

{"install": install, "deb": deb, "lintian": lintian, "run": run_deb}[MODE]()
