#!/usr/bin/env python3
"""Writes the published top-1 of the timm MBConv-family networks from
data/benchmarks/timm-imagenet-mbconv/models.csv into two tables:

- data/accuracy/published-imagenet.csv gains every row the layer graph can build (CondConv,
  GroupNorm and EvoNorm networks are left out, as `dcnas models show` refuses them), model
  'timm:<arch>', with its evaluation resolution, training data (timm's pretrain: in1k, in1k-ap,
  in12k, in21k, jft300m-ns), recipe (timm's weight tag) and source; the zoo's own rows stay as they
  are and first. Rerunning replaces the timm rows.
- OUT (default data/accuracy/published-timm-in1k.csv) holds one row per architecture trained on
  ImageNet-1k alone: of the rows with pretrain 'in1k' (no extra data, no AdvProp), those evaluated
  at the architecture's smallest in1k image size, the best top-1 (timm's default tag for that
  size): the primary row `dcnas` takes from the full table. Recipe is a confound this keeps out:
  every row is an ImageNet-1k-only training, evaluated by one harness.

Usage: scripts/timm_published.py [OUT]
"""
import csv
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
TABLE = os.path.join(ROOT, "data/benchmarks/timm-imagenet-mbconv/models.csv")
FULL = os.path.join(ROOT, "data/accuracy/published-imagenet.csv")
UNBUILDABLE_NORMS = {"groupnorm", "evonorm_s0"}
SOURCE = "timm results-imagenet.csv (commit aa4b5850c154) "
FULL_HEADER = ["model", "top1", "resolution", "training_data", "recipe", "source", "note"]


def write(path, header, rows):
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    os.replace(tmp, path)


def buildable(r):
    return "_cc" not in r["arch_def"] and r["norm_type"] not in UNBUILDABLE_NORMS


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1] in ("-h", "--help")):
        print(__doc__, end="", file=sys.stdout if len(argv) == 2 else sys.stderr)
        sys.exit(0 if len(argv) == 2 else 2)
    out = argv[1] if len(argv) == 2 else os.path.join(ROOT, "data/accuracy/published-timm-in1k.csv")
    with open(TABLE, newline="") as f:
        rows = list(csv.DictReader(f))
    # The full table: the zoo's rows, then every buildable timm row.
    with open(FULL, newline="") as f:
        zoo = [r for r in csv.DictReader(f) if not r["model"].startswith("timm:")]
    full = [[r["model"], r["top1"], r["resolution"], r.get("training_data") or "in1k",
             r.get("recipe") or "", r["source"], r.get("note") or ""] for r in zoo]
    timm = [r for r in rows if buildable(r)]
    for r in timm:
        full.append(["timm:" + r["arch"], r["top1"], r["img_size"], r["pretrain"], r["tag"],
                     SOURCE + r["model"], r["family"] + "; crop " + r["crop_pct"]])
    write(FULL, FULL_HEADER, full)
    left_out = sorted({r["arch"] for r in rows if not buildable(r)})
    print(f"{FULL}: {len(zoo)} zoo rows and {len(timm)} of {len(rows)} timm rows "
          f"(left out, not buildable: {', '.join(left_out)})")
    # The ImageNet-1k-only view.
    by_arch = {}
    for r in timm:
        if r["pretrain"] == "in1k" and r["extra_data"] == "no":
            by_arch.setdefault(r["arch"], []).append(r)
    picked = []
    for arch, rs in by_arch.items():
        size = min(int(r["img_size"]) for r in rs)
        best = max((r for r in rs if int(r["img_size"]) == size), key=lambda r: float(r["top1"]))
        picked.append(best)
    picked.sort(key=lambda r: -float(r["top1"]))
    write(out, ["model", "top1", "resolution", "source", "note"],
          [["timm:" + r["arch"], r["top1"], r["img_size"], SOURCE + r["model"],
            r["family"] + "; pretrain in1k; crop " + r["crop_pct"]] for r in picked])
    print(f"{out}: {len(picked)} architectures (ImageNet-1k only) of {len(rows)} rows")


if __name__ == "__main__":
    main(sys.argv)
