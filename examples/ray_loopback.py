"""Keeps a Ray run on one machine on loopback, and proves it (docs/rllib_cluster.md).

Ray 2.60 does not stay on 127.0.0.1 by itself: ``resolve_ip_for_localhost`` swaps a
loopback node address for the machine's outward one, its servers then listen on every
interface, and its dashboard process probes cloud metadata (169.254.169.254,
metadata.google.internal, with a DNS query) even with usage stats off. So a one-machine
run goes through :func:`reexec_on_loopback` before it imports Ray:

* it re-executes the program in a **private network namespace** holding only ``lo``
  (``unshare --net``: as root, or ``--map-root-user`` where unprivileged user namespaces
  are on), so no packet can leave the machine whatever Ray does;
* and with :func:`loopback_env`: ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` makes Ray keep
  127.0.0.1 as the node address (its servers then listen on 127.0.0.1 only), HTTP goes to
  a closed loopback port (the metadata probes fail without leaving), token authentication
  reads a 0600 token in a private temp folder, which the run removes at exit.

Where no namespace can be made, the environment alone keeps a single node on loopback
(measured: docs/rllib_cluster.md); a second node (``ray start --address``) cannot run that
way, so ``need_namespace=True`` fails with the reason. :class:`SocketWatch` lists every
socket of a process tree, read from each process's own network namespace, so tests and
scripts can check that nothing lies outside 127.0.0.0/8. Stdlib only, no Ray import.
"""

from __future__ import annotations

import atexit
import fcntl
import ipaddress
import os
import secrets
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

LOOPBACK = "127.0.0.1"
# Set for the re-executed program: "PID:FOLDER", the run's private folder (token, Ray's
# temp dir) and the pid that owns it (exec keeps it; a child that inherits it does not).
STATE_VAR = "QWIRKLE_RAY_LOOPBACK_DIR"
NAMESPACE_VAR = "QWIRKLE_RAY_NETNS"  # "1" when re-executed under unshare --net


