"""bench/api_load.py: what it posts and how it reports (its run: tests/integration/test_benches.py)."""

from tests.support.bench import load_bench

bench = load_bench("api_load")


def test_each_round_posts_every_scenario_to_both_endpoints():
    calls = bench.plan(2)
    assert len(calls) == 12
    assert set(calls) == {
        (endpoint, name) for endpoint in bench.ENDPOINTS for name in bench.SCENARIOS
    }
    assert bench.SCENARIOS["hostile"][1] == 400


def test_percentiles_are_nearest_rank():
    values = [float(v) for v in range(1, 101)]
    assert [bench.percentile(values, s) for s in (0.5, 0.95, 0.99)] == [50.0, 95.0, 99.0]


def test_the_report_counts_errors_per_endpoint_and_scenario():
    calls = [
        bench.Call("/api/v1/size", "7b-compared", 0.010, ""),
        bench.Call("/api/v1/size", "hostile", 0.020, "HTTP 500"),
        bench.Call("/api/v1/recommend", "7b-compared", 0.100, ""),
        bench.Call("/api/v1/recommend", "7b-compared", 0.300, "ConnectionError"),
    ]
    lines = bench.report(calls, wall=2.0)
    size = next(line for line in lines if line.startswith("POST /api/v1/size"))
    assert size.split()[2:6] == ["2", "1", "10", "20"]
    assert "4 requests in 2.0 s: 2.0 requests/s" in lines
    assert lines[-3:] == [
        "errors: 2",
        "  1 × POST /api/v1/recommend 7b-compared: ConnectionError",
        "  1 × POST /api/v1/size hostile: HTTP 500",
    ]
