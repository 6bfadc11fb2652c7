"""`maf run`: play a scenario file through a generated engine, asserting its expectations.

The format is documented in docs/scenarios.md. Only the engine's public API is used.
"""

from __future__ import annotations

import difflib
import os
import re
import reprlib
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from maf.compiler.driver import compile_file
from maf.compiler.engines import find_root, import_generated, load_engine
from maf.dsl.diagnostics import CompileError, Diagnostic, Span, render

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
    "nominations",
    "innocent",
}


class ScenarioError(Exception):
    """A scenario file that cannot be run (bad YAML, unknown spec, malformed step).

    With a `span` (the YAML node at fault) it renders as a compiler diagnostic: `file:line:col:
    error[CODE]: message`, the line, a caret and a hint (docs/scenarios.md, "Errors"); its str
    is the first line of that."""

    def __init__(
        self,
        message: str,
        span: Span | None = None,
        hint: str | None = None,
        code: str = "S002",
        source: str | None = None,
        notes: tuple[tuple[str, Span], ...] = (),
        file: str | None = None,
    ):
        self.message, self.span, self.hint, self.code = message, span, hint, code
        self.source, self.notes, self.file = source, notes, file
        self.detail: str | None = None  # more lines after the diagnostic (a spec's errors)
        where = span or file
        super().__init__(f"{where}: {message}" if where else message)

    def __str__(self) -> str:
        first = super().__str__()
        return f"{first}\n{self.detail}" if self.detail else first

    def render(self) -> str:
        if self.span is None:
            where = f"{self.file}: " if self.file else ""
            hint = f"\n   = hint: {self.hint}" if self.hint else ""
            text = f"{where}error[{self.code}]: {self.message}{hint}"
        else:
            d = Diagnostic(self.code, self.message, self.span, self.hint, notes=self.notes)
            text = render(d, {self.span.file: self.source or ""})
        return f"{text}\n{self.detail}" if self.detail else text


def display_path(path: str | Path) -> str:
    """A path as messages show it: normalised (no `x/../`), relative to the current directory
    when it is under it."""
    p = os.path.normpath(os.path.abspath(path))
    try:
        rel = os.path.relpath(p)
    except ValueError:  # another drive (Windows)
        return Path(p).as_posix()
    return Path(p if rel.startswith("..") else rel).as_posix()


@dataclass
class Source:
    """A scenario file as read: its display name, its text and its composed YAML, where a value
    is found by its path of keys and indexes (`("steps", 2, "night", 0)`; `("#key", *path)`:
    the key itself) when an error needs its line. Nothing is looked up for a file that runs."""

    file: str
    text: str = ""
    root: yaml.Node | None = None

    def node(self, *path) -> yaml.Node | None:
        """The YAML node at `path`, or None."""
        key = bool(path) and path[0] == "#key"
        path = path[1:] if key else path
        node = self.root
        for i, step in enumerate(path):
            if isinstance(node, yaml.SequenceNode) and type(step) is int:
                if not 0 <= step < len(node.value) or (key and i == len(path) - 1):
                    return None
                node = node.value[step]
            elif isinstance(node, yaml.MappingNode):
                for k, v in reversed(node.value):  # a repeated key: the last one counts
                    if isinstance(k, yaml.ScalarNode) and _scalar_key(k) == step:
                        node = k if key and i == len(path) - 1 else v
                        break
                else:
                    return None
            else:
                return None
        return node

    def span(self, *path) -> Span | None:
        """The Span of the value at `path`, or of its nearest enclosing value that has one."""
        while True:
            node = self.node(*path)
            if node is not None:
                return _span_of(self.file, node.start_mark, node.end_mark)
            if not path:
                return None
            path = path[:-1]

    def error(self, message: str, *path, hint: str | None = None, code: str = "S002"):
        return ScenarioError(message, self.span(*path), hint, code, self.text, file=self.file)


