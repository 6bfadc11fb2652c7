"""`maf simulate`: statistics, the vanilla recurrence, determinism across workers and Ray, output
forms and bad input."""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from maf.compiler.driver import compile_file, compile_source, load_engine
from maf.compiler.tools.simulate import (Policy, PolicyError, SimulationError, simulate, tables,
                               vanilla_town_win, wilson)
from maf.compiler.tools.simulate.cli import engine_source
from maf.compiler.tools.simulate.policies import POLICIES
from maf.compiler.tools.simulate.report import to_csv, to_json, to_text

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
VANILLA = HERE / "vanilla.maf"


@pytest.fixture(scope="module")
def vanilla():
    src = compile_file(VANILLA).python
    return src, load_engine(src, "vanilla")


def maf(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "maf.compiler.tools.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


# ------------------------------------------------------------------ statistics
def test_wilson_known_values():
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)
    assert wilson(0, 0) == (0.0, 1.0)


def test_vanilla_recurrence_small_cases():
    # 3 players, 1 mafia, day first: the day vote hits the mafia with 1/3; otherwise 1 v 1.
    assert vanilla_town_win(3, 1) == Fraction(1, 3)
    # 4 players, 1 mafia: 1/4 at once; else night -> 2 players with 1 mafia: mafia win.
    assert vanilla_town_win(4, 1) == Fraction(1, 4)
    # 5 players, 1 mafia: 1/5 + 4/5 * (night: 3 left, 1 mafia) * 1/3
    assert vanilla_town_win(5, 1) == Fraction(1, 5) + Fraction(4, 5) * Fraction(1, 3)
    assert vanilla_town_win(4, 2) == 0 and vanilla_town_win(4, 0) == 1


@pytest.mark.parametrize("players", [6, 8, 11, 13])
def test_simulation_agrees_with_the_recurrence(vanilla, players):
    src, eng = vanilla
    (table,) = tables(eng, (players, players))
    mafia = dict(zip(eng.ROLES, table.counts))["mafia"]
    games = 3000
    sim = simulate(src, "vanilla", [table], games=games, seed=11, workers=1)
    (t,) = sim.stats
    assert t.games == games and t.finished == games and t.draws == 0
    p = float(vanilla_town_win(players, mafia))
    se = (p * (1 - p) / games) ** 0.5
    assert abs(t.rate("town") - p) <= 4 * se, (t.rate("town"), p, se)
    assert t.wins["town"] + t.wins["mafia"] == games


# ------------------------------------------------------------------ determinism
def test_same_seed_same_results_for_any_worker_count(vanilla):
    src, eng = vanilla
    tabs = tables(eng, (7, 9))
    one = simulate(src, "vanilla", tabs, games=300, seed=5, workers=1, batch=37)
    two = simulate(src, "vanilla", tabs, games=300, seed=5, workers=2, batch=50)
    assert to_json(one, eng) == to_json(two, eng)
    other = simulate(src, "vanilla", tabs, games=300, seed=6, workers=1)
    assert to_json(other, eng) != to_json(one, eng)


@pytest.mark.slow
def test_ray_local_instance_gives_the_same_results(vanilla):
    pytest.importorskip("ray", reason="the ray extra is not installed (pip install -e '.[ray]')")
    src, eng = vanilla
    tabs = tables(eng, (7, 8))
    local = simulate(src, "vanilla", tabs, games=200, seed=3, workers=1)
    remote = simulate(src, "vanilla", tabs, games=200, seed=3, workers=2, ray_address="local",
                      batch=40)
    assert to_json(remote, eng) == to_json(local, eng)


def test_interrupt_returns_partial_results(vanilla):
    src, eng = vanilla
    tabs = tables(eng, (7, 7))

    def stop(done, total):
        raise KeyboardInterrupt

    sim = simulate(src, "vanilla", tabs, games=400, seed=1, workers=1, batch=100, progress=stop)
    assert sim.interrupted
    assert sim.stats[0].games == 100
    assert "INTERRUPTED" in to_text(sim, eng)
    assert to_json(sim, eng)["interrupted"] is True


# ------------------------------------------------------------------ the shipped specs
@pytest.mark.parametrize("policy", ["random", "informed"])
def test_bazpors_plays_to_the_end_under_both_policies(policy):
    src, name = engine_source("bazpors")
    eng = load_engine(src, name)
    tabs = tables(eng, (10, 10))
    sim = simulate(src, name, tabs, games=60, seed=2, workers=1, policy=policy)
    (t,) = sim.stats
    assert t.games == 60
    assert t.finished >= 50  # nearly every game ends well before the cap
    assert sum(t.wins.values()) == t.finished - t.draws
    assert set(t.wins) <= {"mafia", "city"}
    assert 0 < t.mean_days <= 50
    assert set(t.survival()) <= set(eng.ROLES)


