"""`maf run`: play a scenario file through a generated engine, asserting its expectations.

The format is documented in docs/scenarios.md. Only the engine's public API is used.
"""

from __future__ import annotations

import reprlib
import types
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from maf.compiler.driver import compile_file, import_generated, load_engine
from maf.dsl.diagnostics import CompileError

PHASES = ("day", "night", "kill", "revive", "wake", "end_night")
DAY_KEYS = {
    "eliminate",
    "votes",
    "defense",
    "trial",
    "inquiry",
    "actions",
    "breach",
    "card",
    "runoff",
    "election",
}


class ScenarioError(Exception):
    """A scenario file that cannot be run (bad YAML, unknown spec, malformed step)."""


@dataclass
class Result:
    transcript: dict
    failures: list[str] = field(default_factory=list)
    error: dict | None = None  # an illegal step that was not expected

    @property
    def ok(self) -> bool:
        return not self.failures and self.error is None


def find_root(start: Path) -> Path | None:
    for p in [start, *start.parents]:
        if (p / "specs").is_dir() and (p / "generated").is_dir():
            return p
    return None


def engine_for(spec: str, base: Path) -> types.ModuleType:
    """The engine for a spec id (generated/<id>.py) or a path to a .maf file."""
    if spec.endswith(".maf"):
        path = (base / spec) if not Path(spec).is_absolute() else Path(spec)
        compiled = compile_file(path)
        return load_engine(compiled.code, path.stem)
    if not spec.replace("_", "").isalnum() or not spec.isascii() or len(spec) > MAX_SPEC_ID:
        raise ScenarioError(
            f"bad spec id {_short(spec)}: ids are up to {MAX_SPEC_ID} letters, digits and `_`"
        )
    # the scenario's own project, the current directory's, then the one maf is installed from
    here = Path(__file__).resolve().parents[2]
    for root in filter(
        None, (find_root(base.resolve()), find_root(Path.cwd().resolve()), find_root(here))
    ):
        gen = root / "generated" / f"{spec}.py"
        if gen.is_file():
            return import_generated(gen)
        src = root / "specs" / f"{spec}.maf"
        if src.is_file():
            return load_engine(compile_file(src).code, spec)
    raise ScenarioError(f"no engine for spec {spec!r}: looked for generated/{spec}.py")


def _norm_private(priv: dict) -> dict:
    return {str(k): list(v) for k, v in sorted(priv.items())}


def _norm_causes(causes: dict) -> dict:
    return {str(k): v for k, v in sorted(causes.items())}


# Limits on a scenario file, checked while the YAML is read (docs/security.md).
MAX_SCENARIO_BYTES = 5_000_000  # the file
MAX_YAML_DEPTH = 64  # nested lists and mappings
MAX_YAML_ALIASES = 100  # `*name` references
MAX_YAML_NODES = 200_000  # values after expanding every alias (what repr and json see)
MAX_SPEC_ID = 100  # characters in a spec id


class _LimitError(Exception):
    pass


class _Loader(yaml.SafeLoader):
    """The safe loader, counting depth and aliases while it composes, before anything expands."""

    def __init__(self, stream):
        super().__init__(stream)
        self._depth = 0
        self._aliases = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_YAML_ALIASES:
                raise _LimitError(f"more than {MAX_YAML_ALIASES} aliases")
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise _LimitError(f"nested more than {MAX_YAML_DEPTH} deep")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _expanded_size(data, budget: int) -> int:
    """How many values `data` holds with every shared reference counted again (no recursion);
    stops counting past `budget`."""
    count, stack = 0, [data]
    while stack and count <= budget:
        x = stack.pop()
        count += 1
        if isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, (list, tuple, set)):
            stack.extend(x)
    return count


def parse_yaml(text: str, where: str):
    """Scenario YAML -> Python values, within the limits above; ScenarioError otherwise."""
    if len(text) > MAX_SCENARIO_BYTES:
        raise ScenarioError(f"{where}: the file is larger than {MAX_SCENARIO_BYTES:,} bytes")
    try:
        loader = _Loader(text)
        try:
            data = loader.get_single_data()
        finally:
            loader.dispose()
    except _LimitError as e:
        raise ScenarioError(f"{where}: the YAML is {e}") from None
    except yaml.YAMLError as e:
        msg = " ".join(str(e).split())
        raise ScenarioError(f"{where}: not valid YAML: {msg}") from None
    except Exception as e:  # noqa: BLE001 - PyYAML's constructors raise anything on bad values
        # e.g. an integer of thousands of digits (ValueError), a malformed !!binary or
        # !!timestamp (AttributeError inside PyYAML)
        raise ScenarioError(f"{where}: a YAML value cannot be read: {_one_line(e)}") from None
    if _expanded_size(data, MAX_YAML_NODES) > MAX_YAML_NODES:
        raise ScenarioError(f"{where}: the YAML expands to more than {MAX_YAML_NODES:,} values")
    return data


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text if len(text) <= 200 else text[:200] + "..."


