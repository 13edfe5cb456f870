"""Bad input on the command line: every command answers with one line and a non-zero status.

Each test gives one kind of bad input (a file that is not a record, a folder that cannot be
made, a port out of range, a reader that closes the pipe…) and checks the exact line printed, the
exit status, and that no traceback is printed.  Commands run in-process through ``main``, except
where the interpreter itself is involved (a closed pipe is only seen at the real stdout).
"""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from carcassonne.batch import runner
from carcassonne.cli.main import BROKEN_PIPE, build_parser, main

RECORDS = Path(__file__).parent / "records"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """Status and stderr of ``carcassonne ARGV``; stderr must be one line, without a traceback."""
    status = main(list(argv))
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return status, err


def one_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    return lines[0]


# ------------------------------------------------------------------------------------ replay


def test_replay_of_a_file_that_is_not_utf8_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.json"
    text = b'{"format": "carcassonne-record/1", "info": {"event": "'
    path.write_bytes(text + b'\xe9t\xe9"}}')  # "été" in Latin-1
    status, err = run(capsys, "replay", str(path))
    assert status == 1
    assert one_line(err) == (
        f"carcassonne replay: error: {path}: not a text file (byte {len(text)} is not UTF-8); "
        "a record is JSON text"
    )


@pytest.mark.parametrize(
    "record",
    [
        {"format": "chess-pgn"},  # no moves: the format is what is wrong, not the missing key
        {"format": "chess-pgn", "event": "Linares", "moves": "1. e4 e5"},
    ],
)
def test_replay_of_another_format_names_the_format(
    record: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    status, err = run(capsys, "replay", str(path))
    assert status == 1
    assert one_line(err) == (
        "carcassonne replay: error: record: 'format' must be 'carcassonne-record/1', "
        "not 'chess-pgn': this is not a Carcassonne game record"
    )


def test_replay_quotes_a_long_format_value_cut_short(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"format": "x" * 10_000, "moves": []}), encoding="utf-8")
    _, err = run(capsys, "replay", str(path))
    assert len(one_line(err)) < 200
    assert "not 'xxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxx'" in err


