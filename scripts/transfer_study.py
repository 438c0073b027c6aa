#!/usr/bin/env python3
"""Pairs the residual CSVs written by scripts/transfer_study.sh into the leave-one-device-out
transfer table (per-row error metrics and cross-generation speedup metrics).

Usage: transfer_study.py DIR   (DIR holds the *.residuals.csv files and pairs.txt)
Standard library only. Metrics follow calibrate/metrics.cc: APE = |pred - meas| / meas; Kendall
tau-b of predicted vs measured latency ranks rows at the same batch size only. The speedup of chip
B over chip A for one (model, batch, image size) is latency_A / latency_B; its Kendall tau-b is
over all pairs of such configurations.
"""
import csv
import math
import os
import statistics
import sys


def load(path, column):
    """{(model, batch, image): (measured_ms, predicted_ms)}; duplicate keys are geomean'd."""
    rows = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if not r[column]:
                return None
            key = (r["model"], int(r["batch_size"]), int(r["image_size"]))
            rows.setdefault(key, []).append((float(r["measured_ms"]), float(r[column])))
    out = {}
    for key, vals in rows.items():
        n = len(vals)
        out[key] = tuple(math.exp(sum(math.log(v[i]) for v in vals) / n) for i in range(2))
    return out


def tau_b(a, b, groups=None):
    c_minus_d = pairs_a = pairs_b = 0
    sign = lambda v: (v > 0) - (v < 0)
    for i in range(len(a)):
        for j in range(i + 1, len(a)):
            if groups is not None and groups[i] != groups[j]:
                continue
            sa, sb = sign(a[i] - a[j]), sign(b[i] - b[j])
            c_minus_d += sa * sb
            pairs_a += sa != 0
            pairs_b += sb != 0
    if pairs_a == 0 or pairs_b == 0:
        return float("nan")
    return c_minus_d / math.sqrt(pairs_a * pairs_b)


def row_metrics(rows):
    keys = sorted(rows)
    meas = [rows[k][0] for k in keys]
    pred = [rows[k][1] for k in keys]
    ape = [abs(p - m) / m for p, m in zip(pred, meas)]
    signed = sorted((p - m) / m for p, m in zip(pred, meas))
    return {
        "n": len(keys),
        "mape": 100 * sum(ape) / len(ape),
        "median": 100 * statistics.median(ape),
        "signed": 100 * statistics.median(signed),
        "w20": 100 * sum(e <= 0.20 for e in ape) / len(ape),
        "tau": tau_b(pred, meas, [k[1] for k in keys]),
    }


def speedup_metrics(src, dst):
    """src, dst: {key: (measured, predicted)} on chip A and chip B. Speedup = A / B."""
    keys = sorted(set(src) & set(dst))
    if len(keys) < 2:
        return None
    meas = [src[k][0] / dst[k][0] for k in keys]
    pred = [src[k][1] / dst[k][1] for k in keys]
    return {
        "n": len(keys),
        "meas": statistics.median(meas),
        "pred": statistics.median(pred),
        "ratio_err": 100 * statistics.median([p / m - 1 for p, m in zip(pred, meas)]),
        "tau": tau_b(pred, meas),
    }


def fmt(x, spec):
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def main():
    d = sys.argv[1]
    lines = ["# Leave-one-device-out transfer (scripts/transfer_study.sh); per-batch latency.",
             "# rows: target rows predicted; MAPE / median APE / median signed error / within +-20 % /"
             " Kendall tau (same batch) in %;",
             "# speedup B over A = latency_A / latency_B per (model, batch, image): median predicted,"
             " median measured, median error of the predicted speedup %, Kendall tau over configurations.",
             "direction\tpredictor\trows\tMAPE\tmedAPE\tmed_signed\twithin20\ttau\tpairs\t"
             "speedup_pred\tspeedup_meas\tspeedup_err\tspeedup_tau"]
    with open(os.path.join(d, "pairs.txt")) as f:
        pairs = [l.split() for l in f if l.strip()]
    for a, b in pairs:
        # (a) defaults on both chips; (b) A's fit in-sample on A, A's fit on B (transfer);
        # (c) A's fit on A, B's own fit held out by family on B (reference).
        cases = [
            ("defaults", load(f"{d}/{a}.defaults.residuals.csv", "predicted_ms"),
             load(f"{d}/{b}.defaults.residuals.csv", "predicted_ms")),
            (f"fit on {a}", load(f"{d}/{a}.fit.residuals.csv", "predicted_ms"),
             load(f"{d}/{a}-on-{b}.residuals.csv", "predicted_ms")),
        ]
        held_out = load(f"{d}/{b}.fit.residuals.csv", "held_out_lofo_ms")
        cases.append((f"own fit on {b}, " + ("held out by family" if held_out else "in-sample"),
                      load(f"{d}/{a}.fit.residuals.csv", "predicted_ms"),
                      held_out or load(f"{d}/{b}.fit.residuals.csv", "predicted_ms")))
        for name, src, dst in cases:
            if dst is None:
                continue
            m = row_metrics(dst)
            s = speedup_metrics(src, dst)
            lines.append("\t".join([
                f"{a} -> {b}", name, str(m["n"]), fmt(m["mape"], ".1f"), fmt(m["median"], ".1f"),
                fmt(m["signed"], "+.1f"), fmt(m["w20"], ".0f"), fmt(m["tau"], ".3f"),
                str(s["n"]) if s else "0", fmt(s and s["pred"], ".3f"), fmt(s and s["meas"], ".3f"),
                fmt(s and s["ratio_err"], "+.1f"), fmt(s and s["tau"], ".3f")]))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(d, "transfer_table.tsv"), "w") as f:
        f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