def loopback_env(work: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment every Ray process of a one-machine run needs (node, driver).

    ``work`` holds the token file; a second node started with ``ray start --address``
    needs ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER`` removed (``ray start`` refuses to add a
    node with it), which :func:`worker_node_env` does."""
    env = dict(os.environ if base is None else base)
    dead_proxy = f"http://{LOOPBACK}:9"  # the discard port: the probe fails on loopback
    env.update(
        {
            # Ray keeps 127.0.0.1 (services.get_node_ip_address) and binds its servers there.
            "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
            "RAY_USAGE_STATS_ENABLED": "0",
            "RAY_AUTH_MODE": "token",
            "RAY_AUTH_TOKEN_PATH": str(work / "auth_token"),
            # requests (the cloud metadata probes) honours these; loopback goes direct.
            **{k: dead_proxy for k in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")},
            **{k: "localhost,127.0.0.0/8,::1" for k in ("NO_PROXY", "no_proxy")},
        }
    )
    env.pop("RAY_AUTH_TOKEN", None)
    env.pop("RAY_ADDRESS", None)  # a one-machine run never joins whatever that names
    return env


def worker_node_env(env: dict[str, str]) -> dict[str, str]:
    """``env`` for ``ray start --address``: Ray refuses a second node while the cluster
    switch is off; inside the namespace its node address still comes out as loopback."""
    env = dict(env)
    env.pop("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", None)
    return env


def write_token(path: Path) -> Path:
    """A fresh token (32 random bytes in hex, as Ray makes them), readable by its owner
    only: created 0600, never widened."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(secrets.token_hex(32))
    return path


def interfaces() -> list[str]:
    """The network interfaces this process sees."""
    return sorted(name for _, name in socket.if_nameindex())


def in_private_network() -> bool:
    """True where loopback is the only interface (a namespace made by unshare --net)."""
    return interfaces() == ["lo"]


def namespace_command() -> list[str] | None:
    """The ``unshare`` prefix that gives a program its own network namespace here, or
    None where none can be made (no unshare, or neither root nor user namespaces)."""
    unshare = shutil.which("unshare")
    if unshare is None or not sys.platform.startswith("linux"):
        return None
    prefix = [unshare, "--net"] if os.geteuid() == 0 else [unshare, "--net", "--map-root-user"]
    if os.environ.get("QWIRKLE_RAY_NO_NETNS") == "1":  # measures the environment-only path
        return None
    probe = subprocess.run([*prefix, "true"], capture_output=True)
    return prefix if probe.returncode == 0 else None


def bring_up_loopback() -> None:
    """Sets ``lo`` up (a new network namespace starts with it down); needs no ``ip``."""
    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        request = struct.pack("16sH14s", b"lo", 0, b"")
        flags = struct.unpack("16sH14s", fcntl.ioctl(s, siocgifflags, request))[1]
        fcntl.ioctl(s, siocsifflags, struct.pack("16sH14s", b"lo", flags | iff_up, b""))


@dataclass(frozen=True)
class LoopbackRun:
    """Where the re-executed program stands: its private folder, whether it runs in its
    own network namespace, and the environment its Ray processes get."""

    work: Path
    namespace: bool
    env: dict[str, str]

    @property
    def token(self) -> Path:
        return Path(self.env["RAY_AUTH_TOKEN_PATH"])

    @property
    def ray_temp_dir(self) -> Path:
        """Ray's ``--temp-dir``/``_temp_dir``: sessions, sockets and the address file stay
        here, so the run neither joins nor disturbs another Ray instance (/tmp/ray)."""
        return self.work / "ray"


def reexec_on_loopback(
    argv: Sequence[str] | None = None, need_namespace: bool = False
) -> LoopbackRun:
    """Call before importing Ray. The first call re-executes the program (same pid: exec)
    in a private network namespace when one can be made, with :func:`loopback_env` and a
    fresh private folder; the re-executed program's call returns its :class:`LoopbackRun`
    and removes that folder at exit. ``need_namespace``: fail instead of running without
    one (two nodes on one machine need it)."""
    owner, _, work = os.environ.get(STATE_VAR, "").partition(":")
    if owner == str(os.getpid()):  # re-executed: finish setting up
        namespace = os.environ.get(NAMESPACE_VAR) == "1"
        if namespace:
            bring_up_loopback()
            if not in_private_network():
                raise RuntimeError(f"expected only loopback in the namespace, saw {interfaces()}")
        atexit.register(shutil.rmtree, work, ignore_errors=True)
        return LoopbackRun(Path(work), namespace, dict(os.environ))
    prefix = namespace_command()
    if prefix is None and need_namespace:
        raise SystemExit(
            "this run needs a private network namespace (unshare --net) so that Ray stays on "
            "loopback, and none can be made here: run it as root, or enable unprivileged user "
            "namespaces (sysctl kernel.unprivileged_userns_clone=1)"
        )
    work = Path(tempfile.mkdtemp(prefix="qwray_"))
    write_token(work / "auth_token")
    env = loopback_env(work)
    env[NAMESPACE_VAR] = "1" if prefix else "0"
    env[STATE_VAR] = f"{os.getpid()}:{work}"
    command = list(argv) if argv is not None else [sys.executable, *sys.orig_argv[1:]]
    if prefix is None:
        print(
            "note: no private network namespace here; Ray stays on 127.0.0.1 through its "
            "environment only (docs/rllib_cluster.md)",
            file=sys.stderr,
        )
    sys.stdout.flush()
    sys.stderr.flush()
    full = [*(prefix or []), *command]
    os.execvpe(full[0], full, env)
    raise AssertionError("unreachable: exec returned")


# Sockets, read from /proc/<pid>/net/* (the process's own network namespace) ----------

TCP_STATES = {
    "01": "ESTABLISHED",
    "02": "SYN_SENT",
    "03": "SYN_RECV",
    "04": "FIN_WAIT1",
    "05": "FIN_WAIT2",
    "06": "TIME_WAIT",
    "07": "CLOSE",
    "08": "CLOSE_WAIT",
    "09": "LAST_ACK",
    "0A": "LISTEN",
    "0B": "CLOSING",
}


@dataclass(frozen=True)
class SocketSeen:
    """One inet socket of a watched process; ``remote`` is None when unconnected. Its
    ``command`` is not part of what it is: an exiting process's command line reads empty
    while it still holds its sockets."""

    pid: int
    command: str = field(compare=False)
    proto: str
    state: str
    local: tuple[str, int]
    remote: tuple[str, int] | None

    def outside_loopback(self) -> list[str]:
        """The addresses of this socket that are not in 127.0.0.0/8 (a wildcard listener
        such as 0.0.0.0 or :: counts: it is reachable from the network)."""
        found = [self.local[0]] if not is_loopback(self.local[0]) else []
        if self.remote is not None and not is_loopback(self.remote[0]):
            found.append(self.remote[0])
        return found

    def __str__(self) -> str:
        remote = f" -> {endpoint(*self.remote)}" if self.remote else ""
        where = f"{endpoint(*self.local)}{remote}"
        return f"{self.proto} {self.state} {where} (pid {self.pid} {self.command})"


def endpoint(address: str, port: int) -> str:
    """``127.0.0.1:80``, ``[::ffff:127.0.0.1]:80`` (IPv4-mapped written readably), ``[::]:80``."""
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv4Address):
        return f"{ip}:{port}"
    shown = f"::ffff:{ip.ipv4_mapped}" if ip.ipv4_mapped is not None else str(ip)
    return f"[{shown}]:{port}"