@pytest.mark.parametrize(
    ("name", "reason"), [("missing.json", "No such file or directory"), ("", "Is a directory")]
)
def test_replay_of_a_missing_file_or_a_folder(
    name: str, reason: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / name
    status, err = run(capsys, "replay", str(path))
    assert status == 1
    assert one_line(err) == f"carcassonne replay: error: {path}: cannot read the record: {reason}"


def test_replay_of_an_endless_file_stops_at_the_size_bound(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, err = run(capsys, "replay", "/dev/zero")
    assert status == 1
    assert one_line(err) == (
        "carcassonne replay: error: /dev/zero: more than 16 MiB, too big for a record"
    )


def test_replay_reads_a_record_saved_with_a_byte_order_mark(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    original = RECORDS / "river-discard.json"
    path = tmp_path / "notepad.json"
    path.write_bytes(b"\xef\xbb\xbf" + original.read_bytes())
    assert main(["replay", "--json", str(path)]) == 0
    with_mark = json.loads(capsys.readouterr().out)
    assert main(["replay", "--json", str(original)]) == 0
    assert with_mark == json.loads(capsys.readouterr().out)


def test_replay_into_a_closed_pipe_exits_quietly() -> None:
    """``carcassonne replay --json FILE | head -c 600``: the reader leaves before the output.

    The read end is closed before the command starts, so every write fails as it would once
    ``head`` has what it wants.
    """
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "carcassonne.cli.main", "replay", "--json"]
            + [str(RECORDS / "river-discard.json")],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write_end)
    assert done.stderr == ""
    assert done.returncode == BROKEN_PIPE


def test_a_closed_pipe_in_process_is_not_reported_as_an_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class ClosedPipe(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self) -> None:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert main(["replay", str(RECORDS / "river-discard.json")]) == BROKEN_PIPE
    assert capsys.readouterr().err == ""


# ---------------------------------------------------------------------------------- simulate


def test_simulate_save_records_onto_an_existing_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "records"
    path.write_text("mine", encoding="utf-8")
    status, err = run(capsys, "simulate", "--games", "1", "--save-records", str(path))
    assert status == 2
    assert one_line(err) == (
        f"carcassonne simulate: error: --save-records {path}: this is a file, not a folder"
    )
    assert path.read_text(encoding="utf-8") == "mine"


def test_simulate_save_records_under_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("", encoding="utf-8")
    path = tmp_path / "file" / "records"
    status, err = run(capsys, "simulate", "--games", "1", "--save-records", str(path))
    assert status == 2
    assert one_line(err) == (
        f"carcassonne simulate: error: --save-records {path}: cannot make this folder: "
        "Not a directory"
    )


def test_simulate_reports_a_record_it_cannot_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A write that fails mid-run (disk full, permissions changed) ends the run with one line."""

    def refuse(game: Any, bots: Any, path: Path) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(runner, "save_game_record", refuse)
    status, err = run(
        capsys, "simulate", "--games", "1", "--seed", "1", "--save-records", str(tmp_path)
    )
    assert status == 1
    assert one_line(err) == (
        f"carcassonne simulate: error: {tmp_path / 'game-00001.json'}: Permission denied"
    )


def test_simulate_saves_records_into_a_new_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "new" / "records"
    status, _ = run(capsys, "simulate", "--games", "2", "--seed", "1", "--save-records", str(path))
    assert status == 0
    assert sorted(p.name for p in path.iterdir()) == ["game-00001.json", "game-00002.json"]


# ------------------------------------------------------------------------------------- serve


@pytest.mark.parametrize("port", ["99999", "-1", "http"])
def test_serve_refuses_a_port_out_of_range(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, err = run(capsys, "serve", "--port", port)
    assert status == 2
    reason = (
        f"not a whole number: {port!r}"
        if port == "http"
        else f"must be from 0 to 65535, not {port}"
    )
    assert err.splitlines()[-1] == f"carcassonne serve: error: argument --port: {reason}"


def test_serve_on_a_port_in_use_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        status, err = run(capsys, "serve", "--port", str(port), "--db", str(tmp_path / "g.db"))
    assert status == 1
    assert one_line(err) == (
        f"carcassonne serve: error: cannot listen on 127.0.0.1 port {port}: Address already in use"
    )
    assert capsys.readouterr().out == ""  # no address announced that nobody serves


def test_serve_on_an_inherited_descriptor_that_is_no_bound_tcp_socket(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "g.db")
    with (
        open(tmp_path / "file", "wb") as file,
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp,
        socket.socket() as unbound,
    ):
        udp.bind(("127.0.0.1", 0))
        for fd, why in (
            (file.fileno(), "Socket operation on non-socket"),
            (udp.fileno(), "is not a TCP socket"),
            (unbound.fileno(), "is not bound to a port"),
        ):
            status, err = run(capsys, "serve", "--fd", str(fd), "--db", db)
            assert status == 1
            assert one_line(err).startswith(f"carcassonne serve: error: --fd {fd}")
            assert why in one_line(err)
            assert capsys.readouterr().out == ""
        assert udp.getsockname()[1] != 0 and not file.closed  # left as they were


def test_serve_on_a_folder_as_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, err = run(capsys, "serve", "--db", str(tmp_path))
    assert status == 1
    assert one_line(err).startswith(f"carcassonne serve: error: {tmp_path}: cannot open games")


def test_serve_refuses_an_unknown_database_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 11: such a URL was taken as an SQLite path (a folder named 'mysql:' appeared)."""
    monkeypatch.chdir(tmp_path)
    status, err = run(capsys, "serve", "--db", "mysql://user@host/games")
    assert status == 1
    assert one_line(err) == (
        "carcassonne serve: error: unsupported database URL scheme 'mysql': give an SQLite file "
        "path or a postgresql://user@host/dbname URL"
    )
    assert list(tmp_path.iterdir()) == []


def test_serve_reads_the_database_from_the_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARCASSONNE_DB", "sqlite3://games")
    status, err = run(capsys, "serve")
    assert status == 1
    assert "unsupported database URL scheme 'sqlite3'" in one_line(err)


def test_serve_on_an_unreachable_postgresql_names_it_without_its_password(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    status, err = run(capsys, "serve", "--db", f"postgresql://ana:s3cret@127.0.0.1:{port}/games")
    assert status == 1
    line = one_line(err)
    assert line.startswith(
        f"carcassonne serve: error: postgresql://ana@127.0.0.1:{port}/games: cannot open games "
        "database: connection"
    )
    assert "refused" in line and "s3cret" not in line


def test_serve_on_a_file_that_is_no_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("shopping: bread, milk\n" * 100)
    status, err = run(capsys, "serve", "--db", str(junk))
    assert status == 1
    assert one_line(err) == (
        f"carcassonne serve: error: {junk}: cannot open games database: file is not a database"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bot-delay", "61"], "--bot-delay must be from 0 to 60 seconds, not 61.0"),
        (["--bot-delay", "nan"], "--bot-delay must be from 0 to 60 seconds, not nan"),
        (["--max-games", "0"], "argument --max-games: must be at least 1, not 0"),
        (["--games-per-minute", "-5"], "argument --games-per-minute: must be at least 1, not -5"),
    ],
)
def test_serve_refuses_bad_limits(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, err = run(capsys, "serve", "--db", str(tmp_path / "g.db"), *argv)
    assert status == 2
    assert err.splitlines()[-1] == f"carcassonne serve: error: {message}"


# -------------------------------------------------------------------------------------- play


def test_play_save_into_a_folder_is_refused_before_the_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, err = run(capsys, "play", "--save", str(tmp_path))
    assert status == 2
    assert (
        one_line(err)
        == f"carcassonne play: error: --save {tmp_path}: this is a folder; give a file name"
    )
    assert capsys.readouterr().out == ""  # refused before the first screen


def test_play_save_into_a_missing_folder_is_refused_before_the_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "nowhere" / "game.json"
    status, err = run(capsys, "play", "--save", str(path))
    assert status == 2
    assert one_line(err) == (
        f"carcassonne play: error: --save {path}: there is no folder {tmp_path / 'nowhere'}"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seed", "abc"], "argument --seed: invalid int value: 'abc'"),
        (["--map", "atlantis"], "unknown map 'atlantis'"),
        (["--seats", "human,wizard"], "unknown seat 'wizard' in --seats"),
        (["--players", "3", "--seats", "human,greedy"], "--players 3 does not match the 2 seats"),
        (["--river", "--map", "france"], "the River cannot be played on a map"),
    ],
)
def test_play_refuses_bad_options_in_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, err = run(capsys, "play", *argv)
    assert status == 2
    last = err.splitlines()[-1]
    assert last.startswith("carcassonne play: error: ") and message in last


def test_play_on_an_ascii_terminal_shows_question_marks_not_a_traceback() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "carcassonne.cli.main", "play", "--seed", "1"],
        input="q\n",
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
        timeout=60,
        check=False,
    )
    assert done.stderr == ""
    assert done.returncode == 0
    assert "0?" in done.stdout  # the rotations' degree signs
    assert done.stdout.rstrip().endswith("Game stopped.")


