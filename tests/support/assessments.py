"""A finished assessment, as the wizard stores it, for results and brief tests.

The standard job lives in :mod:`advisor.demo_scenarios`, which the benches use too.
"""

from advisor.demo_scenarios import PROCUREMENT, SITE, TRAINING, finished_assessment

__all__ = ["PROCUREMENT", "SITE", "TRAINING", "finished_assessment"]