@dataclass
class Result:
    transcript: dict
    failures: list[str] = field(default_factory=list)
    error: dict | None = None  # an illegal step that was not expected
    source: Source | None = None  # the file, for diagnostics with a line and a caret
    error_span: Span | None = None  # where the illegal step is in the file
    error_hint: str | None = None  # a did-you-mean or what the seat could do

    def diagnostics(self) -> list[str]:
        """The illegal step and each failed expectation as compiler-style diagnostics
        (`file:line:col: error[S004|S005]: ...`, the line, a caret, a hint)."""
        src = self.source or Source("<scenario>")
        out = []
        if self.error:
            e = self.error
            step = f"step {e['step']} ({e['phase']})" if e["step"] else "setup"
            msg = f"{step}: {e['reason']}"
            out.append(_diag(src, "S004", msg, self.error_span or src.span(), self.error_hint))
        for f in self.failures:
            out.append(_diag(src, "S005", f, src.span(*_failure_path(f, src)), None))
        return out

    def error_json(self) -> dict | None:
        """`error` of the --json transcript with where it is (`file`, `line`, `col`) and the
        `hint`, when known: keys added to the contract's, none changed."""
        if self.error is None:
            return None
        extra: dict = {}
        if self.error_span is not None:
            sp = self.error_span
            extra = {"file": sp.file, "line": sp.line, "col": sp.col}
        if self.error_hint:
            extra["hint"] = self.error_hint
        return {**self.error, **extra}

    @property
    def ok(self) -> bool:
        return not self.failures and self.error is None


def engine_for(spec: str, base: Path) -> types.ModuleType:
    """The engine for a spec id (generated/<id>.py) or a path to a .maf file."""
    if spec.endswith(".maf"):
        path = (base / spec) if not Path(spec).is_absolute() else Path(spec)
        compiled = compile_file(path, display=display_path(path))
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
        self._nodes = 0

    def compose_node(self, parent, index):
        self._nodes += 1  # without libyaml, the count of _too_many_values
        if self._nodes > MAX_YAML_NODES:
            raise _LimitError(f"more than {MAX_YAML_NODES:,} values")
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


_VALUE_EVENTS = (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent, yaml.AliasEvent)


def _too_many_values(text: str, limit: int) -> bool:
    """Before parsing: whether the YAML holds more than `limit` values (each alias once, so
    never more than it expands to), counted by libyaml's C parser where PyYAML has it: a
    150,000-step scenario is refused in about half a second, where the full load took 17.5 s
    and 407 MB. Without libyaml, _Loader counts while it composes. A YAML error ends the
    count: the load reports it."""
    loader = getattr(yaml, "CSafeLoader", None)
    if loader is None:
        return False
    n = 0
    try:
        for event in yaml.parse(text, Loader=loader):
            if isinstance(event, _VALUE_EVENTS):
                n += 1
                if n > limit:
                    return True
    except Exception:  # any error is the load's to report
        return False
    return False


def parse_yaml(text: str, where: str, src: Source | None = None):
    """Scenario YAML -> Python values, within the limits above; ScenarioError otherwise. With
    `src`, keeps the composed YAML in `src.root` (for errors with a line and a caret)."""
    src = src or Source(where, text)
    src.text = text
    if len(text) > MAX_SCENARIO_BYTES:
        raise ScenarioError(f"the file is larger than {MAX_SCENARIO_BYTES:,} bytes", file=where)
    if _too_many_values(text, MAX_YAML_NODES):
        raise ScenarioError(
            f"the YAML holds more than {MAX_YAML_NODES:,} values", file=where, code="S001"
        )
    try:
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            data = None if node is None else loader.construct_document(node)
        finally:
            loader.dispose()
    except _LimitError as e:
        raise ScenarioError(f"the YAML is {e}", file=where, code="S001") from None
    except yaml.MarkedYAMLError as e:
        raise _yaml_error(e, src) from None
    except yaml.YAMLError as e:
        msg = " ".join(str(e).split())
        raise ScenarioError(f"not valid YAML: {msg}", file=where, code="S001") from None
    except Exception as e:  # PyYAML's constructors raise anything on bad values
        # e.g. an integer of thousands of digits (ValueError), a malformed !!binary or
        # !!timestamp (AttributeError inside PyYAML)
        raise ScenarioError(
            f"a YAML value cannot be read: {_one_line(e)}", file=where, code="S001"
        ) from None
    if _expanded_size(data, MAX_YAML_NODES) > MAX_YAML_NODES:
        raise ScenarioError(
            f"the YAML expands to more than {MAX_YAML_NODES:,} values", file=where, code="S001"
        )
    src.root = node
    return data


