# SPDX-License-Identifier: GPL-2.0-or-later
"""What the replay tests share (test_place_replay.py, space-shared, and
test_time_share_replay.py, time-shared): the simulator's replay tool, and
waiting for a cancelled job to give its cores back."""
import os
import time

import pytest

from cosched_loopback.cluster import default_builddir


def replay_tool():
    """cosched-sim-replay of the build under test (skip when not built)."""
    path = os.path.join(default_builddir(), "research", "sim",
                        "cosched-sim-replay")
    if not os.access(path, os.X_OK):
        pytest.skip(f"{path} not built")
    return path


def wait_gone(c, j, holding=("RUNNING", "COMPLETING"), timeout=30):
    """Wait until job j is in none of the states that hold cores."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if c.job(j).get("JobState") not in holding:
            return
        time.sleep(0.2)
    raise AssertionError(f"job {j} still holds its cores after scancel")
