#!/usr/bin/env python3
"""An accuracy surrogate fitted from a CSV read with the standard library (no pandas).

Reads the shipped proxy accuracies of the dc-accelerator space (data/accuracy, 570 trained
networks), fits dcnas's XGBoost surrogate with 20% of the networks held out, prints its held-out
Kendall tau and predicts a few new architectures. The model is saved to the output folder
(first argument) as surrogate.ubj and loaded back.
"""
import csv
import os
import sys

import dcnas

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data", "accuracy", "dc-accelerator-r16-n5000-e2.csv")


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    with open(DATA, newline="") as f:
        rows = list(csv.DictReader(f))
    encodings = [r["encoding"] for r in rows]
    accuracies = [float(r["val_accuracy"]) for r in rows]
    print(f"{len(rows)} rows of {rows[0]['space']} from {os.path.relpath(DATA)}")
    space = dcnas.Space.load("dc-accelerator")
    surrogate = dcnas.Surrogate.fit(space, encodings, accuracies, seed=0, holdout=0.2)
    test = surrogate.report["test"]
    print(f"held out: {test['count']} networks, Kendall tau {test['kendall_tau']:.3f}, "
          f"RMSE {test['rmse']:.2f} pp")
    path = os.path.join(out_dir, "surrogate.ubj")
    surrogate.save(path)
    loaded = dcnas.Surrogate.load(path)
    rng = dcnas.Rng(7)
    new = [space.sample(rng) for _ in range(5)]
    mean, std = loaded.predict(new)
    for e, m, s in zip(new, mean, std):
        print(f"{space.to_text(e)}: {m:.2f} +- {s:.2f} %")
    assert (mean == surrogate.predict(new)[0]).all()
    print("->", path)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
