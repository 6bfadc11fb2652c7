"""Hypothesis profiles for the fuzz suite.

- ``ci`` (the default): derandomized, a bounded number of examples per test, all the fuzz
  tests together in about a minute; the same inputs on every run.
- ``long``: fresh random inputs, many more of them. ``HYPOTHESIS_PROFILE=long python -m pytest
  tests/fuzz`` -- or, for a counted campaign, ``python -m tests.fuzz.campaign`` (see there).
"""
import os

from hypothesis import HealthCheck, settings

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
          HealthCheck.large_base_example]
settings.register_profile("ci", derandomize=True, deadline=None, database=None,
                          suppress_health_check=_QUIET, print_blob=True)
settings.register_profile("long", deadline=None, max_examples=2000,
                          suppress_health_check=_QUIET, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