@pytest.mark.parametrize("spec", ["classic", "online", "takavar", "tos"])
def test_other_specs_play(spec):
    src, name = engine_source(spec)
    eng = load_engine(src, name)
    tabs = tables(eng, None)[:2]
    sim = simulate(src, name, tabs, games=20, seed=4, workers=1)
    assert all(t.games == 20 for t in sim.stats)
    assert all(t.finished > 0 for t in sim.stats)


# ------------------------------------------------------------------ policies
EXCLUSIVE_SPEC = """
game x {
  name en "X"
  players 6..6
  first night
}
team mafia { name en "M" }
team city { name en "C" }
cause shot
win city when living(mafia) == 0
win mafia when living(mafia) >= alive - living(mafia)
role boss in mafia {
  name en "B"
  ability shoot at night {
    target x: alive(x) and team(x) != mafia
    kill x by shot
  }
  ability recruit at night {
    target x: alive(x) and team(x) != mafia
    convert x to thug
  }
  exclusive shoot, recruit
}
role thug in mafia {
  name en "T"
  ability stab at night {
    target x: alive(x) and team(x) != mafia
    kill x by shot
  }
}
role doctor in city {
  name en "D"
  ability save at night {
    target x: alive(x)
    protect x from shot
  }
}
role citizen in city { name en "C" }
exclusive boss.shoot, thug.stab
setup 6: boss, thug, doctor, citizen * 3
day { vote { threshold alive / 2 tie none } }
"""


def test_the_random_player_uses_one_of_abilities_that_exclude_each_other_at_random():
    """Each ability is used (act 1), but of a seat's `exclusive` abilities and of the table's
    `exclusive` ones only one, drawn uniformly: the night is legal as submitted."""
    import random as _random

    eng = load_engine(compile_source(EXCLUSIVE_SPEC, "x.maf").python, "exclusive_policy")
    kept = {}
    for k in range(400):
        rng = _random.Random(k)
        seats = ["boss", "thug", "doctor", "citizen", "citizen", "citizen"]
        rng.shuffle(seats)
        g = eng.Game.new(seats, seed=k)
        acts = POLICIES["random"](eng, seats, rng).night(g)
        used = tuple(sorted(a[1] for a in acts))
        assert "doctor.save" in used  # excluded by nothing: always used
        kept[used] = kept.get(used, 0) + 1
        g.resolve_night(acts)  # legal as submitted: no repair needed
    # the boss shoots or recruits (1/2 each); a shot excludes the thug's stab at the table
    # (then 1/2 each): recruit + stab 1/2, shoot 1/4, stab alone 1/4
    assert set(kept) == {
        ("boss.recruit", "doctor.save", "thug.stab"),
        ("boss.shoot", "doctor.save"),
        ("doctor.save", "thug.stab"),
    }, kept
    assert 160 <= kept[("boss.recruit", "doctor.save", "thug.stab")] <= 240
    assert 60 <= kept[("boss.shoot", "doctor.save")] <= 140


class Cheater(Policy):
    """Submits a night action for a seat that does not exist."""
    name = "cheater"

    def night(self, game):
        return [[len(self.seats) + 5, "kill", 1]]

    def day(self, game):
        return {}


def test_an_illegal_policy_action_is_reported_with_seed_and_step(vanilla, tmp_path):
    src, eng = vanilla
    tabs = tables(eng, (6, 6))
    with pytest.raises(PolicyError) as info:
        simulate(src, "vanilla", tabs, games=3, seed=9, workers=1, policy=Cheater)
    msg = str(info.value)
    assert "seed" in msg and "step 2 (night)" in msg and "bad-seat" in msg
    sc = info.value.scenario
    assert sc["spec"] == "vanilla" and isinstance(sc["seed"], int) and len(sc["steps"]) == 2
    # the scenario replays the same rejection through `maf run`
    import yaml
    sc["spec"] = str(VANILLA)
    path = tmp_path / "replay.yaml"
    path.write_text(yaml.safe_dump(sc), encoding="utf-8")
    r = maf("run", str(path), "--json")
    out = json.loads(r.stdout)
    assert out["error"]["step"] == 2 and "bad-seat" in out["error"]["rule"] + out["error"]["reason"]


def test_custom_policy_class_plugs_in(vanilla):
    src, eng = vanilla

    class Passive(Policy):
        name = "passive"

        def night(self, game):
            return []

        def day(self, game):
            return {}

    sim = simulate(src, "vanilla", tables(eng, (6, 6)), games=5, workers=1, policy=Passive,
                   max_days=3)
    assert sim.policy == "passive" and sim.stats[0].finished == 0 and sim.stats[0].unfinished == 5