def is_loopback(address: str) -> bool:
    """In 127.0.0.0/8, written as IPv4 or IPv4-mapped IPv6 (what a dual-stack socket on
    127.0.0.1 shows). Anything else, ::1 and wildcards included, is not."""
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return isinstance(ip, ipaddress.IPv4Address) and ip in ipaddress.IPv4Network("127.0.0.0/8")


def parse_proc_address(text: str) -> tuple[str, int]:
    """``0100007F:1F90`` (IPv4) or 32 hex digits of IPv6, both as the kernel's /proc/net
    tables write them (each 32-bit word in host byte order: little-endian here)."""
    host, port = text.split(":")
    raw = bytes.fromhex(host)
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    return str(ipaddress.ip_address(words)), int(port, 16)


def parse_proc_table(text: str, proto: str) -> dict[int, tuple[str, tuple, tuple | None]]:
    """inode -> (state, local, remote) for one /proc/net/{tcp,tcp6,udp,udp6} table."""
    table = {}
    for line in text.splitlines()[1:]:
        fields = line.split()
        if len(fields) < 10:
            continue
        local, remote = parse_proc_address(fields[1]), parse_proc_address(fields[2])
        state = TCP_STATES.get(fields[3], fields[3])
        if proto.startswith("udp"):
            state = "CONNECTED" if fields[3] == "01" else "BOUND"
        unconnected = remote[1] == 0 and not any(c != "0" for c in fields[2].split(":")[0])
        table[int(fields[9])] = (state, local, None if unconnected else remote)
    return table


def process_tree(roots: Iterable[int]) -> set[int]:
    """The live processes under ``roots`` (themselves included), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), [r for r in roots if Path(f"/proc/{r}").exists()]
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, []))
    return found


def sockets_of(pids: Iterable[int]) -> list[SocketSeen]:
    """Every inet socket (TCP, UDP, IPv4 and IPv6) that ``pids`` hold right now."""
    seen, tables = [], {}
    for pid in pids:
        try:
            netns = os.readlink(f"/proc/{pid}/ns/net")
            inodes = set()
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    link = os.readlink(f"/proc/{pid}/fd/{fd}")
                except OSError:
                    continue
                if link.startswith("socket:["):
                    inodes.add(int(link[8:-1]))
            if not inodes:
                continue
            if netns not in tables:
                tables[netns] = {
                    proto: parse_proc_table(Path(f"/proc/{pid}/net/{proto}").read_text(), proto)
                    for proto in ("tcp", "tcp6", "udp", "udp6")
                }
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:  # the process ended meanwhile
            continue
        for proto, table in tables[netns].items():
            for inode in inodes & table.keys():
                state, local, remote = table[inode]
                seen.append(SocketSeen(pid, command[:120].strip(), proto, state, local, remote))
    return seen


class SocketWatch:
    """Samples the sockets of a process tree every ``interval`` seconds while active.

    A context manager; ``roots`` are the pids whose descendants are Ray's processes (the
    driver, or the ``ray start --block`` processes). ``seen`` keeps every distinct socket
    (by pid, protocol, state and addresses); ``outside()`` those with an address outside
    127.0.0.0/8. Sampling can miss a socket that lives shorter than ``interval``, which is
    why one-machine runs also sit in a network namespace that has nothing but loopback."""

    def __init__(self, roots: Iterable[int], interval: float = 0.1) -> None:
        self.roots = list(roots)
        self.interval = interval
        self.seen: set[SocketSeen] = set()
        self.pids: set[int] = set()
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def sample(self) -> None:
        pids = process_tree(self.roots)
        self.pids |= pids
        self.seen.update(sockets_of(pids))
        self.samples += 1

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def __enter__(self) -> SocketWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.sample()

    def outside(self) -> list[SocketSeen]:
        return sorted((s for s in self.seen if s.outside_loopback()), key=str)

    def summary(self) -> dict:
        """What the watch saw, in JSON-friendly form."""
        listening = sorted(
            {endpoint(*s.local) for s in self.seen if s.state in ("LISTEN", "BOUND")}
        )
        return {
            "samples": self.samples,
            "processes": len(self.pids),
            "sockets": len(self.seen),
            "listening": listening,
            "outside_loopback": [str(s) for s in self.outside()],
        }
