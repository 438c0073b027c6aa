#!/usr/bin/env python3
"""The Python module's costs against the C++ it calls (issue: `import dcnas`).

1. A simulate call: Simulator.simulate(graph) of EfficientNet-B0 at batch 128 on tpu-v3 with a
   warm cost cache, totals only and with the per-op report, against the same C++ call
   (bench/sim_bench B0PrepareAndSimulateWarm/0 and /1). Goal: <= 5 us more from Python.
2. An ask/tell evolution loop written in Python (Strategy, SimLatency.latency_and_counts,
   SearchAccuracy.accuracy_many with those counts, mnas_reward; repeats answered from the first result, as `dcnas search` does) against
   `dcnas search` with the same strategy, seed, setup and surrogate, one candidate per round on
   one thread. Goal: >= 50% of the C++ search's candidates per second.
3. The batch forms: simulate_many, SimLatency.latency_ms_many, Surrogate.predict of a matrix.

usage: bench/python_bench.py [BUILD_DIR] [BUDGET]   (defaults: build, 5000)
Run on idle cores with PYTHONPATH=BUILD_DIR/python and Debian's /usr/bin/python3.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import dcnas

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
BUDGET = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
SURROGATE = os.path.join(ROOT, "data", "surrogates", "dc-accelerator.ubj")
SPACE = os.path.join(ROOT, "data", "search_spaces", "dc-accelerator.yaml")
TARGET_MS = 15.0
MIN_TAU = 0.25


def per_call_us(fn, seconds=1.0):
    """Median over repeated batches of the time per call (microseconds)."""
    n = 1
    while True:  # calls per batch: a batch of at least 20 ms
        t = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - t > 0.02:
            break
        n *= 2
    samples = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or len(samples) < 5:
        t = time.perf_counter()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter() - t) / n * 1e6)
    return statistics.median(samples)


def cxx_us():
    """bench/sim_bench's medians (real time, microseconds): a graph prepared on every call
    (B0PrepareAndSimulateWarm/0 totals, /1 per-op report) and a prepared graph (B0WarmTotals,
    B0WarmFullReport)."""
    exe = os.path.join(BUILD, "bench", "sim_bench")
    out = subprocess.run([exe, "--benchmark_filter=B0PrepareAndSimulateWarm|B0Warm",
                          "--benchmark_format=json", "--benchmark_repetitions=5",
                          "--benchmark_report_aggregates_only=true"],
                         check=True, capture_output=True, text=True).stdout
    result = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("aggregate_name") == "median":
            result[b["run_name"]] = b["real_time"]
    return (result["B0PrepareAndSimulateWarm/0"], result["B0PrepareAndSimulateWarm/1"],
            result["B0WarmTotals"], result["B0WarmFullReport"])


def python_search(budget):
    space = dcnas.Space.load(SPACE)
    setup = dcnas.Setup("tpu-v3", batch=128)
    latency = dcnas.SimLatency(space, setup)
    accuracy = dcnas.SearchAccuracy("surrogate:" + SURROGATE, space, min_surrogate_tau=MIN_TAU)
    strategy = dcnas.Strategy("evolution", space, seed=1)
    seen = {}
    start = time.perf_counter()
    while len(seen) < budget:
        (c,) = strategy.ask(1)
        key = tuple(c.encoding)
        if key not in seen:
            lat, counts = latency.latency_and_counts(c.encoding)
            acc = float(accuracy.accuracy_many([c.encoding], [counts])[0])
            seen[key] = dcnas.mnas_reward(acc, lat, TARGET_MS)
        strategy.tell(c, seen[key])
    return budget / (time.perf_counter() - start)


def cxx_search(budget):
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        subprocess.run([os.path.join(BUILD, "cli", "dcnas"), "search", "--space", SPACE,
                        "--strategy", "evolution", "--accel", "tpu-v3", "--batch", "128",
                        "--target-ms", str(TARGET_MS), "--accuracy", "surrogate:" + SURROGATE,
                        "--min-surrogate-tau", str(MIN_TAU), "--budget", str(budget), "--seed",
                        "1", "--references", "none", "--out", tmp], check=True,
                       capture_output=True)
        return budget / (time.perf_counter() - start)


def main():
    setup = dcnas.Setup("tpu-v3", batch=128)
    graph = dcnas.Graph.zoo("efficientnet-b0", batch=128, dtype="bf16")
    simulator = dcnas.Simulator(setup)
    simulator.simulate(graph)
    py_totals = per_call_us(lambda: simulator.simulate(graph, details=False))
    py_full = per_call_us(lambda: simulator.simulate(graph, details=True))
    # glibc may hand a freed report's pages back to the system on every call (a minor page fault
    # each time the next report is allocated), depending on the interpreter's heap; 'keep' holds
    # them, as the C++ benchmark's small heap does by itself.
    dcnas.set_malloc_policy("keep")
    py_full_keep = per_call_us(lambda: simulator.simulate(graph, details=True))
    py_totals_keep = per_call_us(lambda: simulator.simulate(graph, details=False))
    prepared = dcnas.prepare(graph)
    py_prep_totals = per_call_us(lambda: simulator.simulate(prepared, details=False))
    py_prep_full = per_call_us(lambda: simulator.simulate(prepared, details=True))
    cxx_totals, cxx_full, cxx_prep_totals, cxx_prep_full = cxx_us()
    print("1. simulate EfficientNet-B0, batch 128, tpu-v3, warm cache (us per call)")
    print(f"   {'':38} {'C++':>8} {'Python':>8} {'extra':>8}")
    for label, cxx, py in [("Graph, totals only", cxx_totals, py_totals),
                           ("Graph, per-op report", cxx_full, py_full),
                           ("Graph, totals only, malloc keep", cxx_totals, py_totals_keep),
                           ("Graph, per-op report, malloc keep", cxx_full, py_full_keep),
                           ("PreparedGraph, totals only", cxx_prep_totals, py_prep_totals),
                           ("PreparedGraph, per-op report", cxx_prep_full, py_prep_full)]:
        print(f"   {label:38} {cxx:8.1f} {py:8.1f} {py - cxx:8.1f}")
    py_rate = python_search(BUDGET)
    cxx_rate = cxx_search(BUDGET)
    print(f"2. evolution, {BUDGET} networks, tpu-v3 batch 128, surrogate accuracy "
          "(candidates/s)")
    print(f"   dcnas search (C++) {cxx_rate:8.0f}")
    print(f"   Python ask/tell    {py_rate:8.0f}  ({100 * py_rate / cxx_rate:.0f}% of C++)")
    space = dcnas.Space.load(SPACE)
    rng = dcnas.Rng(0)
    encodings = [space.sample(rng) for _ in range(1000)]
    graphs = [space.build_full(e, batch=128, dtype="bf16") for e in encodings[:200]]
    surrogate = dcnas.Surrogate.load(SURROGATE)
    latency = dcnas.SimLatency(space, setup)
    t = time.perf_counter()
    dcnas.simulate_many(graphs, setup)
    many = (time.perf_counter() - t) / len(graphs) * 1e6
    t = time.perf_counter()
    latency.latency_ms_many(encodings)
    lat_many = (time.perf_counter() - t) / len(encodings) * 1e6
    features = surrogate.features(encodings)
    t = time.perf_counter()
    surrogate.predict_features(features)
    pred = (time.perf_counter() - t) / len(encodings) * 1e6
    t = time.perf_counter()
    for e in encodings[:200]:
        surrogate.predict([e])
    pred_one = (time.perf_counter() - t) / 200 * 1e6
    print("3. batch forms (us per item)")
    print(f"   simulate_many, 200 searched networks     {many:8.1f}")
    print(f"   SimLatency.latency_ms_many, 1000          {lat_many:8.1f}")
    print(f"   Surrogate.predict_features, 1000 rows     {pred:8.1f}"
          f"   (predict one at a time: {pred_one:.1f})")


if __name__ == "__main__":
    main()
