"""Editor latency of `maf lsp` on specs/classic.maf, driven as an editor drives it, side by side
with a baseline commit's server.

Run: python bench/bench_lsp.py [--baseline REV] [--keys 18] [--rate 8] [--rounds 3]

Each round starts the server (stdio, JSON-RPC), initializes it, opens classic.maf and times
the first diagnostics (open latency); lets it settle; then types `--keys` characters (a new
`kill x by shot` statement in an ability body) at `--rate` keys per second, one incremental
didChange per key, and records which document versions get diagnostics published and when the
diagnostics for the last version arrive after the last key (final latency). Typed this way,
the intermediate versions have errors and the last one is clean.

With --baseline, the commit is checked out in a temporary git worktree and its server runs from
there (PYTHONPATH points `maf.dsl` and `maf.compiler` at the worktree's folders). Prints the
median of the rounds and every round; asserts nothing. Each server gets its own tree's
classic.maf (the language grows: a newer spec need not parse on an older server). Targets
(issue 24): final <= 300 ms after the last key at 8 keys/s, first diagnostics <= 1 s after
opening.
"""

from __future__ import annotations

import argparse
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from maf.compiler.tools.lsp import FrameReader, frame

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "specs" / "classic.maf"
ANCHOR = "kill x by shot\n"  # type a second one after the first
TYPED = "\n   kill x by shot"  # 18 keys


class Server:
    def __init__(self, env: dict | None):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "maf.compiler.tools.cli", "lsp"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.inbox: queue.Queue = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        reader = FrameReader(out.read1)  # the server's own frame reader
        while True:
            try:
                msg = reader.next()
            except EOFError:
                self.inbox.put((time.perf_counter(), None))
                return
            self.inbox.put((time.perf_counter(), msg))

    def send(self, msg: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(frame(msg))
        self.proc.stdin.flush()

    def get(self, timeout: float):
        at, msg = self.inbox.get(timeout=timeout)
        if msg is None:
            raise RuntimeError("the server closed its output")
        return at, msg

    def request(self, method: str, params) -> dict:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            _, msg = self.get(120)
            if msg.get("id") == self.next_id and "method" not in msg:
                return msg

    def close(self) -> None:
        try:
            self.request("shutdown", None)
            self.send({"jsonrpc": "2.0", "method": "exit"})
            self.proc.wait(timeout=30)
        except (OSError, RuntimeError, queue.Empty, subprocess.TimeoutExpired):
            pass
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def one_round(env: dict | None, spec: Path, keys: str, rate: float) -> dict:
    text = spec.read_text(encoding="utf-8")
    uri = SPEC.as_uri()
    at = text.index(ANCHOR) + len(ANCHOR) - 1  # the end of that line
    line = text.count("\n", 0, at)
    col = at - (text.rfind("\n", 0, at) + 1)
    s = Server(env)
    try:
        s.request("initialize", {"processId": None, "rootUri": ROOT.as_uri(), "capabilities": {}})
        s.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        t_open = time.perf_counter()
        s.send(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {"uri": uri, "languageId": "maf", "version": 1, "text": text}
                },
            }
        )
        published: dict[int, float] = {}
        while 1 not in published:
            t, msg = s.get(120)
            if msg.get("method") == "textDocument/publishDiagnostics":
                published[msg["params"].get("version") or 0] = t
        open_latency = published[1] - t_open
        # let it settle (the checks of the opened version), as a person reads before typing
        settle = time.perf_counter() + 5
        while time.perf_counter() < settle:
            try:
                s.get(max(settle - time.perf_counter(), 0.01))
            except queue.Empty:
                break
        published.clear()
        t0 = time.perf_counter()
        sent: dict[int, float] = {}
        for k, ch in enumerate(keys):
            due = t0 + k / rate
            while (now := time.perf_counter()) < due:
                try:
                    t, msg = s.get(due - now)
                    if msg.get("method") == "textDocument/publishDiagnostics":
                        published[msg["params"].get("version") or 0] = t
                except queue.Empty:
                    pass
            version = k + 2
            if ch == "\n":
                line, col, end = line, col, (line + 1, 0)
            else:
                end = (line, col + 1)
            s.send(
                {
                    "jsonrpc": "2.0",
                    "method": "textDocument/didChange",
                    "params": {
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [
                            {
                                "range": {
                                    "start": {"line": line, "character": col},
                                    "end": {"line": line, "character": col},
                                },
                                "text": ch,
                            }
                        ],
                    },
                }
            )
            sent[version] = time.perf_counter()
            line, col = end
        last = len(keys) + 1
        final_diags = None
        while last not in published:
            t, msg = s.get(60)
            if msg.get("method") == "textDocument/publishDiagnostics":
                published[msg["params"].get("version") or 0] = t
                if msg["params"].get("version") == last:
                    final_diags = msg["params"]["diagnostics"]
        return {
            "open": open_latency,
            "final": published[last] - sent[last],
            "published": len([v for v in published if v in sent]) + 1,  # and the opened one
            "versions": len(sent) + 1,  # and the opened one
            "clean": final_diags == [],
        }
    finally:
        s.close()


