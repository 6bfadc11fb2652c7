"""The language server's transport fuzzer (issue 23): a random stream of frames into `maf lsp`
over stdio, as an editor (or a broken pipe) would send them.

A session opens a spec, then sends N frames: well-formed requests (hover, definition,
references, completion, symbols, formatting, unknown methods, bad params), notifications
(didChange with random edits, didOpen/didClose of other documents, cancels, the odd didSave)
and malformed frames of every kind (a length that is huge, too small, too big, negative, not a
number, missing; no blank line; a body that is not JSON, too deep, not UTF-8; junk bytes). After
a malformed frame the next frame is always a well-formed request. The session ends with
shutdown and exit. It counts a crash (the server exits early, or with a status other than 0, or
prints a traceback) and every well-formed request left unanswered. Bounded: loopback pipes only,
N frames, a time limit.

    from tests.fuzz import lsp; lsp.session(random.Random(1), 1000)  -> Counts

Used by tests/test_lsp.py and `python -m tests.fuzz.campaign --surface lsp`.
"""

from __future__ import annotations

import dataclasses
import json
import queue
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from maf.compiler.tools.lsp import FrameReader

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "tests" / "scenarios" / "features" / "features.maf"
CMD = [sys.executable, "-m", "maf.compiler.tools.cli", "lsp"]

REQUESTS = (
    "textDocument/hover",
    "textDocument/definition",
    "textDocument/references",
    "textDocument/completion",
    "textDocument/documentSymbol",
    "textDocument/formatting",
)


@dataclasses.dataclass
class Counts:
    frames: int = 0
    malformed: int = 0
    requests: int = 0  # well-formed requests sent
    after_malformed: int = 0  # of which right after a malformed frame
    answered: int = 0
    error_responses: int = 0
    unanswered: list = dataclasses.field(default_factory=list)  # ids
    crash: str = ""  # why the server counts as crashed ("" if it did not)
    seconds: float = 0.0

    def ok(self) -> bool:
        return not self.crash and not self.unanswered


def frame(msg) -> bytes:
    body = json.dumps(msg).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _junk(rng: random.Random, k: int) -> bytes:
    return bytes(rng.choice(b"{}[]\":,0123456789abcdefxyz \r\n\t\\\x00\xff") for _ in range(k))


def malformed(rng: random.Random, body: bytes) -> bytes:
    """One malformed frame around `body`, of a random kind."""
    n = len(body)
    kind = rng.randrange(16)
    if kind == 0:
        return b"Content-Length: 99999999999999\r\n\r\n" + body
    if kind == 1:
        return b"Content-Length: %d\r\n\r\n" % rng.randrange(0, n) + body
    if kind == 2:
        return b"Content-Length: %d\r\n\r\n" % (n + rng.randrange(1, 200)) + body
    if kind == 3:
        return b"Content-Length: -%d\r\n\r\n" % n + body
    if kind == 4:
        value = rng.choice([b"twelve", b"12a", b"0x1f", b"", b"1e3", b"+5", b"\xff\xfe"])
        return b"Content-Length: " + value + b"\r\n\r\n" + body
    if kind == 5:
        return body  # no header
    if kind == 6:
        return b"Content-Length: %d\r\n" % n + body  # no blank line
    if kind == 7:
        return frame_bytes(body[: rng.randrange(1, n)])  # a body that is not JSON
    if kind == 8:
        depth = rng.randrange(1000, 200_000)
        return frame_bytes(b"[" * depth + b"]" * depth)
    if kind == 9:
        return frame_bytes(b'{"jsonrpc": "2.0", "method": "\xff\xfe"}')  # not UTF-8
    if kind == 10:
        return _junk(rng, rng.randrange(1, 300))
    if kind == 11:
        return b"Content-Length: %d\r\nX Y: z\r\n\r\n" % n + body  # a malformed header line
    if kind == 12:
        return b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n" % (n, n) + body
    if kind == 13:
        return b"Content-Length: %d\r\nX-Pad: %s\r\n\r\n" % (n, b"p" * 5000) + body
    if kind == 14:
        return frame_bytes(rng.choice([b"[]", b"5", b'"x"', b"null", b"{}", b"[1, 2]"]))
    return b"Content-Length: 0\r\n\r\n"


