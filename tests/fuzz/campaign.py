"""A long fuzz campaign, counted (issue 13). Fresh random inputs, not the CI's fixed ones.

    python -m tests.fuzz.campaign --surface spec --n 10000
    python -m tests.fuzz.campaign --surface all --n 10000 --seed 7 --save /tmp/findings

Surfaces: `spec` (grammar-derived specs from dsl/grammar.lark via hypothesis, mutated shipped
specs, specs with colliding names: 40/40/20), `scenario` (scenario files through `maf run
--json`), `engine` (random games through the engine API of every generated engine, with a
save/restore check), `lsp` (random frames, a quarter malformed, into `maf lsp`: crashes and
unanswered requests; tests/fuzz/lsp.py, an input is a frame), `suspended` (tampered saved
states with a night under way in wake order or an awaited decision, into Game.from_json:
refused, or accepted and then played on; a stuck game or a seat acting as another is "state
broken"). Each input runs under the
oracles of tests/fuzz/oracle.py with a time limit (--timeout, seconds; past it the input
counts as a hang). Prints one line of counts per surface: tracebacks, hangs, silent
miscompiles, engines that fail to import, state changes by rejected steps or lost by
save/restore, and the normal outcomes. Inputs that break an oracle are written to --save (one
file each) so they can join tests/fuzz/corpus/.
Exit status 1 if anything broke an oracle.
"""
from __future__ import annotations

import argparse
import collections
import os
import random
import signal
import sys
import time
import traceback
from pathlib import Path

from . import gen, oracle


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang()


class Counter:
    def __init__(self, surface: str, save: Path | None):
        self.surface = surface
        self.counts: collections.Counter = collections.Counter()
        self.save = save
        self.first: dict[str, str] = {}

    def run(self, text_for_save: str, fn, timeout: float):
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            outcome = fn()
            self.counts[f"ok:{outcome}"] += 1
        except _Hang:
            self._bad("hang", f"more than {timeout} s", text_for_save)
        except oracle.Finding as f:
            self._bad(f.kind, f.detail, text_for_save)
        except RecursionError as e:
            self._bad("traceback", f"RecursionError: {e}", text_for_save)
        except Exception:  # noqa: BLE001 - the campaign counts what escapes
            self._bad("traceback", traceback.format_exc(limit=-3), text_for_save)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)

    def _bad(self, kind, detail, text):
        self.counts[kind] += 1
        self.first.setdefault(kind, detail)
        if self.save is not None:
            self.save.mkdir(parents=True, exist_ok=True)
            k = sum(v for key, v in self.counts.items() if not key.startswith("ok:"))
            ext = {"spec": "maf", "scenario": "yaml"}.get(self.surface, "txt")
            (self.save / f"{self.surface}-{kind}-{k:05d}.{ext}").write_text(
                f"{text}" if ext != "txt" else f"{text}\n# {detail}\n", encoding="utf-8",
                errors="surrogatepass")

    def line(self, n: int, secs: float) -> str:
        c = self.counts
        ok = ", ".join(f"{k[3:]} {v}" for k, v in sorted(c.items()) if k.startswith("ok:"))
        return (f"{self.surface}: {n} inputs in {secs:.0f} s: tracebacks {c['traceback']}, "
                f"hangs {c['hang']}, silent miscompiles {c['miscompile']}, engines that fail "
                f"to import {c['import']}, state broken {c['state']} (normal outcomes: {ok})")