def _span_of(file: str, start, end) -> Span:
    """A Span from PyYAML's 0-based marks; a value spanning lines is shown to its line's end."""
    return Span(file, start.line + 1, start.column + 1, end.line + 1, end.column + 1)


_YAML_HINTS = (
    ("'\\t'", "YAML indents with spaces, not tabs"),
    ("mapping values are not allowed", "a value holding ': ' needs quotes"),
    ("expected <block end>", "this line is indented differently from the one above"),
    ("expected ',' or ']'", "a '[' may be missing its closing ']'"),
    ("expected ',' or '}'", "a '{' may be missing its closing '}'"),
    ("did not find expected", "a bracket or quote may be missing its closing half"),
    ("could not find expected ':'", "a key needs ':' after it"),
)


def _yaml_error(e: yaml.MarkedYAMLError, src: Source) -> ScenarioError:
    """PyYAML's error as a diagnostic at its mark, its context as a note."""
    problem = " ".join(str(e.problem or e.context or "not valid YAML").split())
    mark = e.problem_mark or e.context_mark
    if mark is None:
        return ScenarioError(f"not valid YAML: {problem}", file=src.file, code="S001")
    span = Span(src.file, mark.line + 1, mark.column + 1, mark.line + 1, mark.column + 2)
    notes: tuple[tuple[str, Span], ...] = ()
    c = e.context_mark
    if e.context and c is not None and (c.line, c.column) != (mark.line, mark.column):
        notes = (
            (
                " ".join(e.context.split()),
                Span(src.file, c.line + 1, c.column + 1, c.line + 1, c.column + 2),
            ),
        )
    hint = next((h for key, h in _YAML_HINTS if key in problem), None)
    return ScenarioError(
        f"not valid YAML: {problem}", span, hint, "S001", src.text, notes, src.file
    )


def _scalar_key(node) -> object:
    """A mapping key as the safe loader reads it (`3` an int, `night` a string)."""
    if node.tag == "tag:yaml.org,2002:str":
        return node.value  # most keys: no constructor needed
    try:
        return yaml.SafeLoader("").construct_object(node)
    except Exception:  # an odd key (a malformed !!timestamp) is only not located
        return node.value


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text if len(text) <= 200 else text[:200] + "..."


def load(path: Path, src: Source | None = None) -> dict:
    """A scenario file's values, its shape checked; `src` (optional) receives its text and the
    position of each value."""
    src = src or Source(display_path(path))
    try:
        raw = path.read_bytes()
        if len(raw) > MAX_SCENARIO_BYTES:
            raise ScenarioError(
                f"the file is larger than {MAX_SCENARIO_BYTES:,} bytes", file=src.file
            )
        text = raw.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        missing = isinstance(e, FileNotFoundError)
        why = "no such file" if missing else _one_line(e)
        raise ScenarioError(f"cannot read {src.file}: {why}", code="S000") from None
    data = parse_yaml(text, src.file, src)
    if not isinstance(data, dict) or "spec" not in data or "seats" not in data:
        raise src.error(
            "a scenario needs `spec`, `seats` and `steps`",
            hint="start from docs/scenarios.md: `spec: ID`, `seats: [ROLE...]`, `steps: [...]`",
        )
    if not isinstance(data["spec"], str) or not data["spec"] or len(data["spec"]) > 4096:
        raise src.error("`spec` is a spec id or a path to a .maf file", "spec")
    if not isinstance(data["seats"], list) or not all(isinstance(s, str) for s in data["seats"]):
        raise src.error("`seats` is a list of role ids", "seats")
    seed = data.get("seed", 0)
    if type(seed) is not int or not -(2**63) <= seed < 2**63:
        raise src.error(f"`seed` is an integer, not {_short(seed)}", "seed")
    if type(data.get("cards", True)) is not bool:
        raise src.error("`cards` is true or false", "cards")
    if data.get("setup") is not None and not isinstance(data["setup"], str):
        raise src.error("`setup` is the label of a setup", "setup")
    middle = data.get("middle")
    if middle is not None and not (
        isinstance(middle, list) and all(isinstance(r, str) for r in middle)
    ):
        raise src.error("`middle` is a list of role ids (the cards left undealt)", "middle")
    for key in ("expect",):
        if data.get(key) is not None and not isinstance(data[key], dict):
            raise src.error(f"`{key}` must be a mapping", key)
    return data


