"""The simulator on a Dask distributed cluster (a scheduler and two workers on loopback)."""

from __future__ import annotations

import pytest

from rummy500.engine import Rules
from rummy500.sim import simulate

distributed = pytest.importorskip("distributed")


@pytest.mark.slow
def test_a_cluster_gives_the_same_results_as_local_processes() -> None:
    rules = Rules(target=150)
    try:
        cluster = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            timeout=60,
        )
    except (OSError, TimeoutError) as e:  # no loopback networking here
        pytest.skip(f"cannot start a local Dask cluster: {e}")
    with cluster:
        remote = simulate(
            ["beginner", "random"], 2, 6, rules, seed=4, cluster=cluster.scheduler_address
        )
    local = simulate(["beginner", "random"], 2, 6, rules, seed=4, workers=1)
    a, b = remote.to_json(), local.to_json()
    a.pop("seconds")
    b.pop("seconds")
    assert a == b
    assert [r.to_json() for r in remote.results] == [r.to_json() for r in local.results]