def spec_surface(n: int, seed: int, counter: Counter, timeout: float) -> None:
    from hypothesis import HealthCheck, Phase, given, settings  # noqa: PLC0415
    rng = random.Random(seed)
    n_grammar = n * 2 // 5
    n_names = n // 5
    n_mutate = n - n_grammar - n_names
    done = [0]

    @settings(max_examples=n_grammar, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(gen.grammar_strategy())
    def grammar(text):
        if done[0] < n_grammar:
            done[0] += 1
            counter.run(text, lambda: oracle.check_spec(text, rng=rng), timeout)

    grammar()
    # hypothesis may stop short when it sees no new inputs: top up with mutations
    n_mutate += n_grammar - done[0]
    for _ in range(n_mutate):
        text = gen.mutate_spec(rng)
        counter.run(text, lambda: oracle.check_spec(text, rng=rng), timeout)
    for _ in range(n_names):
        text, expected = gen.names_spec(rng)
        counter.run(text, lambda: (oracle.check_names_spec(text, expected), "names")[1],
                    timeout)


def scenario_surface(n: int, seed: int, counter: Counter, timeout: float) -> None:
    rng = random.Random(seed)
    for _ in range(n):
        text = gen.scenario_text(rng)
        counter.run(text, lambda: f"exit {oracle.check_scenario(text)}", timeout)


def engine_surface(n: int, seed: int, counter: Counter, timeout: float) -> None:
    from maf.compiler.driver import import_generated  # noqa: PLC0415
    engines = [import_generated(p) for p in sorted((gen.ROOT / "generated").glob("*.py"))]
    rng = random.Random(seed)
    for _ in range(n):
        mod = rng.choice(engines)
        session_seed = rng.randrange(1 << 32)
        counter.run(f"{mod.SPEC} session seed {session_seed}",
                    lambda: (oracle.check_session(mod, random.Random(session_seed)), "session")[1],
                    timeout)


def lsp_surface(n: int, seed: int, counter: Counter, timeout: float) -> None:
    """n random frames into `maf lsp` (tests/fuzz/lsp.py), in sessions of 1,000: a crash or a
    well-formed request left unanswered is a finding; the frames are counted as outcomes."""
    from . import lsp  # noqa: PLC0415
    rng = random.Random(seed)
    for start in range(0, n, 1000):
        k, s = min(1000, n - start), rng.randrange(1 << 32)

        def one(k=k, s=s):
            c = lsp.session(random.Random(s), k)
            for name in ("frames", "malformed", "requests", "answered", "error_responses"):
                counter.counts[f"ok:{name.replace('_', ' ')}"] += getattr(c, name)
            if c.crash:
                raise oracle.Finding("traceback" if "Traceback" in c.crash else "crash", c.crash)
            if c.unanswered:
                raise oracle.Finding("unanswered", f"request ids {c.unanswered[:20]}")
            return "session"

        counter.run(f"lsp session seed {s}, {k} frames", one, max(timeout, 300.0))


def suspended_surface(n: int, seed: int, counter: Counter, timeout: float) -> None:
    """n tampered saved states with suspended inputs (a night under way in wake order, awaited
    and kept decisions; tests/test_state.py makes and tampers them) into Game.from_json: refused
    with a StateError, or accepted and then no seat acts with an ability it does not hold and
    the game plays on (tests/test_liveness.py: some documented input moves it on)."""
    from maf.compiler.driver import import_generated  # noqa: PLC0415
    from tests import test_liveness as live  # noqa: PLC0415
    from tests import test_state as ts  # noqa: PLC0415
    engines = [import_generated(p) for p in sorted((gen.ROOT / "generated").glob("*.py"))]
    rng = random.Random(seed)
    pools = {e.SPEC: ts._suspended_states(e, random.Random(f"{seed}-{e.SPEC}"), 40)
             for e in engines}
    for _ in range(n):
        eng = rng.choice(engines)
        state = rng.choice(pools[eng.SPEC])
        bad, path = ts._tamper_suspended(state, rng, state["n"])
        s = rng.randrange(1 << 32)

        def one(eng=eng, bad=bad, path=path, s=s):
            try:
                g = eng.Game.from_json(bad)
            except eng.StateError:
                return "refused"
            who = ts._acts_as_another(eng, g)
            if who is not None:
                raise oracle.Finding("state", f"{eng.SPEC} {path}: accepted, {who}")
            try:
                live.moves_on(eng, g)
                live.play(eng, g, random.Random(s), 4)
            except AssertionError as e:
                raise oracle.Finding("state", f"{eng.SPEC} {path}: {str(e)[:300]}") from None
            return "accepted"

        counter.run(f"{eng.SPEC} tampered at {path}", one, timeout)


SURFACES = {"spec": spec_surface, "scenario": scenario_surface, "engine": engine_surface,
            "lsp": lsp_surface, "suspended": suspended_surface}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz.campaign", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--surface", choices=[*SURFACES, "all"], default="all")
    ap.add_argument("--n", type=int, default=1000, help="inputs per surface")
    ap.add_argument("--seed", type=int, default=None, help="default: fresh (from the clock)")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per input")
    ap.add_argument("--save", type=Path, default=None, help="write breaking inputs here")
    args = ap.parse_args(argv)
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
    print(f"campaign seed {seed}", flush=True)
    os.chdir(gen.ROOT)
    bad = 0
    for name in (SURFACES if args.surface == "all" else [args.surface]):
        counter = Counter(name, args.save)
        t0 = time.perf_counter()
        SURFACES[name](args.n, seed, counter, args.timeout)
        print(counter.line(args.n, time.perf_counter() - t0), flush=True)
        for kind, detail in counter.first.items():
            print(f"  first {kind}: {detail[:1000]}", flush=True)
        bad += sum(v for k, v in counter.counts.items() if not k.startswith("ok:"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