def _short(value) -> str:
    text = reprlib.repr(value)
    return text if len(text) <= 80 else text[:80] + "..."


def run(path: str | Path) -> Result:
    path = Path(path)
    src = Source(display_path(path))
    data = load(path, src)
    eng = _scenario_engine(data, path, src)
    seats = data["seats"]
    transcript: dict = {
        "spec": str(data["spec"]),
        "seats": seats,
        "steps": [],
        "winner": None,
        "winners": [],
        "winning_seats": [],
    }
    res = Result(transcript, source=src)
    game = _new_game(eng, data, src, res)
    if game is None:
        return res
    if data.get("expect_error"):
        res.failures.append("setup: expected the seat list to be rejected, but it was accepted")
    steps = data.get("steps") or []
    if not isinstance(steps, list):
        raise src.error("`steps` must be a list", "steps")
    for i, step in enumerate(steps, 1):
        phase, expect, choices = _step_shape(step, i, src)
        want_error = expect.get("error")
        answers = _moderator_answers(step, i, src)
        before = game.to_json() if want_error or choices or answers else None
        try:
            if phase == "choices":
                if not choices and not answers:
                    raise src.error(
                        f"step {i}: `choices` lists no decision", "steps", i - 1, "choices"
                    )
                rep = _choose(eng, game, None, choices or [], answers)
            else:
                rep = _play(game, phase, step[phase], i)
                rep = _choose(eng, game, rep, choices or [], answers)
        except ScenarioError as e:
            if e.span is not None:
                raise
            raise src.error(e.message, "steps", i - 1, phase, hint=e.hint) from None
        except eng.IllegalAction as e:
            if (choices or answers) and game.to_json() != before:  # one step: undo its first part
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
            res.error_span, res.error_hint = _locate_illegal(game, eng, step, i, phase, src, e)
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
        transcript["winning_seats"] = _winning_seats(game)
        if want_error:
            res.failures.append(f"step {i}: expected the step to be rejected, but it was played")
        try:
            _compare(i, expect, rep, game, res.failures)
        except (TypeError, ValueError, AttributeError, IndexError) as e:
            raise src.error(
                f"step {i}: malformed expectation ({e})", "steps", i - 1, "expect"
            ) from None
    _compare_final(data.get("expect") or {}, game, src, res)
    transcript["winner"] = game.winner
    transcript["winners"] = _winners(game)
    transcript["winning_seats"] = _winning_seats(game)
    return res


def _scenario_engine(data: dict, path: Path, src: Source) -> Any:
    """The engine of the scenario's `spec`, compiled if needed (S003 if it cannot be)."""
    try:
        return engine_for(str(data["spec"]), path.parent)
    except CompileError as e:
        err = src.error(f"spec {_short(data['spec'])} does not compile", "spec", code="S003")
        err.detail = e.render()
        raise err from None
    except OSError as e:
        why = "no such file" if isinstance(e, FileNotFoundError) else _one_line(e)
        raise src.error(
            f"cannot load spec {_short(data['spec'])}: {why}", "spec", code="S003"
        ) from None
    except ScenarioError as e:
        hint = e.hint or _did_you_mean(data["spec"], _spec_ids(path.parent))
        raise src.error(e.message, "spec", hint=hint, code="S003") from None