def load(path: Path) -> dict:
    try:
        raw = path.read_bytes()
        if len(raw) > MAX_SCENARIO_BYTES:
            raise ScenarioError(f"{path}: the file is larger than {MAX_SCENARIO_BYTES:,} bytes")
        text = raw.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError(f"cannot read {path}: {_one_line(e)}") from None
    data = parse_yaml(text, str(path))
    if not isinstance(data, dict) or "spec" not in data or "seats" not in data:
        raise ScenarioError(f"{path}: a scenario needs `spec`, `seats` and `steps`")
    if not isinstance(data["spec"], str) or not data["spec"] or len(data["spec"]) > 4096:
        raise ScenarioError(f"{path}: `spec` is a spec id or a path to a .maf file")
    if not isinstance(data["seats"], list) or not all(isinstance(s, str) for s in data["seats"]):
        raise ScenarioError(f"{path}: `seats` is a list of role ids")
    seed = data.get("seed", 0)
    if type(seed) is not int or not -(2**63) <= seed < 2**63:
        raise ScenarioError(f"{path}: `seed` is an integer, not {_short(seed)}")
    if type(data.get("cards", True)) is not bool:
        raise ScenarioError(f"{path}: `cards` is true or false")
    if data.get("setup") is not None and not isinstance(data["setup"], str):
        raise ScenarioError(f"{path}: `setup` is the label of a setup")
    for key in ("expect",):
        if data.get(key) is not None and not isinstance(data[key], dict):
            raise ScenarioError(f"{path}: `{key}` must be a mapping")
    return data


def _short(value) -> str:
    text = reprlib.repr(value)
    return text if len(text) <= 80 else text[:80] + "..."


