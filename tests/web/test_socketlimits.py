"""The socket limits of ``carcassonne serve`` (``web/socketlimits.py`` and the uvicorn
settings in ``cli/serve.py``), against a real server on loopback.

Each test reproduces one finding of the attack run: sockets that were never closed, frames
buffered far past the protocol's limit, forged ``X-Forwarded-For`` headers believed.
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import LiveServer, read_until_closed
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from carcassonne.cli import serve
from carcassonne.cli.main import build_parser
from carcassonne.web import app as app_module
from carcassonne.web.addresses import AddressGroups
from carcassonne.web.logthrottle import BoundedFormatter, LogThrottle, throttled_handler
from carcassonne.web.protocol import MAX_MESSAGE_BYTES
from carcassonne.web.socketlimits import CLOSE_TIMEOUT, ConnectionGuard, ConnectionLimits

HUMANS = {"seats": [{"kind": "human"}, {"kind": "human"}]}
JSON_TYPE = {"content-type": "application/json"}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


def create_game(server: LiveServer) -> dict[str, Any]:
    status, _, body = server.request("POST", "/api/games", json.dumps(HUMANS).encode(), JSON_TYPE)
    assert status == 201, body
    return json.loads(body)  # type: ignore[no-any-return]


def websocket(server: LiveServer, game_id: str, source: str = "127.0.0.1") -> Any:
    """A websocket client from ``source`` (the library connects from its own socket)."""
    sock = server.connect(source)
    return connect(f"ws://127.0.0.1:{server.port}/ws/{game_id}", sock=sock, open_timeout=5)


@contextlib.contextmanager
def held_connections(server: LiveServer, sources: list[str]) -> Iterator[list[socket.socket]]:
    """Idle connections from ``sources``, accepted and counted by the server; closed after."""
    held = [server.connect(source) for source in sources]
    time.sleep(0.2)
    try:
        yield held
    finally:
        for sock in held:
            sock.close()


def assert_refused(sock: socket.socket) -> dict[str, Any]:
    """The server answered a connection over its cap with a 503 in the API's error format and
    closed it at once."""
    received, _ = read_until_closed(sock, limit=3)
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 503"), received
    error: dict[str, Any] = json.loads(body)
    assert error["error"] == "too-many-connections"
    return error


# ------------------------------------------------------------------------------ caps


def test_connections_beyond_the_per_address_cap_are_refused(db: Path) -> None:
    """Issue: 20,000 idle sockets exhausted the server's file descriptors."""
    with (
        LiveServer(db, "--max-connections-per-address", "3") as server,
        held_connections(server, ["127.0.0.1"] * 3) as held,
    ):
        error = assert_refused(server.connect("127.0.0.1"))
        assert error["message"] == "too many connections from this address"
        assert (error["reason"], error["params"]) == ("too_many_from_address", {})
        # another address is served meanwhile
        status, _, _ = server.request("GET", "/api/meta", source="127.0.0.2")
        assert status == 200
        # a closed connection gives its place back
        held.pop().close()
        time.sleep(0.2)
        status, _, _ = server.request("GET", "/api/meta", source="127.0.0.1")
        assert status == 200


def test_a_trusted_proxy_has_no_cap_of_its_own(db: Path) -> None:
    """Every client behind a proxy comes from its address: the cap would limit them all."""
    flags = ("--max-connections-per-address", "2", "--trusted-proxy", "127.0.0.1")
    with LiveServer(db, *flags) as server, held_connections(server, ["127.0.0.1"] * 3):
        status, _, _ = server.request("GET", "/api/meta", source="127.0.0.1")
        assert status == 200


def test_connections_beyond_the_total_cap_are_refused(db: Path) -> None:
    sources = ["127.0.0.1", "127.0.0.2", "127.0.0.3"]
    with LiveServer(db, "--max-connections", "3") as server, held_connections(server, sources):
        error = assert_refused(server.connect("127.0.0.4"))
        assert error["message"] == "the server has too many connections open"
        assert (error["reason"], error["params"]) == ("too_many_connections", {})


