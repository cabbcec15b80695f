"""``rummy500 cluster``: a whole site on loopback — PostgreSQL, server processes and HAProxy.

For a try-out, the tests and the benchmarks. :class:`Cluster` starts a throw-away PostgreSQL
(``initdb`` and ``pg_ctl`` of Debian's ``postgresql`` package, in a temporary folder), N
``rummy500 serve`` processes sharing it (each with its own ``--node`` name) and HAProxy (Debian's
``haproxy``) in front of them, and stops them all. HAProxy sends every connection of a table
(``/ws/tables/ID``) to one process by consistent hashing on the path, and spreads the lobby's
requests over all of them (see ``docs/server.md``). The same layout on several machines is in
``docs/deploy.md``.

The server processes listen on unix sockets in a folder only the cluster's user may enter, not
on TCP ports: HAProxy is the only way in, so every process may believe the ``X-Forwarded-For``
it is sent (HAProxy's own, the one a client sent is dropped) — a client cannot reach a process
directly and choose its address with that header.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from rummy500.i18n import _

__all__ = [
    "Cluster",
    "ClusterError",
    "ServerNode",
    "addresses_to_open",
    "descendants",
    "haproxy_config",
    "pg_bin",
    "run_as_batch",
]

#: Names of the server processes, in order (then ``node-7``, ``node-8``, …).
NODE_NAMES = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")
#: HAProxy's health checks of a server that is up: every 2 s. A server is down after 2 failed
#: checks (the second :data:`FAST_CHECK_MS` after the first) or at once when a connection to it
#: is refused, and up again after 2 successes, checked every :data:`FAST_CHECK_MS` while down or
#: changing. Each check is a connection and a request that an idle process answers: at every
#: half second they were half of what an idle server process spent (about 0.5% of a core).
CHECK_INTERVAL_MS = 2000
FAST_CHECK_MS = 500


class ClusterError(Exception):
    """Something the cluster needs is missing or did not start; the message says what."""


def pg_bin() -> Path | None:
    """The folder of PostgreSQL's ``pg_ctl`` and ``initdb`` (the newest installed version)."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4])
    )
    if found:
        return Path(found[-1]).parent
    which = shutil.which("pg_ctl")
    return Path(which).parent if which else None