def frame_bytes(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _position(rng: random.Random) -> dict:
    return {"line": rng.randrange(-2, 120), "character": rng.randrange(-2, 90)}


def _request(rng: random.Random, msg_id: int, uri: str) -> dict:
    method = rng.choice(REQUESTS + ("maf/nothing",))
    target = uri if rng.random() < 0.9 else "file:///elsewhere.maf"
    params: dict = {"textDocument": {"uri": target}, "position": _position(rng)}
    if method.endswith("references"):
        params["context"] = {"includeDeclaration": rng.random() < 0.5}
    elif method.endswith("formatting"):
        params = {"textDocument": {"uri": target},
                  "options": {"tabSize": 2, "insertSpaces": True}}
    elif method.endswith("documentSymbol"):
        params = {"textDocument": {"uri": target}}
    if rng.random() < 0.05:
        params = rng.choice([{}, [], None, {"textDocument": 5}, {"position": "x"}])
    return {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}


def _edit(rng: random.Random, text: str) -> str:
    """The spec with a random slice deleted or random text inserted."""
    at = rng.randrange(0, len(text) + 1)
    if rng.random() < 0.5 and text:
        return text[:at] + text[at + rng.randrange(1, 40):]
    piece = rng.choice(["{", "}", "(", "kill x by shot\n", "role ", "x", "\n", " and ", "ki",
                        "\"", "target y: alive(y)\n", "\u0627", "\U0001f600", "9" * 30])
    return text[:at] + piece + text[at:]


class _Server:
    def __init__(self):
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(CMD, cwd=ROOT, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.err)
        self.inbox: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        # the server's own frame reader (a frame it wrote malformed would be skipped, and the
        # request it answered would then count as unanswered)
        reader = FrameReader(self.proc.stdout.read1)
        try:
            while True:
                self.inbox.put(reader.next())
        except EOFError:
            pass
        finally:
            self.inbox.put(None)

    def stderr(self) -> str:
        self.err.seek(0)
        return self.err.read().decode("utf-8", "replace")

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for s in (self.proc.stdin, self.proc.stdout):
            try:
                s.close()
            except OSError:
                pass
        self.err.close()


def session(rng: random.Random, n: int, limit: float = 300.0) -> Counts:
    """One server, n random frames, then shutdown and exit; the counts."""
    counts = Counts()
    t0 = time.perf_counter()
    text = SPEC.read_text(encoding="utf-8")
    uri = SPEC.as_uri()
    server = _Server()
    expected: set[int] = set()
    answered: set[int] = set()
    stream: list[bytes] = [
        frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"processId": None, "rootUri": None, "capabilities": {}}}),
        frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
        frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "maf", "version": 1, "text": text}}}),
    ]
    expected.add(1)
    next_id, version, doc, after_bad = 2, 1, text, False
    for _ in range(n):
        counts.frames += 1
        roll = rng.random()
        if after_bad or roll < 0.35:
            stream.append(frame(_request(rng, next_id, uri)))
            expected.add(next_id)
            counts.requests += 1
            counts.after_malformed += after_bad
            next_id += 1
            after_bad = False
        elif roll < 0.6:
            version += 1
            if rng.random() < 0.7:
                doc = _edit(rng, doc)
                change: dict = {"text": doc}
            else:  # an incremental change at a random place (maybe past the end)
                a, b = sorted((_position(rng), _position(rng)), key=lambda p: tuple(p.values()))
                change = {"range": {"start": a, "end": b}, "text": rng.choice(["", "x", "}\n"])}
            stream.append(frame({"jsonrpc": "2.0", "method": "textDocument/didChange",
                                 "params": {"textDocument": {"uri": uri, "version": version},
                                            "contentChanges": [change]}}))
        elif roll < 0.64:
            other = f"file:///other{rng.randrange(3)}.maf"
            method = rng.choice(["didOpen", "didClose", "didSave", "didOpen"])
            if method == "didSave" and rng.random() < 0.9:
                method = "didClose"  # a save starts the Z3 checks: rarely
            params: dict = {"textDocument": {"uri": other}}
            if method == "didOpen":
                params["textDocument"].update(languageId="maf", version=1,
                                              text=_edit(rng, text))
            stream.append(frame({"jsonrpc": "2.0", "method": f"textDocument/{method}",
                                 "params": params}))
        elif roll < 0.66:
            stream.append(frame({"jsonrpc": "2.0", "method": "$/cancelRequest",
                                 "params": {"id": rng.randrange(next_id + 5)}}))
        else:
            body = json.dumps(_request(rng, -1, uri)).encode()
            stream.append(malformed(rng, body))
            counts.malformed += 1
            after_bad = True
    shutdown_id = next_id
    stream.append(frame({"jsonrpc": "2.0", "id": shutdown_id, "method": "shutdown"}))

    def write():
        try:
            for chunk in stream:
                server.proc.stdin.write(chunk)
            server.proc.stdin.flush()
        except OSError:
            pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    deadline = time.monotonic() + limit
    try:
        # requests may be answered in any order (some wait for the index): read until every
        # one is, or 10 s after the answer to shutdown
        while shutdown_id not in answered or not expected <= answered:
            try:
                msg = server.inbox.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                if shutdown_id not in answered:
                    counts.crash = f"no answer to shutdown within {limit:.0f} s"
                break
            if msg is None:
                counts.crash = "the server closed its output: " + _last_line(server.stderr())
                break
            if isinstance(msg.get("id"), int) and "method" not in msg:
                answered.add(msg["id"])
                counts.error_responses += "error" in msg
                if msg["id"] == shutdown_id:
                    deadline = min(deadline, time.monotonic() + 10)
        counts.answered = len(answered & expected)
        counts.unanswered = sorted(expected - answered)
        if not counts.crash:
            try:
                server.proc.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
                server.proc.stdin.close()
                status = server.proc.wait(timeout=30)
                if status != 0:
                    counts.crash = f"exit status {status}"
            except (OSError, subprocess.TimeoutExpired) as e:
                counts.crash = f"no clean exit: {e}"
        err = server.stderr()
        if "Traceback" in err or "Error:" in err and "MemoryError" in err:
            counts.crash = counts.crash or "a traceback: " + err[err.find("Traceback"):][:300]
    finally:
        server.close()
    counts.seconds = time.perf_counter() - t0
    return counts


def _last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else "(nothing on stderr)"