def test_a_websocket_keeps_its_connection_slot_until_it_closes(db: Path) -> None:
    """The upgraded connection is counted by the websocket protocol, which releases it."""
    with LiveServer(db, "--max-connections-per-address", "2") as server:
        game = create_game(server)
        with websocket(server, game["id"]) as first, websocket(server, game["id"]) as second:
            for ws in (first, second):
                ws.send(json.dumps({"type": "hello", "token": None}))
                assert json.loads(ws.recv(timeout=5))["type"] == "welcome"
            assert_refused(server.connect("127.0.0.1"))
        time.sleep(0.3)  # both closed: their places are free again
        status, _, _ = server.request("GET", "/api/meta", source="127.0.0.1")
        assert status == 200


def test_the_cap_fits_the_open_files_limit(db: Path) -> None:
    args = build_parser().parse_args(["serve", "--db", str(db), "--max-connections", "5000"])
    app, _ = serve.build_app(args)
    config = serve.server_config(app, args, files=4000)
    assert config.http.guard.limits.max_connections == 4000 - serve.RESERVED_FILES
    assert serve.connection_cap(5000, files=1024) == 512  # a tiny limit: half of it
    assert serve.connection_cap(100, files=4000) == 100


# ------------------------------------------------------------------------------ timeouts


def test_a_client_that_sends_no_request_is_closed_after_the_header_timeout(db: Path) -> None:
    """Issue: 500 idle and 500 slow-header sockets all stayed open for more than 90 s."""
    with LiveServer(db, "--header-timeout", "0.5") as server:
        silent = server.connect()
        received, seconds = read_until_closed(silent, limit=3)
        assert received.startswith(b"HTTP/1.1 408") and 0.4 < seconds < 2


def test_the_header_deadline_is_not_extended_by_trickling_bytes(db: Path) -> None:
    with LiveServer(db, "--header-timeout", "0.6") as server:
        slow = server.connect()
        slow.sendall(b"GET /api/meta HTTP/1.1\r\nHost: localhost\r\n")
        started = time.monotonic()
        with pytest.raises(OSError):  # the server closes while we are still sending
            for _ in range(30):
                slow.sendall(b"X")
                time.sleep(0.1)
        assert time.monotonic() - started < 2.5
        slow.close()


