#!/usr/bin/env python3
"""Writes the published top-1 table (model,top1,resolution,source,note) of the timm MBConv-family
networks trained on ImageNet-1k alone, from data/benchmarks/timm-imagenet-mbconv/models.csv.

One row per architecture the layer graph can build (CondConv, GroupNorm and EvoNorm networks are
left out, as `dcnas models show` refuses them): of the rows with pretrain 'in1k' (no extra data,
no AdvProp), those evaluated at the architecture's smallest in1k image size, the best top-1 (timm's
default tag for that size). Recipe is a confound this keeps out: every row is an ImageNet-1k-only
training, evaluated by one harness.

Usage: scripts/timm_published.py [OUT]   (default data/accuracy/published-timm-in1k.csv)
"""
import csv
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
TABLE = os.path.join(ROOT, "data/benchmarks/timm-imagenet-mbconv/models.csv")
UNBUILDABLE_NORMS = {"groupnorm", "evonorm_s0"}


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1] in ("-h", "--help")):
        print(__doc__, end="", file=sys.stdout if len(argv) == 2 else sys.stderr)
        sys.exit(0 if len(argv) == 2 else 2)
    out = argv[1] if len(argv) == 2 else os.path.join(ROOT, "data/accuracy/published-timm-in1k.csv")
    with open(TABLE, newline="") as f:
        rows = list(csv.DictReader(f))
    by_arch = {}
    for r in rows:
        if r["pretrain"] != "in1k" or r["extra_data"] != "no":
            continue
        if "_cc" in r["arch_def"] or r["norm_type"] in UNBUILDABLE_NORMS:
            continue
        by_arch.setdefault(r["arch"], []).append(r)
    picked = []
    for arch, rs in by_arch.items():
        size = min(int(r["img_size"]) for r in rs)
        best = max((r for r in rs if int(r["img_size"]) == size), key=lambda r: float(r["top1"]))
        picked.append(best)
    picked.sort(key=lambda r: -float(r["top1"]))
    tmp = out + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["model", "top1", "resolution", "source", "note"])
        for r in picked:
            w.writerow(["timm:" + r["arch"], r["top1"], r["img_size"],
                        "timm results-imagenet.csv (commit aa4b5850c154) " + r["model"],
                        r["family"] + "; pretrain in1k; crop " + r["crop_pct"]])
    os.replace(tmp, out)
    print(f"{out}: {len(picked)} architectures (ImageNet-1k only) of {len(rows)} rows")


if __name__ == "__main__":
    main(sys.argv)
