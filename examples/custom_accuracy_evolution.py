#!/usr/bin/env python3
"""Regularized evolution driven from Python with your own accuracy function, on a hypothetical
chip: a TPU v3 with 256x256 matrix units and twice the HBM bandwidth.

The accuracy function below is a stand-in of a few lines (no LibTorch): replace it with your own
training loop, a lookup in your results, or a call to a model. The latency is dcnas's simulator
(SimLatency, the search's own objective); the reward is MnasNet's ACC * (LAT / T)^-0.07.
Writes evolution.csv (every evaluated network) into the output folder (first argument).
"""
import csv
import math
import os
import sys

import dcnas

BUDGET = 120
TARGET_MS = 12.0  # per batch of 128


def my_accuracy(space, encoding):
    """A stand-in for a real training: grows with the network's size, saturating."""
    counts = space.build_full(encoding).counts()
    mparams, gflops = counts["params"] / 1e6, counts["flops"] / 1e9
    return 100.0 - 40.0 / (1.0 + 0.3 * mparams ** 0.5 + 0.8 * gflops ** 0.5)


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    space = dcnas.Space.load("dc-accelerator")
    chip = dcnas.Setup("tpu-v3", batch=128, overrides={
        "matrix_unit.rows": 256, "matrix_unit.cols": 256, "hbm.bandwidth_gbps": 1800})
    latency = dcnas.SimLatency(space, chip)
    strategy = dcnas.Strategy("evolution", space, seed=0, population=20)
    seen, rows = {}, []
    while len(seen) < BUDGET:
        (candidate,) = strategy.ask(1)
        key = space.to_text(candidate.encoding)
        if key not in seen:  # a network asked again is answered from its first result
            acc = my_accuracy(space, candidate.encoding)
            lat = latency.latency_ms(candidate.encoding)
            seen[key] = (acc, lat, dcnas.mnas_reward(acc, lat, TARGET_MS))
            rows.append({"encoding": key, "accuracy": acc, "latency_ms": lat,
                         "reward": seen[key][2]})
        strategy.tell(candidate, seen[key][2])
    best = max(rows, key=lambda r: r["reward"])
    front = dcnas.pareto_front([[r["accuracy"], -r["latency_ms"]] for r in rows])
    print(f"{len(rows)} networks on {chip}")
    print(f"best reward {best['reward']:.3f}: accuracy {best['accuracy']:.2f}%, "
          f"{best['latency_ms']:.3f} ms")
    print("  " + "\n  ".join(space.decode(best["encoding"])["stage_ops"]))
    print(f"Pareto front: {len(front)} networks")
    path = os.path.join(out_dir, "evolution.csv")
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print("->", path)
    assert math.isfinite(best["reward"])


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