def baseline_env(rev: str, where: Path) -> dict:
    tree = where / "baseline"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(tree), rev], check=True
    )
    stage = where / "stage" / "maf"
    stage.mkdir(parents=True)
    for name in ("dsl", "compiler"):
        (stage / name).symlink_to(tree / name)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(stage.parent) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _check_baseline(env: dict, tree: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", "import maf.compiler.tools.lsp as l; print(l.__file__)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not out.startswith(str(tree.parent / "stage")):
        raise SystemExit(f"the baseline server would not run from its worktree: {out}")


def summary(rounds: list[dict]) -> dict:
    return {
        "open": statistics.median(r["open"] for r in rounds),
        "final": statistics.median(r["final"] for r in rounds),
        "published": statistics.median(r["published"] for r in rounds),
        "versions": rounds[0]["versions"],
        "clean": all(r["clean"] for r in rounds),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", help="a commit to compare with, side by side")
    ap.add_argument("--keys", type=int, default=len(TYPED), help="keys typed")
    ap.add_argument("--rate", type=float, default=8.0, help="keys per second")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    keys = (TYPED * (args.keys // len(TYPED) + 1))[: args.keys]
    results: dict[str, list[dict]] = {"this tree": []}
    with tempfile.TemporaryDirectory() as tmp:
        envs: dict[str, dict | None] = {"this tree": None}
        specs = {"this tree": SPEC}
        if args.baseline:
            envs[args.baseline] = baseline_env(args.baseline, Path(tmp))
            _check_baseline(envs[args.baseline] or {}, Path(tmp) / "baseline")
            results[args.baseline] = []
            # its own classic.maf: the language may have grown since
            specs[args.baseline] = Path(tmp) / "baseline" / "specs" / "classic.maf"
        try:
            for r in range(args.rounds):
                for name, env in envs.items():  # alternate, so load hits both alike
                    res = one_round(env, specs[name], keys, args.rate)
                    results[name].append(res)
                    print(
                        f"round {r + 1} {name:>10}: open {res['open'] * 1000:6.0f} ms, "
                        f"published {res['published']}/{res['versions']}, final "
                        f"{res['final'] * 1000:6.0f} ms after the last key",
                        flush=True,
                    )
        finally:
            if args.baseline:
                subprocess.run(
                    [
                        "git",
                        "-C",
                        str(ROOT),
                        "worktree",
                        "remove",
                        "--force",
                        str(Path(tmp) / "baseline"),
                    ],
                    check=False,
                )
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"\nclassic.maf, {args.keys} keys at {args.rate:g} keys/s, median of {args.rounds} "
        f"rounds (load average {load:.1f} on {os.cpu_count()} cores):"
    )
    names = list(results)
    sums = {n: summary(results[n]) for n in names}
    print(f"{'':34}" + "".join(f"{n:>16}" for n in names) + ("   ratio" if len(names) > 1 else ""))
    rows = [
        ("open -> first diagnostics (ms)", "open", 1000, "{:16.0f}"),
        ("last key -> final diagnostics (ms)", "final", 1000, "{:16.0f}"),
    ]
    for label, key, scale, fmt in rows:
        vals = [sums[n][key] * scale for n in names]
        line = f"{label:34}" + "".join(fmt.format(v) for v in vals)
        if len(vals) > 1 and vals[0]:
            line += f"   {vals[1] / vals[0]:.1f}x faster"
        print(line)
    print(
        f"{'versions published / typed+opened':34}"
        + "".join(f"{sums[n]['published']:>11g} / {sums[n]['versions']:<2}" for n in names)
    )
    print(
        f"{'final diagnostics are the clean ones':34}"
        + "".join(f"{'yes' if sums[n]['clean'] else 'NO':>16}" for n in names)
    )
    print("targets: final <= 300 ms, open <= 1000 ms")


if __name__ == "__main__":
    main()