def haproxy_bin() -> str | None:
    return shutil.which("haproxy") or (
        "/usr/sbin/haproxy" if os.path.exists("/usr/sbin/haproxy") else None
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


#: The only table paths HAProxy lets through: a table id as the server writes it (16 of these
#: characters; the server refuses more than 64). Anything else under ``/ws/`` is refused.
TABLE_PATH = "^/ws/tables/[A-Za-z0-9_-]{1,64}$"


def addresses_to_open(host: str, port: int, public_url: str | None = None) -> list[str]:
    """The addresses people should open for a site whose HAProxy listens on ``host:port``,
    first the one to use on this machine: the ``public_url`` if there is one; else
    ``localhost`` for loopback and every address (browsers refuse passkeys at an IP address
    but at ``localhost``), then, when it listens on every address, this machine's address on
    its network (for other devices; passkeys need ``https`` there: ``--public-url``)."""
    if public_url:
        return [public_url.rstrip("/")]
    if host not in ("0.0.0.0", "::", "127.0.0.1", "::1", "localhost"):
        return [f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"]
    found = [f"http://localhost:{port}"]
    if host in ("0.0.0.0", "::"):
        lan = _network_address()
        if lan is not None:
            found.append(f"http://{lan}:{port}")
    return found


def _network_address() -> str | None:
    """This machine's address on the network of its default route (a UDP socket "connected"
    to a documentation address: nothing is sent), or ``None`` (no network)."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.connect(("192.0.2.1", 9))
        address = str(sock.getsockname()[0])
        if not address.startswith("127.") and address != "0.0.0.0":
            return address
    return None


def haproxy_config(
    servers: Sequence[tuple[str, str]],
    host: str,
    port: int,
    maxconn: int = 0,
    stats_socket: Path | None = None,
) -> str:
    """HAProxy's configuration for ``servers`` (name, HAProxy's address of it:
    ``10.0.0.11:8501`` or ``unix@/path``) behind ``host:port``.

    A table's WebSockets (``/ws/tables/ID``) go by consistent hashing of the path, so every
    client of a table reaches the same process while it is up, and only the tables of a process
    that went down (or came back) move. Only a table id written plainly is let through
    (:data:`TABLE_PATH`): ``/ws/tables/%4A…`` names the same table to the server but hashes to
    another process (the server refuses such a path too). A refused connection marks a server
    down at once (``observe layer4``), and the request is sent to the next one (``redispatch``);
    health checks on ``/api/health`` bring it back. Lobby requests go to any process (round
    robin) that the tables' backend has up: its servers track those (one health check a process
    every ``CHECK_INTERVAL_MS`` while it is up, ``FAST_CHECK_MS`` while it is down or changing;
    not one for each backend). Every server has weight 100: HAProxy
    puts that many more points of it on the hash ring, and the tables spread evenly (200 tables
    on 3 processes: 64, 68 and 68; 47 to 79 with weight 1). A client's own ``X-Forwarded-For``
    and ``X-Forwarded-Proto`` are dropped: the servers get HAProxy's only. ``maxconn`` 0: as
    many connections as the open-file limit allows (two files each)."""
    if maxconn <= 0:
        import resource

        soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        maxconn = max(256, min(50_000, (soft - 100) // 2))
    lines = [
        "global",
        f"    maxconn {maxconn}",
        *([f"    stats socket {stats_socket} mode 600 level admin"] if stats_socket else []),
        "",
        "defaults",
        "    mode http",
        "    timeout connect 2s",
        "    timeout client 60s",
        "    timeout server 60s",
        "    timeout tunnel 1h",
        "    timeout http-keep-alive 5s",
        "    retries 2",
        "    option redispatch 1",
        "    option forwardfor",
        f"    default-server check inter {CHECK_INTERVAL_MS}ms fastinter {FAST_CHECK_MS}ms"
        f" downinter {FAST_CHECK_MS}ms fall 2 rise 2 weight 100"
        " observe layer4 error-limit 1 on-error mark-down",
        "",
        "frontend site",
        f"    bind {host}:{port}",
        "    http-request del-header X-Forwarded-For",
        "    http-request del-header X-Forwarded-Proto",
        f"    acl table_path path_reg {TABLE_PATH}",
        "    http-request deny deny_status 400 if { path_beg /ws/ } !table_path",
        "    use_backend tables if table_path",
        "    default_backend lobby",
        "",
        "backend tables",
        "    balance uri path-only",
        "    hash-type consistent",
        "    option httpchk GET /api/health",
        "    http-check expect status 200",
    ]
    lines += [f"    server {name} {address}" for name, address in servers]
    lines += [
        "",
        "backend lobby",
        "    balance roundrobin",
    ]
    # the same processes: their state is the tables backend's (one health check a process)
    lines += [
        f"    server {name} {address} no-check track tables/{name}" for name, address in servers
    ]
    return "\n".join(lines) + "\n"


def descendants(*parents: int) -> list[int]:
    """The processes ``parents`` started, and theirs, and so on (from ``/proc``, in one pass
    whatever the number of parents; none where there is no ``/proc``)."""
    children: dict[int, list[int]] = {}
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError, ValueError, IndexError):
                with open(f"/proc/{entry.name}/stat", encoding="ascii", errors="replace") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: list[int] = []
    todo = list(parents)
    while todo:
        kids = children.get(todo.pop(), [])
        found += kids
        todo += kids
    return found


def run_as_batch(*pids: int) -> None:
    """Every thread of the processes ``pids`` as ``SCHED_BATCH`` (Linux; elsewhere, or where
    the system does not allow it, nothing): a thread of theirs that wakes up waits for the one
    running on its core to finish its time slice, or to sleep, instead of taking the core from
    it at once. Processes they start later inherit it. ``Cluster(batch_helpers=True)`` runs
    HAProxy and PostgreSQL so: on a machine of few cores each message a server wrote woke one
    of them, which took that server's core in the middle of its work (docs/server.md, "CPU per
    move, one process against two")."""
    policy = getattr(os, "SCHED_BATCH", None)
    if policy is None:
        return
    for pid in pids:
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in threads:
            with contextlib.suppress(OSError, ValueError):
                os.sched_setscheduler(int(tid), policy, os.sched_param(0))


