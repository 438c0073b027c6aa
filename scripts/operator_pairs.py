#!/usr/bin/env python3
"""Operator pairs: published ImageNet-1k networks of similar size that differ in one operator
choice, and how often each label orders them as their published top-1 does.

Reads the `accuracy-data zoo --json` report of the timm ImageNet-1k table (labels, params, FLOPs,
activation units, depth, top-1 per architecture) and the architecture columns of
data/benchmarks/timm-imagenet-mbconv/models.csv. Each architecture gets four operator traits from
its block strings: squeeze-excite (any block with se > 0), activation (ReLU family: relu, relu6;
swish family: swish/silu, hard-swish, gelu; the block's override counts), fused (any 'er' block),
and its largest depthwise kernel. A pair is matched when its full-size FLOPs are within 1.25x and
exactly one trait differs. The sign accuracy is the share of pairs, by trait, whose order by the
label equals their order by top-1 (ties in the label count as wrong).

With the ImageNet surrogate's report (`dcnas surrogate imagenet --json`), its leave-one-family-out
predictions are one more label: each network predicted by a surrogate that never saw its family.

usage: scripts/operator_pairs.py [REPORT.json [SURROGATE_REPORT.json]]
       (defaults data/accuracy/zoo/timm-in1k-zc-naswot.json, data/surrogates/imagenet-mbconv-in1k.report.json)
"""
import csv
import json
import math
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
TABLE = os.path.join(ROOT, "data/benchmarks/timm-imagenet-mbconv/models.csv")
RELU = {"relu", "relu6"}
LABELS = [("label", "shipped label"), ("params", "params"), ("flops", "FLOPs"),
          ("act_units", "activation units"), ("depth", "depth")]


def traits(row):
    default = row["act_layer"].split(" ")[0]
    se = False
    fused = False
    acts = set()
    kmax = 0
    for stage in row["arch_def"].split("|"):
        for block in stage.split(";"):
            tokens = block.split("_")
            act = default
            for t in tokens[1:]:
                if t.startswith("se") and float(t[2:]) > 0:
                    se = True
                if t == "nre":
                    act = "relu"
                elif t == "nr6":
                    act = "relu6"
                elif t == "nhs":
                    act = "hard_swish"
                elif t == "nsw":
                    act = "swish"
                elif t.startswith("k") and tokens[0] in ("ir", "ds", "dsa", "uir"):
                    kmax = max([kmax] + [int(k) for k in t[1:].split(".")])
            acts.add("relu" if act in RELU else "swish")
            fused = fused or tokens[0] == "er"
    return {"se": se, "act": "/".join(sorted(acts)), "fused": fused, "kernel": kmax}


def main(argv):
    if len(argv) > 3 or (len(argv) == 2 and argv[1] in ("-h", "--help")):
        print(__doc__, end="", file=sys.stdout if len(argv) == 2 else sys.stderr)
        sys.exit(0 if len(argv) == 2 else 2)
    for path in argv[1:]:
        if not os.path.exists(path):
            print(f"operator_pairs.py: {path}: no such report", file=sys.stderr)
            sys.exit(2)
    report = argv[1] if len(argv) > 1 else os.path.join(ROOT, "data/accuracy/zoo/timm-in1k-zc-naswot.json")
    sur = argv[2] if len(argv) > 2 else os.path.join(ROOT, "data/surrogates/imagenet-mbconv-in1k.report.json")
    with open(report) as f:
        models = json.load(f)["models"]
    labels = list(LABELS)
    if os.path.exists(sur):
        with open(sur) as f:
            lofo = {p["model"]: p["lofo_predicted"] for p in json.load(f)["predictions"]}
        if all(m["model"] in lofo for m in models):
            for m in models:
                m["surrogate"] = lofo[m["model"]]
            labels.append(("surrogate", "ImageNet surrogate (family held out)"))
    with open(TABLE, newline="") as f:
        arch = {r["arch"]: r for r in csv.DictReader(f)}
    for m in models:
        m["traits"] = traits(arch[m["model"].split(":", 1)[1]])
    pairs = []
    for i, a in enumerate(models):
        for b in models[i + 1:]:
            if abs(math.log(a["flops"] / b["flops"])) > math.log(1.25) or a["top1"] == b["top1"]:
                continue
            diff = [k for k in a["traits"] if a["traits"][k] != b["traits"][k]]
            if len(diff) == 1:
                pairs.append((diff[0], a, b))
    print(f"{len(pairs)} matched pairs (FLOPs within 1.25x, one operator trait differs) among "
          f"{len(models)} architectures\n")
    print("| trait | pairs | " + " | ".join(name for _, name in labels) + " |")
    print("|---|---|" + "---|" * len(labels))
    for trait in ["se", "act", "fused", "kernel", "all"]:
        sel = [p for p in pairs if trait == "all" or p[0] == trait]
        if not sel:
            continue
        cells = []
        for key, _ in labels:
            right = sum(1 for _, a, b in sel if (a[key] - b[key]) * (a["top1"] - b["top1"]) > 0)
            cells.append(f"{100.0 * right / len(sel):.0f}%")
        print(f"| {trait} | {len(sel)} | " + " | ".join(cells) + " |")
    print("\npairs (the more accurate first; trait values; top-1; shipped label):")
    for trait, a, b in sorted(pairs, key=lambda p: p[0]):
        if a["top1"] < b["top1"]:
            a, b = b, a
        ok = "right" if (a["label"] - b["label"]) > 0 else "wrong"
        print(f"- {trait}: {a['model']} ({a['traits'][trait]}, {a['top1']:.2f}%, {a['label']:.2f}) vs "
              f"{b['model']} ({b['traits'][trait]}, {b['top1']:.2f}%, {b['label']:.2f}): label {ok}")


if __name__ == "__main__":
    main(sys.argv)