def test_a_body_that_does_not_arrive_in_time_closes_the_connection_quietly(
    db: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue: a body sent a byte every 2 s kept its connection (and a request) for good."""
    with LiveServer(db, "--body-timeout", "0.6") as server:
        game = create_game(server)
        slow = server.connect()
        slow.sendall(
            f"POST /api/games/{game['id']}/actions HTTP/1.1\r\nHost: localhost\r\n"
            "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n".encode()
        )
        started = time.monotonic()
        with pytest.raises(OSError):
            for _ in range(30):
                slow.sendall(b" ")
                time.sleep(0.1)
        assert time.monotonic() - started < 2.5
        slow.close()
        time.sleep(0.2)  # the app has seen the disconnect
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_an_idle_connection_is_closed_after_its_response(db: Path) -> None:
    with LiveServer(db, "--idle-timeout", "0.3") as server:
        sock = server.connect()
        sock.sendall(b"GET /api/meta HTTP/1.1\r\nHost: localhost\r\n\r\n")
        received, seconds = read_until_closed(sock, limit=3)
        assert received.startswith(b"HTTP/1.1 200") and seconds < 1.5


def test_a_websocket_without_hello_is_cut_soon_after_the_deadline(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client that neither says hello nor answers the server's close holds its connection
    only briefly (uvicorn alone waits 10 s for the answer)."""
    monkeypatch.setattr(app_module, "HELLO_TIMEOUT", 0.3)
    with LiveServer(db) as server:
        sock = _handshake(server, create_game(server)["id"])
        received, seconds = read_until_closed(sock, limit=8)
        assert b"no hello received" in received
        assert seconds < 0.3 + CLOSE_TIMEOUT + 1


# ------------------------------------------------------------------------------ websocket frames


def _handshake(server: LiveServer, game_id: str) -> socket.socket:
    sock = server.connect()
    sock.sendall(
        f"GET /ws/{game_id} HTTP/1.1\r\nHost: localhost\r\n"
        "Upgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    assert sock.recv(4096).startswith(b"HTTP/1.1 101")
    return sock


def test_a_frame_over_the_protocol_limit_is_refused_from_its_header(db: Path) -> None:
    """Issue: frames up to 16 MiB were buffered before the 64 KiB check (40 clients x 3
    frames: 2.4 GB). Only the header and 1 KiB of a 16 MiB frame are sent: the server must
    close at once, without waiting for the rest."""
    with LiveServer(db) as server:
        sock = _handshake(server, create_game(server)["id"])
        length = 16 * 1024 * 1024
        # text frame, masked with an all-zero key, 64-bit length
        sock.sendall(bytes([0x81, 0x80 | 127]) + length.to_bytes(8, "big") + b"\0" * 4)
        sock.sendall(b"a" * 1024)
        received, seconds = read_until_closed(sock, limit=3)
        # a close frame with code 1009, "message too big"
        assert received[0] == 0x88 and int.from_bytes(received[2:4], "big") == 1009
        assert seconds < 2


def test_a_frame_at_the_protocol_limit_is_read(db: Path) -> None:
    with LiveServer(db) as server:
        game = create_game(server)
        with websocket(server, game["id"]) as ws:
            ws.send(" " * (MAX_MESSAGE_BYTES - 2) + "{}")
            error = json.loads(ws.recv(timeout=5))
        assert error["code"] == "bad-message" and "hello" in error["message"]


# ------------------------------------------------------------------------------ proxy headers


def _upload_from(server: LiveServer, forwarded_for: str) -> int:
    status, _, _ = server.request(
        "POST", "/api/replay", b"{}", {**JSON_TYPE, "x-forwarded-for": forwarded_for}
    )
    return status


def test_forwarded_for_headers_are_ignored_without_a_trusted_proxy(db: Path) -> None:
    """Issue: 30 of 30 uploads passed the 20-a-minute limit with forged X-Forwarded-For."""
    with LiveServer(db, "--replays-per-minute", "1") as server:
        assert _upload_from(server, "203.0.113.1") == 400  # the empty record is refused...
        assert _upload_from(server, "203.0.113.2") == 429  # ...and counted for 127.0.0.1


def test_a_trusted_proxy_names_its_clients(db: Path) -> None:
    with LiveServer(db, "--replays-per-minute", "1", "--trusted-proxy", "127.0.0.1") as server:
        assert _upload_from(server, "203.0.113.1") == 400
        assert _upload_from(server, "203.0.113.2") == 400  # another client: its own limit
        assert _upload_from(server, "203.0.113.2") == 429


def test_one_ipv6_network_is_one_client_for_the_rate_limits(db: Path) -> None:
    """Issue 22: every limit was per exact address, and an IPv6 /64 is 2^64 addresses."""
    with LiveServer(db, "--replays-per-minute", "1", "--trusted-proxy", "127.0.0.1") as server:
        assert _upload_from(server, "2001:db8:0:1::1") == 400
        assert _upload_from(server, "2001:db8:0:1:ffff::2") == 429  # the same /64
        assert _upload_from(server, "2001:db8:0:2::1") == 400  # another network
        assert _upload_from(server, "::ffff:203.0.113.7") == 400
        assert _upload_from(server, "203.0.113.7") == 429  # the same IPv4 address


def test_the_address_groups_are_configurable(db: Path) -> None:
    flags = ("--ipv4-prefix", "24", "--ipv6-prefix", "48", "--max-connections-per-address", "3")
    with (
        LiveServer(
            db, *flags, "--replays-per-minute", "1", "--trusted-proxy", "127.0.0.9"
        ) as server,
        held_connections(server, ["127.0.0.1", "127.0.0.2", "127.0.0.3"]),
    ):
        error = assert_refused(server.connect("127.0.0.4"))  # one /24: one client
        assert error["message"] == "too many connections from this address"
        status, _, _ = server.request("GET", "/api/meta", source="127.0.1.1")
        assert status == 200
        proxied = {**JSON_TYPE, "x-forwarded-for": "2001:db8:5:1::1"}
        assert server.request("POST", "/api/replay", b"{}", proxied, source="127.0.0.9")[0] == 400
        proxied["x-forwarded-for"] = "2001:db8:5:2::1"  # the same /48
        assert server.request("POST", "/api/replay", b"{}", proxied, source="127.0.0.9")[0] == 429


def test_address_groups() -> None:
    groups = AddressGroups()
    assert groups.key("203.0.113.7") == "203.0.113.7"
    assert groups.key("::ffff:203.0.113.7") == "203.0.113.7"
    assert (
        groups.key("2001:db8:0:1:2:3:4:5") == groups.key("2001:db8:0:1::9") == "2001:db8:0:1::/64"
    )
    assert groups.key("2001:db8:0:2::1") != groups.key("2001:db8:0:1::1")
    assert groups.key("testclient") == "testclient"  # no address: kept as it is
    assert AddressGroups(24, 128).key("2001:db8::1") == "2001:db8::1"
    assert AddressGroups(24, 128).key("203.0.113.7") == "203.0.113.0/24"
    with pytest.raises(ValueError):
        AddressGroups(ipv6_prefix=8)


def test_the_connection_cap_counts_an_ipv6_network_as_one_client() -> None:
    guard = ConnectionGuard(ConnectionLimits(max_per_address=2))
    transports = [object() for _ in range(4)]
    assert guard.admit(transports[0], "2001:db8:0:1::1") is None  # type: ignore[arg-type]
    assert guard.admit(transports[1], "2001:db8:0:1::2") is None  # type: ignore[arg-type]
    refused = guard.admit(transports[2], "2001:db8:0:1::3")  # type: ignore[arg-type]
    assert refused is not None and refused.reason == "too_many_from_address"
    assert guard.admit(transports[3], "2001:db8:0:2::1") is None  # type: ignore[arg-type]
    guard.release(transports[0])  # type: ignore[arg-type]
    assert guard.admit(transports[2], "2001:db8:0:1::3") is None  # type: ignore[arg-type]


# ------------------------------------------------------------------------------ log lines


def _record(message: str, *args: Any) -> logging.LogRecord:
    return logging.LogRecord("carcassonne.web", logging.WARNING, __file__, 1, message, args, None)


def test_log_lines_of_one_kind_are_rate_limited() -> None:
    """Issue: 625,275 "Too many open files" lines (252 MB) in 40 s."""
    now = [0.0]
    throttle = LogThrottle(burst=3, window=60, clock=lambda: now[0])
    passed = [throttle.filter(_record("refused %s", f"10.0.0.{i}")) for i in range(10)]
    assert passed == [True] * 3 + [False] * 7
    assert throttle.filter(_record("another kind"))  # not hidden by the flood
    now[0] = 60.0
    resumed = _record("refused %s", "10.0.0.99")
    assert throttle.filter(resumed)
    assert resumed.getMessage() == "refused 10.0.0.99 [7 more like this were not logged]"
    assert throttle.filter(_record("refused %s", "x"))
    assert _record("refused %s", "x").getMessage() == "refused x"


def test_serve_help_documents_the_limits(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--help"])
    text = capsys.readouterr().out
    for flag in (
        "--max-connections",
        "--max-connections-per-address",
        "--header-timeout",
        "--body-timeout",
        "--idle-timeout",
        "--allow-origin",
        "--allowed-host",
        "--trusted-proxy",
        "--ipv4-prefix",
        "--ipv6-prefix",
        "--unclaimed-expiry-minutes",
    ):
        assert flag in text


def test_a_compressed_frame_is_held_to_the_limit_once_inflated(db: Path) -> None:
    """Per-message deflate: a small frame must not inflate past the protocol's 64 KiB."""
    with LiveServer(db) as server:
        game = create_game(server)
        with websocket(server, game["id"]) as ws:  # the client compresses by default
            ws.send("a" * (4 * MAX_MESSAGE_BYTES))  # a few hundred bytes on the wire
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


def test_serve_logs_a_flood_of_refusals_in_a_few_lines(tmp_path: Path) -> None:
    """The real command: its log handler drops all but a few lines of one kind."""
    sock = serve.listen("127.0.0.1", 0)  # inherited by the server: no other program takes it
    port = sock.getsockname()[1]
    db = str(tmp_path / "games.sqlite3")
    command = [sys.executable, "-m", "carcassonne.cli.main", "serve", "--fd", str(sock.fileno()),
               "--db", db, "--max-connections-per-address", "1"]  # fmt: skip
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, pass_fds=(sock.fileno(),)
    )
    try:
        for _ in range(150):  # up to 15 s to start listening
            try:
                held = socket.create_connection(("127.0.0.1", port), timeout=5)
                break
            except ConnectionRefusedError:
                time.sleep(0.1)
        else:
            raise AssertionError("the server did not start")
        time.sleep(0.2)
        for _ in range(50):
            with socket.create_connection(("127.0.0.1", port), timeout=5) as refused:
                assert refused.recv(100).startswith(b"HTTP/1.1 503")
        held.close()
    finally:
        process.terminate()
        _, err = process.communicate(timeout=15)
        sock.close()
    lines = err.decode().splitlines()
    refusals = [line for line in lines if "refused a connection" in line]
    assert len(refusals) == 10, lines  # LogThrottle's burst
    assert not any("Traceback" in line for line in lines)


def test_a_huge_log_record_is_cut_to_its_beginning_and_end() -> None:
    """Issue 22: the log throttle counted lines, and one line quoting a client's 1.9 MB value
    was 1.9 MB of log."""
    formatter = BoundedFormatter("%(levelname)s %(message)s", max_chars=1000)
    value = "x" * 1_900_000 + " the end"
    huge = formatter.format(_record("failed on %s", value))
    assert len(huge) < 1100
    assert huge.startswith("WARNING failed on xxx") and huge.endswith("xxx the end")
    whole = len("WARNING failed on ") + len(value)
    assert f"[... {whole - 1000} characters not logged ...]" in huge
    small = _record("refused %s", "10.0.0.1")
    assert formatter.format(small) == "WARNING refused 10.0.0.1"


def test_serve_logs_through_the_bounded_formatter() -> None:
    assert isinstance(throttled_handler().formatter, BoundedFormatter)


@pytest.mark.parametrize(
    "headers",
    [
        b"x-large: " + b"x" * 64 * 1024 + b"\r\n",
        b"".join(b"x-h%d: 1\r\n" % i for i in range(10_000)),
    ],
    ids=["a 64 KiB header", "10,000 headers"],
)
def test_a_request_head_sent_at_once_is_held_to_the_header_limits(db: Path, headers: bytes) -> None:
    """Issue 22: uvicorn's parser bounds a head only while it is incomplete; one sent in one
    go was taken whatever its size."""
    with LiveServer(db) as server:
        sock = server.connect()
        sock.sendall(b"GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + b"\r\n")
        received, _ = read_until_closed(sock, limit=5)
        assert received.startswith(b"HTTP/1.1 431"), received[:200]
        status, _, _ = server.request("GET", "/api/meta")
        assert status == 200