def _wait_http(
    url: str, process: subprocess.Popen[bytes], what: str, timeout: float, uds: Path | None = None
) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    with httpx.Client(transport=httpx.HTTPTransport(uds=str(uds) if uds else None)) as http:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise ClusterError(_("{what} exited at start").format(what=what))
            with contextlib.suppress(httpx.HTTPError):
                if http.get(url, timeout=1.0).status_code == 200:
                    return
            time.sleep(0.05)
    raise ClusterError(_("{what} did not answer within {n} s").format(what=what, n=timeout))


@dataclass
class ServerNode:
    """One ``rummy500 serve`` process of the cluster, listening on the unix socket ``socket``."""

    name: str
    socket: Path
    args: list[str]
    log_path: Path
    env: dict[str, str]
    process: subprocess.Popen[bytes] | None = None
    #: the cores the process (and every thread and process it starts) may run on; ``None``:
    #: as the cluster may (:attr:`Cluster.pin_servers`)
    cpus: frozenset[int] | None = None

    #: the base URL of requests sent through :attr:`socket` (any host name will do)
    base = "http://node"

    def start(self, timeout: float = 60.0) -> None:
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "rummy500", "serve", *self.args],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=self.env,
                start_new_session=True,  # Ctrl-C reaches the cluster, which stops each in turn
            )
        if self.cpus is not None:
            # at once, before the interpreter has started a thread: what it starts inherits it
            os.sched_setaffinity(self.process.pid, self.cpus)
        _wait_http(f"{self.base}/api/health", self.process, self.name, timeout, self.socket)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL, as a crash would."""
        if self.process is not None and self.alive():
            self.process.kill()
            self.process.wait(10)

    def stop(self, timeout: float = 15.0) -> None:
        if self.process is None or not self.alive():
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)


@dataclass
class Cluster:
    """PostgreSQL, ``processes`` server processes and HAProxy on loopback; a context manager.

    ``serve_args`` are given to every server process; the site is at :attr:`url`.
    """

    processes: int = 2
    port: int = 0
    host: str = "127.0.0.1"
    serve_args: Sequence[str] = ()
    folder: Path | None = None
    #: Remove the folder at the end (a temporary one only: a folder given is kept).
    remove_folder: bool = True
    nodes: list[ServerNode] = field(default_factory=list)
    db_url: str = ""
    #: Run HAProxy and PostgreSQL as ``SCHED_BATCH`` (:func:`run_as_batch`): on a machine they
    #: share with the server processes they do not preempt them when woken (``bench server
    #: --batch-helpers``; it did not lower the CPU a move: docs/server.md).
    batch_helpers: bool = False
    #: Pin each server process to a core of its own, in turn (the n-th process to the n-th
    #: core this process may run on, round again when there are more processes than cores);
    #: its search workers and threads share it (``bench server --pin-servers``: docs/server.md
    #: "A core for each server process"). Linux only.
    pin_servers: bool = False

    def __post_init__(self) -> None:
        if self.processes < 1:
            raise ClusterError(_("a cluster needs at least one server process"))
        self._own_folder = self.folder is None
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="rummy500-cluster-"))
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = self.port or free_port()
        self._pg_data: Path | None = None
        self._pg_folder: Path | None = None
        self._pg_as: list[str] = []
        self._pg_bin: Path | None = None
        self._haproxy: subprocess.Popen[bytes] | None = None
        #: the folder of the server processes' unix sockets (made at the start): a short path
        #: (a socket's is at most 107 bytes) only this user may enter (mkdtemp's mode 700)
        self.sockets: Path | None = None

    @property
    def url(self) -> str:
        shown = "127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host
        return f"http://{shown}:{self.port}"

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://", 1)

    # --- starting and stopping -------------------------------------------------------------------

    def start(self) -> Cluster:
        try:
            self._check_tools()
            self.sockets = Path(tempfile.mkdtemp(prefix="r500-"))
            self._start_postgres()
            for n in range(self.processes):
                self._add_node(n)
            self._start_haproxy()
        except BaseException:
            self.stop()
            raise
        return self

    def start_database(self) -> str:
        """Start the throw-away PostgreSQL alone (``rummy500 bench writer``); its URL.
        :meth:`stop` stops it."""
        try:
            self._check_tools()
            self._start_postgres()
        except BaseException:
            self.stop()
            raise
        return self.db_url

    def _check_tools(self) -> None:
        self._pg_bin = pg_bin()
        if self._pg_bin is None:
            raise ClusterError(
                _("PostgreSQL is not installed (initdb and pg_ctl; Debian: apt install postgresql)")
            )
        if haproxy_bin() is None:
            raise ClusterError(_("HAProxy is not installed (Debian: apt install haproxy)"))
        try:
            import psycopg  # noqa: F401
        except ImportError as e:
            raise ClusterError(
                _("the postgres extra is missing: pip install 'rummy500[postgres]'")
            ) from e

    def _pg(self, *args: str) -> None:
        assert self._pg_folder is not None
        done = subprocess.run(
            [*self._pg_as, *args], capture_output=True, timeout=120, cwd=self._pg_folder
        )
        if done.returncode != 0:
            raise ClusterError(
                _("{command} failed: {error}").format(
                    command=Path(args[0]).name, error=done.stderr.decode(errors="replace").strip()
                )
            )

    def _start_postgres(self) -> None:
        assert self._pg_bin is not None
        # a folder of its own, which the postgres user can reach (a test's folder may not be)
        pg = self._pg_folder = Path(tempfile.mkdtemp(prefix="rummy500-pg-"))
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            user = pwd.getpwnam("postgres")
            os.chown(pg, user.pw_uid, user.pw_gid)
            self._pg_as = ["runuser", "-u", "postgres", "--"]
        data = pg / "data"
        port = free_port()
        self._pg(
            str(self._pg_bin / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres",
            "-E", "UTF8", "--no-sync",
        )  # fmt: skip
        options = (
            f"-p {port} -k {pg} -c listen_addresses=127.0.0.1 -c max_connections=200"
            " -c synchronous_commit=off"
        )
        self._pg(
            str(self._pg_bin / "pg_ctl"), "-D", str(data), "-l", str(pg / "log"), "-o", options,
            "-w", "-t", "60", "start",
        )  # fmt: skip
        self._pg_data = data
        self.db_url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
        if self.batch_helpers:  # the postmaster and its processes; its backends inherit it
            postmaster = self._postmaster()
            if postmaster is not None:
                run_as_batch(postmaster, *descendants(postmaster))

    def _add_node(self, n: int) -> ServerNode:
        assert self.folder is not None and self.sockets is not None
        name = NODE_NAMES[n] if n < len(NODE_NAMES) else f"node-{n + 1}"
        path = self.sockets / f"{name}.sock"
        # HAProxy is the only client that can open the socket: its X-Forwarded-For is believed
        args = [
            "--uds", str(path), "--db", self.db_url, "--node", name,
            "--forwarded-allow-ips", "*",
            *self.serve_args,
        ]  # fmt: skip
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        node = ServerNode(name, path, args, self.folder / f"{name}.log", env)
        if self.pin_servers:
            cores = sorted(os.sched_getaffinity(0))
            node.cpus = frozenset({cores[n % len(cores)]})
        node.start()
        self.nodes.append(node)
        return node

    def _start_haproxy(self) -> None:
        assert self.folder is not None
        config = self.folder / "haproxy.cfg"
        servers = [(node.name, f"unix@{node.socket}") for node in self.nodes]
        config.write_text(
            haproxy_config(servers, self.host, self.port, stats_socket=self.folder / "haproxy.sock")
        )
        binary = haproxy_bin()
        assert binary is not None
        with (self.folder / "haproxy.log").open("ab") as log:
            self._haproxy = subprocess.Popen(
                [binary, "-db", "-f", str(config)],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        _wait_http(f"{self.url}/api/health", self._haproxy, "HAProxy", 30.0)
        if self.batch_helpers:  # its threads are all started by now
            run_as_batch(self._haproxy.pid)
        self.wait_all_up()

    def wait_all_up(self, timeout: float = 30.0) -> None:
        """Wait until HAProxy's checks see every live server up (a restarted one included)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            states = self.server_states()
            if all(states.get(node.name) == "UP" for node in self.nodes if node.alive()):
                return
            time.sleep(0.1)
        raise ClusterError(_("HAProxy does not see every server up"))

    def server_states(self) -> dict[str, str]:
        """HAProxy's view of the table servers (``UP``, ``DOWN``, …), from its stats socket."""
        import csv
        import io

        assert self.folder is not None
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(5.0)
            try:
                sock.connect(str(self.folder / "haproxy.sock"))
            except OSError:
                return {}
            sock.sendall(b"show stat\n")
            chunks = []
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        text = b"".join(chunks).decode().lstrip("# ")
        rows = csv.DictReader(io.StringIO(text))
        return {
            row["svname"]: row["status"].split()[0]
            for row in rows
            if row.get("pxname") == "tables" and row["svname"] not in ("FRONTEND", "BACKEND")
        }

    def process_ids(self) -> dict[str, list[int]]:
        """The processes of the site now, by part: ``servers``, ``searches`` (the processes the
        servers started: the computer players' search workers and multiprocessing's helpers),
        ``postgres`` (the postmaster and every process it started) and ``haproxy`` (for the
        benchmark's CPU shares)."""
        servers = [n.process.pid for n in self.nodes if n.process is not None and n.alive()]
        parts: dict[str, list[int]] = {
            "servers": servers,
            "searches": descendants(*servers),
            "postgres": [],
            "haproxy": [],
        }
        if self._haproxy is not None and self._haproxy.poll() is None:
            parts["haproxy"].append(self._haproxy.pid)
        postmaster = self._postmaster()
        if postmaster is not None:
            parts["postgres"] = [postmaster, *descendants(postmaster)]
        return parts

    def _postmaster(self) -> int | None:
        """The pid of PostgreSQL's postmaster, when it runs."""
        if self._pg_data is None:
            return None
        with contextlib.suppress(OSError, ValueError, IndexError):
            return int((self._pg_data / "postmaster.pid").read_text().split()[0])
        return None

    def kill(self, n: int) -> ServerNode:
        """SIGKILL server process ``n``, as a crash would."""
        node = self.nodes[n]
        node.kill()
        return node

    def restart(self, n: int) -> ServerNode:
        """Start server process ``n`` again under its name and port."""
        node = self.nodes[n]
        node.start()
        return node

    def stop(self) -> None:
        """Stop HAProxy, every server process, then PostgreSQL; remove a temporary folder."""
        if self._haproxy is not None and self._haproxy.poll() is None:
            self._haproxy.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._haproxy.wait(10)
            if self._haproxy.poll() is None:
                self._haproxy.kill()
        for node in self.nodes:
            with contextlib.suppress(Exception):
                node.stop()
        if self._pg_data is not None and self._pg_bin is not None:
            with contextlib.suppress(Exception):
                self._pg(
                    str(self._pg_bin / "pg_ctl"), "-D", str(self._pg_data), "-m", "fast", "-w",
                    "stop",
                )  # fmt: skip
            self._pg_data = None
        if self._pg_folder is not None:
            shutil.rmtree(self._pg_folder, ignore_errors=True)
            self._pg_folder = None
        if self.sockets is not None:
            shutil.rmtree(self.sockets, ignore_errors=True)
            self.sockets = None
        if self._own_folder and self.folder is not None and self.remove_folder:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()