def run(path: str | Path) -> Result:
    path = Path(path)
    data = load(path)
    try:
        eng = engine_for(str(data["spec"]), path.parent)
    except CompileError as e:
        raise ScenarioError(f"spec does not compile:\n{e.render()}") from None
    except OSError as e:
        raise ScenarioError(f"cannot load spec {_short(data['spec'])}: {_one_line(e)}") from None
    seats = data["seats"]
    transcript: dict = {
        "spec": str(data["spec"]),
        "seats": seats,
        "steps": [],
        "winner": None,
        "winners": [],
    }
    res = Result(transcript)
    try:
        game = eng.Game.new(
            seats, setup=data.get("setup"), seed=data.get("seed", 0), cards=data.get("cards", True)
        )
    except eng.IllegalAction as e:
        err = {
            "step": 0,
            "phase": "setup",
            "seat": None,
            "ability": None,
            "rule": e.rule,
            "reason": e.reason,
        }
        transcript["error"] = err
        if not data.get("expect_error"):
            res.error = err
        return res
    if data.get("expect_error"):
        res.failures.append("setup: expected the seat list to be rejected, but it was accepted")
    steps = data.get("steps") or []
    if not isinstance(steps, list):
        raise ScenarioError(f"{path}: `steps` must be a list")
    for i, step in enumerate(steps, 1):
        if not isinstance(step, dict):
            raise ScenarioError(f"{path}: step {i} must be a mapping")
        phases = [k for k in step if k in PHASES]
        unknown = [k for k in step if k not in PHASES and k not in ("expect", "choices")]
        if not phases and "choices" in step and not unknown:
            phases = ["choices"]  # decisions awaited by the step before (it was suspended)
        if len(phases) != 1 or unknown:
            raise ScenarioError(
                f"{path}: step {i} needs exactly one of {', '.join(PHASES)}"
                + (f" (unknown keys: {', '.join(map(str, unknown))})" if unknown else "")
            )
        phase = phases[0]
        expect = step.get("expect") or {}
        if not isinstance(expect, dict):
            raise ScenarioError(f"{path}: step {i}: `expect` must be a mapping")
        want_error = expect.get("error")
        choices = step.get("choices")
        if choices is not None and (
            not isinstance(choices, list)
            or not all(isinstance(c, list) and len(c) >= 2 for c in choices)
        ):
            raise ScenarioError(
                f"{path}: step {i}: `choices` is a list of [seat, ability, target..., choice...]"
            )
        before = game.to_json() if want_error or choices else None
        try:
            if phase == "choices":
                if not choices:
                    raise ScenarioError(f"{path}: step {i}: `choices` lists no decision")
                rep = _choose(eng, game, None, choices)
            else:
                rep = _play(game, phase, step[phase], i)
                rep = _choose(eng, game, rep, choices or [])
        except eng.IllegalAction as e:
            if choices and game.to_json() != before:  # the step is one: undo its first part
                game = eng.Game.from_json(before)
            err = {
                "step": i,
                "phase": phase,
                "seat": e.seat,
                "ability": e.ability,
                "rule": e.rule,
                "reason": e.reason,
            }
            if want_error:
                if (
                    isinstance(want_error, str)
                    and want_error.lower() not in e.reason.lower()
                    and want_error != e.rule
                ):
                    res.failures.append(
                        f"step {i}: expected an error containing {want_error!r}, got {e.reason!r}"
                    )
                if game.to_json() != before:
                    res.failures.append(f"step {i}: the rejected step changed the game state")
                transcript["steps"].append({"step": i, "phase": phase, "rejected": err})
                continue
            transcript["error"] = err
            res.error = err
            break
        rep = {
            "step": i,
            **rep,
            "private": _norm_private(rep["private"]),
            "causes": _norm_causes(rep["causes"]),
        }
        if "start" in rep:
            rep["start"] = {**rep["start"], "private": _norm_private(rep["start"]["private"])}
        transcript["steps"].append(rep)
        transcript["winner"] = game.winner
        transcript["winners"] = _winners(game)
        if want_error:
            res.failures.append(f"step {i}: expected the step to be rejected, but it was played")
        try:
            _compare(i, expect, rep, game, res.failures)
        except (TypeError, ValueError, AttributeError, IndexError) as e:
            raise ScenarioError(f"{path}: step {i}: malformed expectation ({e})") from None
    final = data.get("expect") or {}
    if "winner" in final and res.error is None and final["winner"] != game.winner:
        res.failures.append(f"end: expected winner {final['winner']!r}, got {game.winner!r}")
    if "winners" in final and res.error is None and list(final["winners"] or []) != _winners(game):
        res.failures.append(
            f"end: expected winners {list(final['winners'] or [])!r}, got {_winners(game)!r}"
        )
    if res.error is None:  # what a bot reads of the game after the last step
        for key in [k for k in ("alive", *_BOT_VIEW) if k in final]:
            _compare_end(path, key, final[key], game, res.failures)
    transcript["winner"] = game.winner
    transcript["winners"] = _winners(game)
    return res


def _compare_end(path, key: str, want, game, failures: list[str]) -> None:
    def fail(what, expected, got):
        failures.append(f"end: {what}: expected {expected!r}, got {got!r}")

    try:
        if key == "alive":
            got = [s for s, a in enumerate(game.to_json()["alive"], 1) if a]
            if sorted(want or []) != got:
                fail(key, sorted(want or []), got)
        else:
            _compare_bot_view(key, want, game, fail)
    except (TypeError, ValueError, AttributeError) as e:
        raise ScenarioError(f"{path}: end: malformed expectation ({e})") from None


def _winners(game) -> list:
    """Everyone who won (`g.winners`; engines generated before it existed: the winner alone)."""
    w = getattr(game, "winners", None)
    if w is None:
        return [game.winner] if game.winner is not None else []
    return list(w)


def _play(game, phase: str, arg, i: int) -> dict:
    if phase == "night":
        if arg is None:
            arg = []
        if not isinstance(arg, list):
            raise ScenarioError(f"step {i}: `night` takes a list of actions")
        return game.resolve_night(arg)
    if phase == "day":
        arg = arg or {}
        if not isinstance(arg, dict) or set(arg) - DAY_KEYS:
            raise ScenarioError(
                f"step {i}: `day` takes a mapping with keys {', '.join(sorted(DAY_KEYS))}"
            )
        return game.resolve_day(**arg)
    if phase == "wake":  # the seats next_wake() names act; the report is the night so far
        if arg is None:
            arg = []
        if not isinstance(arg, list):
            raise ScenarioError(f"step {i}: `wake` takes a list of actions")
        woken = game.next_wake()
        return dict(game.wake(arg), woken=woken)
    if phase == "end_night":
        return game.end_night()
    if phase == "kill":
        return game.moderator_kill(arg)
    return game.moderator_revive(arg)


