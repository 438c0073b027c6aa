#!/usr/bin/env python3
"""Summarises scripts/feature-ablation.sh: one markdown table per data set, the median held-out
Kendall tau [quartiles] per feature set and size, with the params-only and FLOPs-only baselines and
the label's ceiling. Usage: feature_ablation.py DIR (DIR/DATA/SETS/curve.json)."""
import json
import os
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: feature_ablation.py DIR")
    root = sys.argv[1]
    for data in sorted(os.listdir(root)):
        d = os.path.join(root, data)
        if not os.path.isdir(d):
            continue
        rows, sizes, ceiling, base = [], None, None, None
        for sets in sorted(os.listdir(d), key=lambda s: (s.count(","), s)):
            path = os.path.join(d, sets, "curve.json")
            if not os.path.exists(path):
                continue
            with open(path) as f:
                c = json.load(f)
            summary = c["summary"]
            sizes = [s["size"] for s in summary]
            rows.append((sets, [s["tau"] for s in summary]))
            ceiling = c["ceiling"]
            base = summary
        if not rows:
            continue
        print(f"\n{data} ({ceiling.get('label_seeds')} training(s) per label; the label's ceiling "
              f"{ceiling.get('ceiling_tau', float('nan')):.3f})\n")
        print("| features | " + " | ".join(f"N = {n}" for n in sizes) + " |")
        print("|---|" + "---|" * len(sizes))
        for sets, taus in rows:
            cells = [f"{t['median']:.3f} [{t['q1']:.3f}, {t['q3']:.3f}]" for t in taus]
            print(f"| {sets} | " + " | ".join(cells) + " |")
        print("| params only | " + " | ".join(f"{s['params_tau']['median']:.3f}" for s in base) + " |")
        print("| FLOPs only | " + " | ".join(f"{s['flops_tau']['median']:.3f}" for s in base) + " |")


if __name__ == "__main__":
    main()