def test_ctrl_c_during_a_parallel_simulation_prints_one_line() -> None:
    """Ctrl-C reaches the whole process group: workers leave it to the parent, which stops."""
    command = [sys.executable, "-m", "carcassonne.cli.main", "simulate", "--games", "10000"]
    process = subprocess.Popen(
        [*command, "--jobs", "2", "--players", "random,random"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own group, as a terminal's foreground job
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        workers = Path(f"/proc/{process.pid}/task/{process.pid}/children")
        deadline = time.monotonic() + 60
        while len(workers.read_text().split()) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # the workers are playing
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    assert err == "\ninterrupted\n"
    assert out == ""
    assert process.returncode == 130


# ------------------------------------------------------------------------- every command

#: each command with the positional arguments it needs before an unknown flag is reached
COMMAND_LINES = {
    "play": ["play"],
    "simulate": ["simulate"],
    "tournament": ["tournament", "--out", "results"],
    "bots": ["bots"],
    "replay": ["replay", "game.json"],
    "review": ["review", "game.json"],
    "serve": ["serve"],
}


def test_the_unknown_flag_table_covers_every_command() -> None:
    commands = next(a for a in build_parser()._actions if a.dest == "command")
    assert set(commands.choices or ()) == set(COMMAND_LINES)


@pytest.mark.parametrize("command", sorted(COMMAND_LINES))
def test_an_unknown_flag_shows_the_commands_own_usage(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, err = run(capsys, *COMMAND_LINES[command], "--bogus")
    assert status == 2
    assert err.startswith(f"usage: carcassonne {command} [-h]")
    assert err.splitlines()[-1] == f"carcassonne {command}: error: unrecognized arguments: --bogus"


def test_an_unknown_flag_before_the_command_is_the_top_levels(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, err = run(capsys, "--bogus", "play")
    assert status == 2
    assert err.startswith("usage: carcassonne [-h] [--version] COMMAND")
    assert err.splitlines()[-1] == "carcassonne: error: unrecognized arguments: --bogus"