def _choose(eng, game, rep: dict | None, choices: list) -> dict:
    """Give the step's decisions, in order, as the engine awaits them (`choices`)."""
    for c in choices:
        seat, name, values = c[0], c[1], c[2:]
        for want in game.pending_choices():
            if want["seat"] == seat and name not in (
                want["ability"],
                want["ability"].split(".", 1)[-1],
            ):
                raise eng.IllegalAction(
                    seat,
                    name,
                    "not-awaited",
                    f"seat {seat} decides {want['ability']} now, not {name}",
                )
        rep = game.resolve_choice(seat, values)
    if rep is None:  # the caller gives a report, or at least one decision
        raise ScenarioError("`choices` lists no decision")
    return rep


def _compare(i: int, expect: dict, rep: dict, game, failures: list[str]) -> None:
    def fail(key, want, got):
        failures.append(
            f"step {i} ({rep['phase']} {rep['number']}): {key}: expected {want!r}, got {got!r}"
        )

    state = game.to_json()
    for key, want in expect.items():
        if key == "error":
            continue
        if key == "deaths":
            if sorted(want or []) != rep["deaths"]:
                fail(key, sorted(want or []), rep["deaths"])
        elif key == "alive":
            got = [s for s, a in enumerate(state["alive"], 1) if a]
            if sorted(want or []) != got:
                fail(key, sorted(want or []), got)
        elif key == "private":
            for seat, results in (want or {}).items():
                got = rep["private"].get(str(seat), [])
                if list(results or []) != got:
                    fail(f"private[{seat}]", list(results or []), got)
        elif key == "public":
            if list(want or []) != rep["public"]:
                fail(key, list(want or []), rep["public"])
        elif key == "silenced":
            if sorted(want or []) != rep["silenced"]:
                fail(key, sorted(want or []), rep["silenced"])
        elif key in ("roles", "teams"):
            for seat, v in (want or {}).items():
                got = state[key][int(seat) - 1]
                if got != v:
                    fail(f"{key}[{seat}]", v, got)
        elif key == "causes":
            want_c = {str(k): v for k, v in (want or {}).items()}
            if want_c != rep["causes"]:
                fail(key, want_c, rep["causes"])
        elif key == "timers":
            got = rep.get("timers", {})
            for name, v in (want or {}).items():
                if got.get(name) != v:
                    fail(f"timers[{name}]", v, got.get(name))
        elif key == "winner":
            if want != game.winner:
                fail(key, want, game.winner)
        elif key == "winners":
            if list(want or []) != _winners(game):
                fail(key, list(want or []), _winners(game))
        elif key in _BOT_VIEW:
            _compare_bot_view(key, want, game, fail)
        elif key in rep and key not in ("step", "phase", "number"):
            if rep[key] != want:  # any other field of the record: chaos, repeat, speaker...
                fail(key, want, rep[key])
        else:
            failures.append(f"step {i}: unknown expectation {key!r}")


_BOT_VIEW = ("waiting", "held")  # expectations on what a bot reads (docs/engine.md)


def _compare_bot_view(key: str, want, game, fail) -> None:
    """`waiting: {KEY: VALUE}`: the listed keys of `game.waiting()`; `held: {SEAT: [ID...]}`:
    exactly the abilities each listed seat holds (`game.held_abilities`)."""
    if key == "waiting":
        got = game.waiting()
        for k, v in (want or {}).items():
            if got.get(k) != v:
                fail(f"waiting[{k}]", v, got.get(k))
    else:
        for seat, ids in (want or {}).items():
            got = game.held_abilities(int(seat))
            if list(ids or []) != got:
                fail(f"held[{seat}]", list(ids or []), got)


def text_line(rep: dict) -> str:
    if "rejected" in rep:
        return (
            f"{rep['step']:>3} {rep['phase']:<6} rejected (expected): {rep['rejected']['reason']}"
        )
    bits = [f"{rep['step']:>3} {rep['phase']:<6} {rep['number']:<3}"]
    bits.append(f"deaths={rep['deaths']}")
    if rep["public"]:
        bits.append(f"public={rep['public']}")
    if rep["private"]:
        bits.append(f"private={rep['private']}")
    if rep["changes"]:
        bits.append("changes=" + ", ".join(f"{c['seat']}->{c['role']}" for c in rep["changes"]))
    if rep.get("winner"):
        bits.append(f"winner={rep['winner']}")
    if len(rep.get("winners") or ()) > 1 or rep.get("over") and not rep.get("winner"):
        bits.append(f"winners={rep['winners']}")
    return " ".join(bits)
