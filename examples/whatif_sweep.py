#!/usr/bin/env python3
"""What-if sweep: how do EfficientNet-B0, EfficientNet-X-B0 and ResNet-50 respond to HBM
bandwidth on a TPU v3 whose matrix units are 128x128 or 256x256?

Writes whatif_sweep.csv (one row per model, array size and bandwidth) into the output folder
(first argument, default: the current folder) and, when matplotlib is installed,
whatif_sweep.png (latency against bandwidth, one line per model and array size).
"""
import csv
import os
import sys

import dcnas

MODELS = ["efficientnet-b0", "efficientnet-x-b0", "resnet50"]
BANDWIDTHS_GBPS = [450, 900, 1800, 3600]
ARRAYS = [128, 256]


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    rows = []
    for model in MODELS:
        for size in ARRAYS:
            # Each variant is a sweep row: the override grid, every combination simulated.
            for r in dcnas.sweep(model, {"matrix_unit.rows": size, "matrix_unit.cols": size,
                                         "hbm.bandwidth_gbps": BANDWIDTHS_GBPS},
                                 accelerator="tpu-v3", batch=128):
                bandwidth = float(r["variant"].split("hbm.bandwidth_gbps=")[1])
                rows.append({"model": model, "array": size, "hbm_gbps": bandwidth,
                             "latency_ms": r["latency_ms"],
                             "memory_bound_pct": r["memory_bound_pct"]})
    csv_path = os.path.join(out_dir, "whatif_sweep.csv")
    with open(csv_path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    for r in rows:
        print(f"{r['model']:18} {r['array']:3}x{r['array']:<3} {r['hbm_gbps']:6.0f} GB/s "
              f"{r['latency_ms']:8.3f} ms  {r['memory_bound_pct']:5.1f}% memory-bound")
    print("->", csv_path)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: CSV only")
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for model in MODELS:
        for size in ARRAYS:
            pts = [r for r in rows if r["model"] == model and r["array"] == size]
            ax.plot([p["hbm_gbps"] for p in pts], [p["latency_ms"] for p in pts], marker="o",
                    linestyle="-" if size == 128 else "--", label=f"{model}, {size}x{size} MXU")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("HBM bandwidth (GB/s)")
    ax.set_ylabel("latency per batch of 128 (ms)")
    ax.set_title("What-if on TPU v3 (simulated)")
    ax.legend(fontsize=7)
    png_path = os.path.join(out_dir, "whatif_sweep.png")
    fig.savefig(png_path, dpi=120, bbox_inches="tight")
    print("->", png_path)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
