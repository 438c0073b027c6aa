#!/usr/bin/env python3
"""Imports the RTX 4090 latencies of the published timm MBConv-family networks (one-off).

Reads the collected timm benchmark table (timm_cnn_families_long.csv of the measurement sources;
timm's benchmark.py, AMP fp16, eager, NCHW, PyTorch 2.4.0 cu124: the setting the shipped
rtx-4090-pytorch-eager-fp16 profile was fitted in) and keeps the rows of every architecture of
data/benchmarks/timm-imagenet-mbconv/models.csv that the layer graph builds, named timm:<arch>, in
the calibration schema of data/measurements/timm_rtx4090.csv. Writes
data/measurements/timm_mbconv_rtx4090.csv: not calibration data of any shipped profile (they were
fitted before it), held out by construction, for `dcnas calibrate --evaluate` and for the measured
accuracy-latency front (scripts/imagenet-families.sh).

Usage: scripts/import_timm_mbconv_latency.py SOURCE_CSV [OUT]
Python 3 standard library only.
"""
import csv
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
TABLE = os.path.join(ROOT, "data/benchmarks/timm-imagenet-mbconv/models.csv")
STACK = "PyTorch 2.4.0 (cu124)"
COLUMNS = ["model", "device", "stack", "precision", "batch_size", "image_size", "latency_ms",
           "throughput_img_per_s", "regime", "source_id", "source_ref", "source_model",
           "source_device", "source_precision", "stack_version", "layout", "source_gmacs", "notes"]


def main(argv):
    if len(argv) not in (2, 3) or argv[1] in ("-h", "--help"):
        print(__doc__, end="", file=sys.stdout if len(argv) == 2 else sys.stderr)
        sys.exit(0 if len(argv) == 2 else 2)
    source = argv[1]
    out = argv[2] if len(argv) == 3 else os.path.join(ROOT, "data/measurements/timm_mbconv_rtx4090.csv")
    if not os.path.isfile(source):
        print(f"import_timm_mbconv_latency.py: {source}: no such file", file=sys.stderr)
        sys.exit(2)
    with open(TABLE, newline="") as f:
        archs = {r["arch"] for r in csv.DictReader(f)
                 if "_cc" not in r["arch_def"] and r["norm_type"] not in ("groupnorm", "evonorm_s0")}
    kept = []
    with open(source, newline="") as f:
        for r in csv.DictReader(f):
            if (r["model"] not in archs or r["device"] != "RTX 4090"
                    or not r["framework"].startswith(STACK) or r["torch_compile"] != "no"
                    or r["layout"] != "NCHW" or r["precision"] != "AMP_FP16"):
                continue
            kept.append({
                "model": "timm:" + r["model"], "device": "rtx-4090", "stack": "pytorch-eager",
                "precision": "fp16", "batch_size": r["batch_size"], "image_size": r["image_size"],
                "latency_ms": r["latency_ms"], "throughput_img_per_s": r["throughput_img_per_s"],
                "regime": "large_batch", "source_id": r["source_id"], "source_ref": r["source_ref"],
                "source_model": r["model"], "source_device": r["device"],
                "source_precision": r["precision"], "stack_version": STACK, "layout": "NCHW",
                "source_gmacs": r["gmacs"], "notes": r["notes"]})
    kept.sort(key=lambda r: (r["model"], int(r["batch_size"]), int(r["image_size"])))
    tmp = out + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(kept)
    os.replace(tmp, out)
    print(f"{out}: {len(kept)} rows, {len({r['model'] for r in kept})} networks")


if __name__ == "__main__":
    main(sys.argv)