# ------------------------------------------------------------------ outputs and the command
def test_json_schema_is_the_pinned_one(vanilla):
    src, eng = vanilla
    sim = simulate(src, "vanilla", tables(eng, (6, 7)), games=50, seed=1, workers=1)
    out = to_json(sim, eng)
    assert {"spec", "policy", "seed", "tables"} <= set(out)
    assert out["spec"] == "vanilla" and out["policy"] == "random" and out["seed"] == 1
    for t in out["tables"]:
        assert {"players", "setup", "games", "finished", "wins", "ci95", "mean_days"} <= set(t)
        assert t["games"] == 50 and set(t["wins"]) == set(t["ci95"]) >= {"town", "mafia"}
        for lo, hi in t["ci95"].values():
            assert 0 <= lo <= hi <= 1
    assert out["most_balanced"]["players"] in (6, 7)
    rows = to_csv(sim, eng).splitlines()
    assert rows[0].startswith("players,setup,games") and len(rows) == 1 + 2 * 2


def test_cli_text_json_csv_and_clean_redirected_output(tmp_path):
    r = maf("simulate", "bazpors", "--players", "10", "--games", "20", "--workers", "1",
            "--format", "json")
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""  # no progress bar when redirected
    data = json.loads(r.stdout)
    assert data["tables"][0]["players"] == 10 and data["tables"][0]["games"] == 20
    r = maf("simulate", "bazpors", "--players", "10", "--games", "10", "--workers", "1")
    assert r.returncode == 0 and "players" in r.stdout and "most balanced" in r.stdout
    r = maf("simulate", "bazpors", "--players", "10", "--games", "10", "--workers", "1",
            "--format", "csv")
    assert r.returncode == 0 and r.stdout.startswith("players,setup,games")


