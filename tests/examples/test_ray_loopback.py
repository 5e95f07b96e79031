"""examples/ray_loopback.py, without Ray: the loopback test of an address, the /proc socket
tables, the socket watch (on real sockets, a non-loopback one included), the 0600 token,
the environment, and the refusal to run two nodes where no namespace can be made."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import EXAMPLES, load_example

loopback = load_example("ray_loopback")
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


@pytest.mark.parametrize(
    ("address", "inside"),
    [
        ("127.0.0.1", True),
        ("127.3.2.1", True),
        ("::ffff:127.0.0.1", True),  # a dual-stack socket bound to 127.0.0.1
        ("0.0.0.0", False),  # wildcards are reachable from the network
        ("::", False),
        ("::ffff:192.0.2.2", False),
        ("192.0.2.2", False),
        ("169.254.169.254", False),
        ("::1", False),  # loopback, but outside 127.0.0.0/8: the check is strict
    ],
)
def test_is_loopback_is_127_slash_8_only(address, inside):
    assert loopback.is_loopback(address) is inside


def test_proc_tables_parse_as_the_kernel_writes_them():
    assert loopback.parse_proc_address("0100007F:1F90") == ("127.0.0.1", 8080)
    assert loopback.parse_proc_address("0202000A:0035") == ("10.0.2.2", 53)
    v6 = "0000000000000000FFFF00000100007F:A0A1"
    assert loopback.parse_proc_address(v6) == ("::ffff:7f00:1", 0xA0A1)
    header = "sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ..."
    rows = [
        "0: 0100007F:1F90 00000000:0000 0A 0:0 00:0 0 0 0 111 1 0 100 0 0 10 0",
        "1: 0202000A:D431 FEA9FEA9:0050 02 1:0 01:200 2 0 0 222 1 0 200 0 0 10 -1",
    ]
    tcp = "\n".join([header, *rows])
    table = loopback.parse_proc_table(tcp, "tcp")
    assert table[111] == ("LISTEN", ("127.0.0.1", 8080), None)
    assert table[222] == ("SYN_SENT", ("10.0.2.2", 54321), ("169.254.169.254", 80))


def test_a_socket_seen_again_while_its_process_exits_is_the_same_socket():
    """Between freeing its memory and closing its files an exiting process's command line
    reads empty; the socket it still holds must not count twice."""
    seen = [loopback.SocketSeen(7, command, "tcp", "LISTEN", ("127.0.0.1", 80), None)
            for command in ("python -c ...", "")]  # fmt: skip
    assert len(set(seen)) == 1
    other = loopback.SocketSeen(7, "", "tcp", "LISTEN", ("127.0.0.1", 81), None)
    assert len({*seen, other}) == 2


@linux_only
def test_watch_sees_a_loopback_listener_of_a_child_and_flags_nothing():
    child = subprocess.Popen(
        [sys.executable, "-c", LISTEN_ON.format(host="127.0.0.1")],
        stdout=subprocess.PIPE,
        text=True,
    )
    port = int(child.stdout.readline())
    with loopback.SocketWatch([child.pid], interval=0.02) as watch:
        child.communicate(timeout=30)
    listening = [s for s in watch.seen if s.state == "LISTEN" and s.pid == child.pid]
    assert [s.local for s in listening] == [("127.0.0.1", port)]
    assert watch.outside() == [] and watch.summary()["outside_loopback"] == []


# A child that listens on HOST (TCP) and holds a UDP socket bound to the same host; it
# prints the TCP port, then lives for half a second. No packet is sent.
LISTEN_ON = """
import socket, sys, time
tcp = socket.socket(); tcp.bind(("{host}", 0)); tcp.listen()
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); udp.bind(("{host}", 0))
print(tcp.getsockname()[1], flush=True)
time.sleep(0.5)
"""


@linux_only
def test_watch_flags_a_wildcard_listener_the_way_ray_binds_by_default():
    """The attack: a process that listens on every interface (0.0.0.0), as Ray 2.60's
    servers do unless their node address is 127.0.0.1. Run inside a private network
    namespace where one can be made, so the wildcard reaches nothing even for an instant."""
    prefix = loopback.namespace_command() or []
    child = subprocess.Popen(
        [*prefix, sys.executable, "-c", LISTEN_ON.format(host="0.0.0.0")],
        stdout=subprocess.PIPE,
        text=True,
    )
    port = int(child.stdout.readline())
    with loopback.SocketWatch([child.pid], interval=0.02) as watch:
        child.communicate(timeout=30)
    flagged = watch.outside()
    assert {(s.proto, s.state, s.local[0]) for s in flagged} >= {("tcp", "LISTEN", "0.0.0.0")}
    assert {s.proto for s in flagged} == {"tcp", "udp"}
    assert any(s.local == ("0.0.0.0", port) for s in flagged)
    assert f"0.0.0.0:{port}" in watch.summary()["listening"]
    assert loopback.endpoint("::ffff:7f00:1", 80) == "[::ffff:127.0.0.1]:80"
    assert loopback.endpoint("::", 80) == "[::]:80"


def test_token_is_owner_only_and_fresh(tmp_path):
    path = loopback.write_token(tmp_path / "auth_token")
    assert path.stat().st_mode & 0o777 == 0o600
    assert len(path.read_text()) == 64 and int(path.read_text(), 16) >= 0
    with pytest.raises(FileExistsError):  # never reuses or widens an existing file
        loopback.write_token(path)


def test_environment_keeps_ray_on_loopback(tmp_path):
    base = {"RAY_ADDRESS": "auto", "RAY_AUTH_TOKEN": "leaked", "PATH": "/bin"}
    env = loopback.loopback_env(tmp_path, base)
    assert env["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] == "0"
    assert env["RAY_AUTH_MODE"] == "token"
    assert env["RAY_AUTH_TOKEN_PATH"] == str(tmp_path / "auth_token")
    assert "RAY_ADDRESS" not in env and "RAY_AUTH_TOKEN" not in env
    assert env["HTTP_PROXY"].startswith("http://127.0.0.1:") and "127.0.0.0/8" in env["NO_PROXY"]
    assert env["PATH"] == "/bin"
    assert "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER" not in loopback.worker_node_env(env)


@linux_only
def test_two_nodes_refuse_to_run_without_a_namespace():
    code = (
        f"import sys; sys.path.insert(0, {str(EXAMPLES)!r}); import ray_loopback; "
        "ray_loopback.reexec_on_loopback(need_namespace=True); print('ran')"
    )
    env = dict(os.environ, QWIRKLE_RAY_NO_NETNS="1")
    env.pop(loopback.STATE_VAR, None)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 1 and "ran" not in done.stdout
    assert "needs a private network namespace" in done.stderr


@linux_only
def test_reexec_lands_in_a_namespace_with_only_loopback_and_cleans_up():
    if loopback.namespace_command() is None:
        pytest.skip("no network namespace can be made here (needs root or user namespaces)")
    code = (
        f"import json, sys; sys.path.insert(0, {str(EXAMPLES)!r}); import ray_loopback; "
        "run = ray_loopback.reexec_on_loopback(); "
        "print(json.dumps([run.namespace, ray_loopback.interfaces(), str(run.work), "
        "run.token.stat().st_mode & 0o777, run.env['RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER']]))"
    )
    env = dict(os.environ)
    env.pop(loopback.STATE_VAR, None)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    namespace, interfaces, work, mode, cluster_switch = json.loads(done.stdout)
    assert namespace is True and interfaces == ["lo"]
    assert mode == 0o600 and cluster_switch == "0"
    assert not os.path.exists(work), "the private folder is removed at exit"


@linux_only
def test_a_child_that_inherits_the_state_does_not_take_the_parents_folder(tmp_path):
    """Only the process that was re-executed owns (and removes) the folder: a program it
    starts with its environment sets up its own run."""
    parent = tmp_path / "parent"
    parent.mkdir()
    code = (
        f"import json, sys; sys.path.insert(0, {str(EXAMPLES)!r}); import ray_loopback; "
        "run = ray_loopback.reexec_on_loopback(); print(json.dumps(str(run.work)))"
    )
    env = dict(os.environ, QWIRKLE_RAY_NO_NETNS="1")
    env[loopback.STATE_VAR] = f"1:{parent}"  # pid 1 owns it, not the child
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) != str(parent) and parent.exists()
