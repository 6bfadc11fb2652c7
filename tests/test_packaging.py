"""pyproject.toml (issue 24 item 7): every runtime dependency the compiler is built on has an
upper bound on its major version, and the versions installed here - the ones the suite tests -
fall inside the bounds; the fast tier's extra installs neither ray nor cython."""
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest

packaging = pytest.importorskip("packaging.requirements", reason="needs the `packaging` module")

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
BOUNDED = {"lark", "jinja2", "z3-solver"}


def _requirements(items):
    return {(r := packaging.Requirement(item)).name.lower(): r for item in items}


def test_the_compilers_dependencies_have_an_upper_bound_on_their_major():
    reqs = _requirements(PROJECT["dependencies"])
    assert BOUNDED <= set(reqs)
    for name in BOUNDED:
        uppers = [s for s in reqs[name].specifier if s.operator == "<"]
        assert uppers, f"{name} has no upper bound"
        assert all(s.version.split(".")[1:] in ([], ["0"]) for s in uppers), uppers


@pytest.mark.parametrize("name", sorted(BOUNDED))
def test_the_installed_version_is_inside_the_bounds(name):
    req = _requirements(PROJECT["dependencies"])[name]
    try:
        installed = version(name)
    except PackageNotFoundError:  # pragma: no cover - a dependency is always installed
        pytest.fail(f"{name} is not installed")
    assert req.specifier.contains(installed, prereleases=True), f"{name} {installed} vs {req}"


def test_the_fast_tier_extra_installs_no_ray_cython_or_matplotlib():
    extras = PROJECT["optional-dependencies"]
    fast = set(_requirements(extras["test"]))
    assert not fast & {"ray", "cython", "matplotlib"}, fast
    assert fast | {"ray", "cython", "matplotlib"} <= set(_requirements(extras["test-all"]))