@pytest.mark.slow
def test_cli_plot(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib is not installed (pip install -e '.[plot]')")
    for ext in ("png", "svg"):
        out = tmp_path / f"rates.{ext}"
        r = maf("simulate", "bazpors", "--players", "10..11", "--games", "10", "--workers", "1",
                "--plot", str(out))
        assert r.returncode == 0, r.stderr
        assert out.stat().st_size > 1000
    assert (tmp_path / "rates.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in (tmp_path / "rates.svg").read_bytes()[:500]


@pytest.mark.parametrize("args, message", [
    (["nosuchspec"], "unknown spec 'nosuchspec'"),
    (["bazpors", "--players", "9"], "bazpors plays with 10..16 players, not 9"),
    (["bazpors", "--players", "10..20"], "not 10..20"),
    (["bazpors", "--setup", "nope"], "no setup named 'nope'"),
    (["bazpors", "--players", "ten"], "--players takes N or LO..HI"),
    (["bazpors", "--games", "0"], "--games must be at least 1"),
    (["bazpors", "--plot", "x.jpg"], "--plot takes a .png or .svg"),
    (["bazpors", "--seats", "boss,nobody"], "has no role 'nobody'"),
])
def test_bad_input_is_one_line_and_exit_2(args, message):
    r = maf("simulate", *args)
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], r.stderr
    assert "Traceback" not in r.stderr


def test_seats_option_plays_one_table():
    src, name = engine_source("bazpors")
    eng = load_engine(src, name)
    seats = ["boss", "nato", "trickster", "doctor", "detective", "bulletproof", "interrogator",
             "researcher", "citizen", "citizen"]
    (t,) = tables(eng, None, None, seats)
    assert t.players == 10 and sum(t.counts) == 10
    with pytest.raises(SimulationError, match="not a table"):
        tables(eng, None, None, seats[:-1])


def test_custom_setups_draw_a_random_accepted_table_per_game():
    src, name = engine_source("tos")
    eng = load_engine(src, name)
    notes: list[str] = []
    tabs = tables(eng, (9, 9), None, None, notes)
    assert [(t.players, t.setup, t.counts) for t in tabs] == [(9, None, None)]
    sim = simulate(src, name, tabs, games=30, seed=8, workers=1)
    (t,) = sim.stats
    assert t.games == 30 and sum(t.dealt.values()) == 30 * 9
    assert len(t.dealt) > 5  # tables differ from game to game
    again = simulate(src, name, tabs, games=30, seed=8, workers=2, batch=7)
    assert to_json(again, eng) == to_json(sim, eng)
    # the ranked setup accepts almost no random seat list: skipped with a note, or an error alone
    tables(eng, (15, 15), None, None, notes)
    assert any("ranked" in n for n in notes)
    with pytest.raises(SimulationError, match="ranked"):
        tables(eng, (15, 15), "ranked")


# ------------------------------------------------------------------ decisions, replays, extras
CALLED = HERE / "called.maf"  # a two-target swap whose targets differ; a haunt of nobody


def test_decisions_with_no_legal_target_or_refused_combinations_are_played():
    """The random player declines a decision whose filter admits nobody (the ghost's haunt of a
    dead mafia: it was a bare IndexError), and draws only target pairs the witch's swap accepts
    (b != a: it drew the same seat twice and the run stopped)."""
    src = compile_file(CALLED).code
    eng = load_engine(src, "called")
    sim = simulate(src, "called", tables(eng, (6, 8)), games=150, seed=3, workers=1)
    assert all(t.games == 150 and t.finished == 150 for t in sim.stats)


def test_a_decision_draw_is_uniform_over_the_accepted_pairs():
    """Over many draws the swap's accepted pairs (a != b among the living) each come up: the
    redraw after a refused pair is uniform among the others, never the refused one."""
    from maf.compiler.tools.simulate.play import _decide

    src = compile_file(CALLED).code
    eng = load_engine(src, "called")
    seen: dict[tuple, int] = {}
    for seed in range(400):
        g = eng.Game.new(["mafia", "mafia", "witch", "ghost", "citizen", "citizen"], seed=seed)
        report = g.resolve_night([[1, "kill", 3]])
        assert report["awaiting"][0]["seat"] == 3
        policy = POLICIES["random"](eng, ["mafia"] * 6, __import__("random").Random(seed))
        log = [{"night": [[1, "kill", 3]]}]
        _decide(eng, g, policy, report, log, [], 0, tables(eng, (6, 6))[0], 0)
        entry = log[-1]["choices"][0]
        assert len(entry) == 4 and entry[2] != entry[3]
        seen[tuple(entry[2:])] = seen.get(tuple(entry[2:]), 0) + 1
    assert len(seen) == 6 * 5  # every ordered pair of different living seats


def test_the_replay_file_names_its_spec_so_that_maf_run_finds_it(vanilla, tmp_path, monkeypatch):
    """The scenario `maf simulate` writes after a policy error names the spec by a path relative
    to the replay file (it was `spec: vanilla`, found only if the spec lay in specs/)."""
    from maf.compiler.tools.simulate import cli as sim_cli
    from maf.compiler.tools.cli import main

    src, eng = vanilla

    def failing(*args, **kw):
        simulate(src, "vanilla", tables(eng, (6, 6)), games=1, seed=9, workers=1, policy=Cheater)

    monkeypatch.setattr(sim_cli, "simulate", failing)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert main(["simulate", str(VANILLA), "--games", "1", "--workers", "1"]) == 1
    (replay,) = work.glob("simulate-failure-vanilla-*.yaml")
    import yaml

    spec = yaml.safe_load(replay.read_text(encoding="utf-8"))["spec"]
    assert spec.endswith("vanilla.maf") and not Path(spec).is_absolute()
    r = maf("run", str(replay), "--json", cwd=tmp_path)  # from another folder
    out = json.loads(r.stdout)
    assert out["error"]["step"] == 2 and "bad-seat" in out["error"]["rule"] + out["error"]["reason"]
    assert sim_cli.replay_spec("bazpors", work / "x.yaml").endswith("specs/bazpors.maf")


@pytest.mark.parametrize("option, value, module", [
    ("--plot", "rates.png", "matplotlib"), ("--ray", "local", "ray")])
def test_a_missing_extra_is_reported_before_any_game_is_played(option, value, module, tmp_path):
    """With the extra's module hidden, `maf simulate` stops at once (a million games would take
    minutes) with the install command of the installed package."""
    code = (f"import sys; sys.modules[{module!r}] = None\n"
            "from maf.compiler.tools.cli import main\n"
            "sys.exit(main(sys.argv[1:]))")
    r = subprocess.run([sys.executable, "-c", code, "simulate", "bazpors", "--games", "1000000",
                        option, value], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    assert f"pip install 'maf[{option[2:]}]'" in r.stderr and "-e" not in r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""


def test_two_specs_of_one_name_are_two_engines(vanilla):
    """A process keeps the engines it loaded by name and source: a spec named like another
    (a .maf file named like a shipped spec) plays its own rules, in one process and in a pool."""
    src, eng = vanilla
    other = compile_source(
        VANILLA.read_text(encoding="utf-8").replace("mafia * 2, citizen * rest",
                                                    "mafia * 3, citizen * rest"),
        "vanilla.maf",
    ).python
    assert other != src
    for workers in (1, 2):
        tabs = tables(load_engine(src, "vanilla"), (7, 7))
        mine = simulate(src, "vanilla", tabs, games=64, seed=2, workers=workers)
        tabs = tables(load_engine(other, "vanilla"), (7, 7))
        theirs = simulate(other, "vanilla", tabs, games=64, seed=2, workers=workers)
        assert mine.stats[0].dealt["mafia"] == 2 * 64
        assert theirs.stats[0].dealt["mafia"] == 3 * 64