def _new_game(eng: Any, data: dict, src: Source, res: Result) -> Any:
    """The scenario's game (seats, setup, seed, cards, middle); None if the engine rejects the
    table (the error is in `res` and its transcript, unless the scenario expects it)."""
    try:
        extra = {"middle": data["middle"]} if data.get("middle") is not None else {}
        return eng.Game.new(
            data["seats"],
            setup=data.get("setup"),
            seed=data.get("seed", 0),
            cards=data.get("cards", True),
            **extra,
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
        res.transcript["error"] = err
        if not data.get("expect_error"):
            res.error = err
            res.error_span, res.error_hint = _locate_setup(eng, data, src, e)
        return None


def _step_shape(step: Any, i: int, src: Source) -> tuple[str, dict, Any]:
    """Step `i`'s phase key (or "choices"), its `expect` and its `choices`, checked."""
    if not isinstance(step, dict):
        raise src.error(
            f"step {i} must be a mapping", "steps", i - 1, hint="a step is `- night: [...]`"
        )
    phases = [k for k in step if k in PHASES]
    unknown = [k for k in step if k not in PHASES and k not in ("expect", "choices", "moderator")]
    if not phases and ("choices" in step or "moderator" in step) and not unknown:
        phases = ["choices"]  # decisions awaited by the step before (it was suspended)
    if len(phases) != 1 or unknown:
        bad = ("#key", "steps", i - 1, unknown[0]) if unknown else ("steps", i - 1)
        near = (
            _did_you_mean(unknown[0], (*PHASES, "expect", "choices", "moderator"))
            if unknown
            else None
        )
        raise src.error(
            f"step {i} needs exactly one of {', '.join(PHASES)}"
            + (f" (unknown keys: {', '.join(map(str, unknown))})" if unknown else ""),
            *bad,
            hint=near,
        )
    expect = step.get("expect") or {}
    if not isinstance(expect, dict):
        raise src.error(f"step {i}: `expect` must be a mapping", "steps", i - 1, "expect")
    choices = step.get("choices")
    if choices is not None and (
        not isinstance(choices, list)
        or not all(isinstance(c, list) and len(c) >= 2 for c in choices)
    ):
        raise src.error(
            f"step {i}: `choices` is a list of [seat, ability, target..., choice...]",
            *("steps", i - 1, "choices"),
        )
    return phases[0], expect, choices


def _compare_final(final: dict, game: Any, src: Source, res: Result) -> None:
    """The scenario's top-level `expect`: the winner(s), and what a bot reads of the game
    after the last step (when no step failed)."""
    if "winner" in final and res.error is None and final["winner"] != game.winner:
        res.failures.append(f"end: expected winner {final['winner']!r}, got {game.winner!r}")
    if "winners" in final and res.error is None and list(final["winners"] or []) != _winners(game):
        res.failures.append(
            f"end: expected winners {list(final['winners'] or [])!r}, got {_winners(game)!r}"
        )
    if "winning_seats" in final and res.error is None:
        want = sorted(final["winning_seats"] or [])
        if want != _winning_seats(game):
            res.failures.append(
                f"end: expected winning seats {want!r}, got {_winning_seats(game)!r}"
            )
    if res.error is None:  # what a bot reads of the game after the last step
        for key in [k for k in ("alive", *_BOT_VIEW) if k in final]:
            _compare_end(src, key, final[key], game, res.failures)


def _diag(src: Source, code: str, message: str, span: Span | None, hint: str | None) -> str:
    if span is None:
        return f"{src.file}: error[{code}]: {message}" + (f"\n   = hint: {hint}" if hint else "")
    return render(Diagnostic(code, message, span, hint), {src.file: src.text})


def _did_you_mean(name, candidates) -> str | None:
    """`did you mean 'shoot'?` for the closest of `candidates`, or None."""
    if not isinstance(name, str):
        return None
    near = difflib.get_close_matches(name, list(dict.fromkeys(candidates)), n=1, cutoff=0.6)
    return f"did you mean {near[0]!r}?" if near else None


def _spec_ids(base: Path) -> list[str]:
    """The spec ids a scenario under `base` can name (generated/*.py, specs/*.maf)."""
    ids: list[str] = []
    for root in filter(None, (find_root(base.resolve()), find_root(Path.cwd().resolve()))):
        ids += [p.stem for p in (root / "generated").glob("*.py") if not p.stem.startswith("_")]
        ids += [p.stem for p in (root / "specs").glob("*.maf")]
    return ids


def _locate_setup(eng, data: dict, src: Source, e) -> tuple[Span | None, str | None]:
    """The seat list's error: at the first unknown role id (with a did-you-mean), else at
    `seats`."""
    roles = tuple(getattr(eng, "ROLES", ()))
    for k, role in enumerate(data["seats"]):
        if roles and role not in roles:
            hint = _did_you_mean(role, roles) or f"the roles of this spec: {', '.join(roles)}"
            return src.span("seats", k), hint
    return src.span("seats"), None


def _locate_illegal(game, eng, step: dict, i: int, phase: str, src: Source, e):
    """Where in step `i` the engine's refusal `e` points (the action of the seat it names,
    its ability or target), and a hint: a did-you-mean for an unknown ability."""
    base: tuple = ("steps", i - 1, phase)
    arg = step.get(phase)
    actions, at = None, base
    if phase in ("night", "wake") and isinstance(arg, list):
        actions = arg
    elif phase == "day" and isinstance(arg, dict) and isinstance(arg.get("actions"), list):
        actions, at = arg["actions"], (*base, "actions")
    if phase == "choices" or (step.get("choices") and e.rule in ("not-awaited", "no-choice")):
        actions, at = step.get("choices"), ("steps", i - 1, "choices")
    if e.seat == "moderator" and step.get("moderator") is not None:  # the moderator's answer
        actions, at = None, ("steps", i - 1, "moderator")
    hint = None
    if isinstance(actions, list) and e.seat is not None:
        for j, a in enumerate(actions):
            if isinstance(a, list) and a and a[0] == e.seat:
                at = (*at, j)
                if e.rule in ("unknown-ability", "ambiguous", "not-holder") and len(a) > 1:
                    at = (*at, 1)
                    hint = _ability_hint(game, eng, e.seat, a[1])
                elif e.rule in ("bad-target", "target") and len(a) > 2:
                    at = (*at, 2)
                break
    return src.span(*at), hint


def _ability_hint(game, eng, seat: int, name) -> str | None:
    """A did-you-mean among the abilities of the seat's role and those it holds now."""
    try:
        role = game.to_json()["roles"][seat - 1]
        held = list(game.held_abilities(seat))
    except (AttributeError, IndexError, KeyError, TypeError):
        return None
    own = [a for a in getattr(eng, "ABILITIES", ()) if a.startswith(f"{role}.")]
    names = [a.split(".", 1)[1] for a in (*held, *own)]
    near = _did_you_mean(name, names + held + own)
    if near:
        return near
    if held:
        return f"seat {seat} holds {', '.join(a.split('.', 1)[1] for a in held)}"
    return None


_FAILURE = re.compile(
    r"(?:step (\d+)|(end)|(setup))(?: \([^)]*\))?: "
    r"(?:unknown expectation '([^']+)'|expected (an error)|expected (winners?) "
    r"|([a-z_]+)(?:\[([^\]]*)\])?: )?"
)


def _failure_path(text: str, src: Source) -> tuple:
    """The path of the expectation a failure message names (for its line in the file)."""
    m = _FAILURE.match(text)
    if m is None:
        return ()
    step, end, setup, unknown, error, winner, key, sub = m.groups()
    if setup:
        return ("expect_error",)
    base = ("expect",) if end else ("steps", int(step) - 1, "expect")
    key = unknown or ("error" if error else None) or winner or key
    if key is None:
        return base[:-1] if not end else base
    if sub is not None:
        for k in (sub, int(sub) if sub.isdigit() else sub):
            if src.node(*base, key, k) is not None:
                return (*base, key, k)
    if src.node(*base, key) is None:
        return base
    return (*base, key)


def _compare_end(src, key: str, want, game, failures: list[str]) -> None:
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
        raise src.error(f"end: malformed expectation ({e})", "expect", key) from None


def _winners(game) -> list:
    """Everyone who won (`g.winners`; engines generated before it existed: the winner alone)."""
    w = getattr(game, "winners", None)
    if w is None:
        return [game.winner] if game.winner is not None else []
    return list(w)


def _winning_seats(game) -> list:
    """The seats that won, dead or alive (`Game.winning_seats`; engines generated before it
    existed: none)."""
    f = getattr(game, "winning_seats", None)
    return list(f()) if f is not None else []


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


def _awaits_moderator(game) -> bool:
    waits = game.pending_choices()
    return bool(waits) and waits[0]["seat"] == "moderator"


def _moderator_answers(step: Any, i: int, src: Source) -> list:
    """Step `i`'s `moderator:` list: the moderator's choices, in the order the engine asks for
    them, each a value (a seat, a role or team id, a number) or null (declines)."""
    if not isinstance(step, dict) or step.get("moderator") is None:
        return []
    answers = step["moderator"]
    if not isinstance(answers, list) or not all(
        a is None or isinstance(a, (int, str)) and not isinstance(a, bool) for a in answers
    ):
        raise src.error(
            f"step {i}: `moderator` is a list of the moderator's choices (a seat, a role or "
            "team id, a number, or null to decline)",
            *("steps", i - 1, "moderator"),
        )
    return answers


def _choose(eng, game, rep: dict | None, choices: list, moderator: list | None = None) -> dict:
    """Give the step's decisions, in order, as the engine awaits them (`choices`; the
    moderator's from `moderator`, whenever the engine waits for the moderator)."""
    choices, moderator = list(choices), list(moderator or ())
    while choices or moderator:
        if moderator and (not choices or _awaits_moderator(game)):
            v = moderator.pop(0)
            rep = game.resolve_choice("moderator", [] if v is None else [v])
            continue
        c = choices.pop(0)
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
        if key in _REPORT_EXPECT:
            _compare_report(key, want, rep, fail)
        elif key in _STATE_EXPECT:
            _compare_state(key, want, state, fail)
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


_REPORT_EXPECT = ("deaths", "private", "public", "silenced", "causes", "timers")
_STATE_EXPECT = ("alive", "roles", "teams")  # read from the saved state after the step


def _compare_report(key: str, want, rep: dict, fail) -> None:
    """An expectation on the step's report (_REPORT_EXPECT)."""
    if key == "deaths":
        if sorted(want or []) != rep["deaths"]:
            fail(key, sorted(want or []), rep["deaths"])
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
    elif key == "causes":
        want_c = {str(k): v for k, v in (want or {}).items()}
        if want_c != rep["causes"]:
            fail(key, want_c, rep["causes"])
    else:  # timers
        got = rep.get("timers", {})
        for name, v in (want or {}).items():
            if got.get(name) != v:
                fail(f"timers[{name}]", v, got.get(name))


def _compare_state(key: str, want, state: dict, fail) -> None:
    """An expectation on the game's state after the step (_STATE_EXPECT)."""
    if key == "alive":
        got = [s for s, a in enumerate(state["alive"], 1) if a]
        if sorted(want or []) != got:
            fail(key, sorted(want or []), got)
    else:  # roles, teams
        for seat, v in (want or {}).items():
            got = state[key][int(seat) - 1]
            if got != v:
                fail(f"{key}[{seat}]", v, got)


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
