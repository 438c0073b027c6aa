#!/usr/bin/env python3
"""Pairs the residual CSVs written by scripts/transfer_study.sh into the leave-one-device-out
transfer table (per-row error metrics and cross-generation speedup metrics).

Usage: transfer_study.py DIR [--measured | --cross-stack | --layout | --prior-sweep]
       transfer_study.py --host-floor PROFILE OUT -- SOURCE_SELECTION -- TARGET_SELECTION
DIR holds the *.residuals.csv files, pairs.txt and the fitted profiles <device>.yaml (and, where
the study fits chip A once per target B, A-for-B.fit.residuals.csv: A's side of that pair). Also writes
DIR/memory_per_sm.tsv (each chip's fitted memory efficiency as achieved bytes per SM per cycle)
and, with --measured, two tables of the measurements alone: DIR/reproducibility.tsv (how far the
measured RTX 3090 -> 4090 speedups reproduce across PyTorch versions and layouts: a ceiling for
any predictor's speedup tau) and DIR/layout_cost.tsv (NCHW against NHWC by family on each chip).
With --cross-stack it writes only DIR/cross_stack.tsv: the measured V100 -> A100 and T4 -> V100
speedups of one configuration under each software stack NVIDIA's tables time both chips with,
beside the simulator's (DIR/cross_stack_predicted.csv, written by transfer_study.sh).
With --layout it writes only DIR/layout_check.tsv: each RTX chip's NCHW fit (DIR/<chip>.yaml) on the
same chip's NHWC rows (DIR/<chip>.nhwc.residuals.csv, written by transfer_study.sh): their median
APE, and the NCHW / NHWC latency ratio by family, measured against predicted.
With --prior-sweep it writes only DIR/prior/prior_sweep.tsv: the transfer tables of DIR (the tool's
regularisation weight, 1e-3) and of DIR/prior/w-W/ (every single-chip fit regularised toward the
documented defaults with weight W) side by side, median APE and speedup tau per weight, with the
defaults themselves as the infinite weight.
With --host-floor it writes one profile: PROFILE with its per-kernel overhead rescaled to the
target's host by the two chips' batch-1 framework latencies (host_floor below); the table then
adds the row "target host's floor" wherever DIR holds A-on-B.host-floor.residuals.csv.
Standard library only. Metrics follow calibrate/metrics.cc: APE = |pred - meas| / meas; Kendall
tau-b of predicted vs measured latency ranks rows at the same batch size only. The speedup of chip
B over chip A for one (model, batch, image size) is latency_A / latency_B; its Kendall tau-b is
over all pairs of such configurations, and (speedup_tau_models) over models, each model's speedup
the geometric mean over its configurations.
"""
import csv
import glob
import math
import os
import re
import statistics
import sys


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def load(path, column, device=None):
    """{(model, batch, image): (measured_ms, predicted_ms)} of the rows (of `device`, when given);
    duplicate keys are geomean'd. None when the column is blank."""
    rows = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if not r[column]:
                return None
            if device is not None and r["device"] != device:
                continue
            key = (r["model"], int(r["batch_size"]), int(r["image_size"]))
            rows.setdefault(key, []).append((float(r["measured_ms"]), float(r[column])))
    return {key: tuple(geomean([v[i] for v in vals]) for i in range(2))
            for key, vals in rows.items()}


def tau_b(a, b, groups=None, across=False):
    """Kendall tau-b of a against b; with groups, over the pairs within a group (across: the
    pairs between two groups only)."""
    c_minus_d = pairs_a = pairs_b = 0
    sign = lambda v: (v > 0) - (v < 0)
    for i in range(len(a)):
        for j in range(i + 1, len(a)):
            if groups is not None and (groups[i] != groups[j]) != across:
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


def speedup_stats(meas, pred):
    """Median measured and predicted speedup, median error of the prediction %, tau (nan below
    two configurations)."""
    return {
        "n": len(meas),
        "meas": statistics.median(meas),
        "pred": statistics.median(pred),
        "ratio_err": 100 * statistics.median([p / m - 1 for p, m in zip(pred, meas)]),
        "tau": tau_b(pred, meas),
    }


def tau_over_models(keys, a, b):
    """(models, Kendall tau-b of a against b over models), each model's value the geometric mean
    of its configurations' (keys: (model, ...)); tau nan below two models."""
    by_model = {}
    for k, x, y in zip(keys, a, b):
        by_model.setdefault(k[0], []).append((x, y))
    models = sorted(by_model)
    if len(models) < 2:
        return len(models), float("nan")
    return len(models), tau_b([geomean([x for x, _ in by_model[m]]) for m in models],
                              [geomean([y for _, y in by_model[m]]) for m in models])


def speedup_metrics(src, dst):
    """src, dst: {key: (measured, predicted)} on chip A and chip B. Speedup = A / B. Besides the
    per-configuration statistics, tau_models: Kendall tau-b over models, each model's speedup the
    geometric mean over its configurations (nan below two models)."""
    keys = sorted(set(src) & set(dst))
    if len(keys) < 2:
        return None
    meas = [src[k][0] / dst[k][0] for k in keys]
    pred = [src[k][1] / dst[k][1] for k in keys]
    stats = speedup_stats(meas, pred)
    stats["models"], stats["tau_models"] = tau_over_models(keys, pred, meas)
    return stats


def families(path):
    """{(model, batch, image): family} of a residual CSV."""
    with open(path, newline="") as f:
        return {(r["model"], int(r["batch_size"]), int(r["image_size"])): r["family"]
                for r in csv.DictReader(f)}


def speedup_by_family(d, a, b, src, dst):
    """Lines of DIR/speedup_by_family.tsv for one direction: the speedups of A's fit (on A and on
    B) against the measured ones, by family, and the speedup tau split into the pairs of
    configurations within one family and the pairs across two families."""
    fam = families(f"{d}/{a}-on-{b}.residuals.csv")
    keys = sorted(set(src) & set(dst) & set(fam))
    if len(keys) < 2:
        return []
    meas = [src[k][0] / dst[k][0] for k in keys]
    pred = [src[k][1] / dst[k][1] for k in keys]
    groups = [fam[k] for k in keys]
    direction = f"{a} -> {b}"

    def line(name, idx, extra):
        st = speedup_stats([meas[i] for i in idx], [pred[i] for i in idx])
        return "\t".join([direction, name, str(st["n"]), fmt(st["meas"], ".3f"),
                          fmt(st["pred"], ".3f"), fmt(st["ratio_err"], "+.1f"),
                          fmt(st["tau"], ".3f")] + extra)

    lines = [line("(all)", range(len(keys)), [fmt(tau_b(pred, meas, groups), ".3f"),
                                              fmt(tau_b(pred, meas, groups, across=True), ".3f")])]
    for family in sorted(set(groups)):
        lines.append(line(family, [i for i, g in enumerate(groups) if g == family], ["", ""]))
    return lines


def fmt(x, spec):
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def write_table(d, name, lines):
    text = "\n".join(lines) + "\n"
    with open(os.path.join(d, name), "w") as f:
        f.write(text)
    sys.stdout.write(text)


MEASUREMENTS = "data/measurements"
ACCELERATORS = "data/accelerators"


def per_image_latency(csv_name, version, layout):
    """{(model, image): ms per image} of one timm result file set (pytorch-eager rows only)."""
    rows = {}
    with open(os.path.join(MEASUREMENTS, csv_name), newline="") as f:
        for r in csv.DictReader(f):
            if r["stack"] == "pytorch-eager" and version in r["stack_version"] and \
                    r["layout"] == layout:
                key = (r["model"], int(r["image_size"]))
                rows.setdefault(key, []).append(float(r["latency_ms"]) / int(r["batch_size"]))
    return {k: statistics.mean(v) for k, v in rows.items()}


def reproducibility(d):
    """The RTX 3090 -> 4090 speedups measured with the reference software (PyTorch 2.4.0, NCHW,
    the rows the study predicts) against the same speedups measured with other PyTorch versions
    or the NHWC layout, and against a leave-one-out oracle that predicts a configuration by the
    mean measured speedup of the same model at its other resolutions."""
    ref_a = per_image_latency("timm_rtx3090.csv", "2.4.0", "NCHW")
    ref_b = per_image_latency("timm_rtx4090.csv", "2.4.0", "NCHW")
    ref = {k: ref_a[k] / ref_b[k] for k in set(ref_a) & set(ref_b)}
    alternatives = [
        ("PyTorch 2.1.0 NCHW", "2.1.0", "NCHW", "PyTorch 2.4.0 NCHW", "2.4.0", "NCHW"),
        ("PyTorch 2.4.0 NCHW", "2.4.0", "NCHW", "PyTorch 2.9.1 NCHW", "2.9.1", "NCHW"),
        ("PyTorch 2.1.0 NCHW", "2.1.0", "NCHW", "PyTorch 2.9.1 NCHW", "2.9.1", "NCHW"),
        ("PyTorch 2.4.0 NHWC", "2.4.0", "NHWC", "PyTorch 2.4.0 NHWC", "2.4.0", "NHWC"),
    ]
    lines = ["# RTX 3090 -> RTX 4090 speedup (per-image latency ratio, timm pytorch-eager AMP rows)"
             " measured with other software, against the reference the transfer study predicts"
             " (PyTorch 2.4.0 NCHW on both chips).",
             "# tau: Kendall tau-b of the alternative vs the reference speedups;"
             " med_abs_diff: median |alternative / reference - 1| in %; tau_models: the same tau over"
             " models, each model's speedup the geometric mean over its configurations (n/a for the"
             " oracle, which predicts a model from its own configurations).",
             "comparison\tconfigurations\ttau\tmed_abs_diff\tmodels\ttau_models"]
    for name_a, ver_a, lay_a, name_b, ver_b, lay_b in alternatives:
        a = per_image_latency("timm_rtx3090.csv", ver_a, lay_a)
        b = per_image_latency("timm_rtx4090.csv", ver_b, lay_b)
        keys = sorted(set(a) & set(b) & set(ref))
        alt = [a[k] / b[k] for k in keys]
        meas = [ref[k] for k in keys]
        diff = statistics.median(abs(x / y - 1) for x, y in zip(alt, meas))
        models, tau_models = tau_over_models(keys, alt, meas)
        lines.append(f"3090 {name_a} / 4090 {name_b}\t{len(keys)}\t{tau_b(alt, meas):.3f}\t"
                     f"{100 * diff:.1f}\t{models}\t{tau_models:.3f}")
    keys = sorted(k for k in ref if any(j[0] == k[0] and j != k for j in ref))
    oracle = [statistics.mean(ref[j] for j in ref if j[0] == k[0] and j != k) for k in keys]
    meas = [ref[k] for k in keys]
    diff = statistics.median(abs(x / y - 1) for x, y in zip(oracle, meas))
    lines.append(f"oracle: mean measured speedup of the same model at its other resolutions\t"
                 f"{len(keys)}\t{tau_b(oracle, meas):.3f}\t{100 * diff:.1f}\t"
                 f"{len({k[0] for k in keys})}\tn/a")
    write_table(d, "reproducibility.tsv", lines)


def layout_cost(d):
    """Median NCHW / NHWC per-image latency by family on each RTX chip (PyTorch 2.4.0): whether the
    layout's cost (cuDNN's transposes around NCHW tensor-core convolutions) differs by chip."""
    lines = ["# NCHW / NHWC per-image latency (timm pytorch-eager AMP, PyTorch 2.4.0), median by"
             " family; configurations in brackets.",
             "family\trtx-3090\trtx-4090"]
    ratios = {}
    for column, csv_name in enumerate(["timm_rtx3090.csv", "timm_rtx4090.csv"]):
        nchw = per_image_latency(csv_name, "2.4.0", "NCHW")
        nhwc = per_image_latency(csv_name, "2.4.0", "NHWC")
        for key in set(nchw) & set(nhwc):
            family = key[0].split("-")[0]
            ratios.setdefault(family, ([], []))[column].append(nchw[key] / nhwc[key])
    for family, (a, b) in sorted(ratios.items()):
        cells = [f"{statistics.median(v):.2f} ({len(v)})" if v else "n/a" for v in (a, b)]
        lines.append("\t".join([family] + cells))
    write_table(d, "layout_cost.tsv", lines)


def per_image(path):
    """{(model, image): (measured, predicted) ms per image} of a residual CSV, and {(model,
    image): family}; rows of one key at several batch sizes are averaged."""
    rows, fam = {}, {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            key = (r["model"], int(r["image_size"]))
            n = int(r["batch_size"])
            rows.setdefault(key, []).append((float(r["measured_ms"]) / n,
                                             float(r["predicted_ms"]) / n))
            fam[key] = r["family"]
    return {k: tuple(statistics.mean(v[i] for v in vals) for i in range(2))
            for k, vals in rows.items()}, fam


def layout_check(d):
    """DIR/layout_check.tsv: each RTX chip's NCHW fit predicting the same chip's NHWC rows with
    the shipped stack (no transposes), and the NCHW / NHWC per-image latency ratio by family,
    measured against predicted: the layout's cost as the directory's stack models it."""
    chips = ["rtx-3090", "rtx-4090"]
    lines = ["# Each chip's NCHW fit (this directory's stack) on its NHWC rows (PyTorch 2.4.0, the"
             " shipped pytorch-eager stack): NCHW / NHWC per-image latency, median by family,"
             " measured / predicted; configurations in brackets.",
             "family\t" + "\t".join(chips)]
    by_family, summary = {}, []
    for column, chip in enumerate(chips):
        nchw, fam = per_image(f"{d}/{chip}.fit.residuals.csv")
        nhwc, _ = per_image(f"{d}/{chip}.nhwc.residuals.csv")
        apes = [abs(p / m - 1) * 100 for m, p in nhwc.values()]
        summary.append(f"{statistics.median(apes):.1f}% ({len(apes)})")
        for key in sorted(set(nchw) & set(nhwc)):
            cell = by_family.setdefault(fam[key], ([], []))[column]
            cell.append((nchw[key][0] / nhwc[key][0], nchw[key][1] / nhwc[key][1]))
    lines.append("\t".join(["NHWC rows, median APE"] + summary))
    for family, cells in sorted(by_family.items()):
        lines.append("\t".join([family] + [
            f"{statistics.median(m for m, _ in v):.2f} / {statistics.median(p for _, p in v):.2f}"
            f" ({len(v)})" if v else "n/a" for v in cells]))
    write_table(d, "layout_check.tsv", lines)


# Chip pairs of the cross-stack table (A, B: speedup = latency_A / latency_B), the precisions
# compared, and the source devices preferred when a table times several variants of one chip.
CROSS_STACK_PAIRS = [("v100", "a100", ("fp16",)), ("t4", "v100", ("fp16", "fp32"))]
VARIANT_PREFERENCE = ["V100-SXM2-16GB", "V100-SXM2-32GB", "V100-SXM3-32GB"]


def software_rows():
    """{(device, software, precision, model, batch, image): (latency_ms, source_device)} of the
    NVIDIA DLE rows at batch >= 64 (data/measurements/nvidia_dle.csv and
    nvidia_dle_tensorflow.csv, the stacks dcnas models) and of the same chips and models timed
    with other software
    (data/measurements/bookkeeping/other_stacks.csv). software = stack and its version; where a
    table times several variants of one chip, the first in VARIANT_PREFERENCE is kept."""
    rank = lambda dev: VARIANT_PREFERENCE.index(dev) if dev in VARIANT_PREFERENCE \
        else len(VARIANT_PREFERENCE)
    out = {}
    for name in ("nvidia_dle.csv", "nvidia_dle_tensorflow.csv",
                 os.path.join("bookkeeping", "other_stacks.csv")):
        with open(os.path.join(MEASUREMENTS, name), newline="") as f:
            for r in csv.DictReader(f):
                if int(r["batch_size"]) < 64:
                    continue
                software = f"{r['stack']} ({r['stack_version']})"
                key = (r["device"], software, r["precision"], r["model"], int(r["batch_size"]),
                       int(r["image_size"]))
                if key not in out or rank(r["source_device"]) < rank(out[key][1]):
                    out[key] = (float(r["latency_ms"]), r["source_device"])
    return out


def cross_stack(d):
    """The measured speedup between two chips for one (model, precision, batch, image) under each
    software stack that timed both chips in one table: how far the 'measured truth' of a
    cross-generation speedup depends on the software, a bound on what any spec-sheet model can
    match (the RTX pair's counterpart is reproducibility.tsv)."""
    rows = software_rows()
    predicted = {}  # (pair, model, precision, batch, image) -> (speedup 40 GB part, 80 GB part)
    path = os.path.join(d, "cross_stack_predicted.csv")
    if os.path.exists(path):
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                la = float(r["latency_a_ms"])
                b80 = r["latency_b_80gb_ms"]
                predicted[(r["pair"], r["model"], r["precision"], int(r["batch"]),
                           int(r["image"]))] = (la / float(r["latency_b_ms"]),
                                                la / float(b80) if b80 else None)
    lines = ["# Measured speedup between two chips (latency_A / latency_B, batch >= 64) under each"
             " software stack that timed both: NVIDIA DLE tables (data/measurements/nvidia_dle.csv,"
             " nvidia_dle_tensorflow.csv and bookkeeping/other_stacks.csv).",
             "# chips: the source devices compared (the A100 40 GB and 80 GB parts differ in HBM"
             " bandwidth, 1555 vs 2039 GB/s); dcnas: the simulator's speedup for the same parts,"
             " chip A's pytorch-eager fit on both spec sheets (cross_stack_predicted.csv).",
             "pair\tmodel\tprecision\tbatch\timage\tsoftware\tchips\tspeedup\tdcnas"]
    summary = ["# Spread of the measured speedups of one configuration across software stacks;"
               " dcnas: the simulator's (A100 40 GB part / 80 GB part where they differ).",
               "pair\tmodel\tprecision\tbatch\timage\tstacks\tmin\tmax\tmax_over_min\tdcnas"]
    for a, b, precisions in CROSS_STACK_PAIRS:
        configs = {}
        for (dev, software, prec, model, batch, image), (ms_a, src_a) in sorted(rows.items()):
            if dev != a or prec not in precisions:
                continue
            other = rows.get((b, software, prec, model, batch, image))
            if other is None:
                continue
            speedup = ms_a / other[0]
            configs.setdefault((model, prec, batch, image), []).append(speedup)
            pred = predicted.get((f"{a} -> {b}", model, prec, batch, image))
            if pred:
                big = "80GB" in src_a or "80GB" in other[1]
                pred = pred[1] if big and pred[1] else pred[0]
            lines.append(f"{a} -> {b}\t{model}\t{prec}\t{batch}\t{image}\t{software}\t"
                         f"{src_a} / {other[1]}\t{speedup:.3f}\t{fmt(pred, '.3f')}")
        for (model, prec, batch, image), values in sorted(configs.items()):
            if len(values) < 2:
                continue
            pred = predicted.get((f"{a} -> {b}", model, prec, batch, image))
            cell = "n/a" if not pred else "/".join(fmt(v, ".2f") for v in pred if v)
            summary.append(f"{a} -> {b}\t{model}\t{prec}\t{batch}\t{image}\t{len(values)}\t"
                           f"{min(values):.2f}\t{max(values):.2f}\t{max(values) / min(values):.2f}"
                           f"\t{cell}")
    write_table(d, "cross_stack.tsv", lines + [""] + summary)


POOLED_VARIANTS = [("pooled", "pooled fit"),
                   ("pooled-core-stream", "pooled fit + per-core streaming limit"),
                   ("six-chips", "six chips pooled"),
                   ("six-chips-core-stream", "six chips pooled + per-core streaming limit")]
POOLED_PAIRS = [("rtx-3090", "rtx-4090"), ("v100", "a100"), ("t4", "v100"),
                ("rtx-3090", "h200"), ("rtx-4090", "h200"), ("v100", "h200")]


def load_lodo(path):
    """{device: {(model, batch, image): (measured_ms, held_out_lodo_ms)}} of a pooled fit."""
    with open(path, newline="") as f:
        devices = sorted({r["device"] for r in csv.DictReader(f)})
    return {device: load(path, "held_out_lodo_ms", device) for device in devices}


def pooled_lodo(d):
    """Leave-one-device-out of the fits pooling the eager fp16 chips (DIR/pooled/): each chip's
    rows predicted by the fit on the other chips, by its own spec sheet."""
    lines = ["# Pooled eager fp16 fits, leave one device out (scripts/transfer_study.sh): each"
             " chip's rows predicted by its spec sheet from the fit on the other chips. \"pooled"
             " fit\": rtx-3090, rtx-4090, v100, a100 (the H200, in no pool, by the fit on all"
             " four); \"six chips pooled\": those four, h200 and t4.",
             "# rows: MAPE / median APE / median signed error / within +-20 % / Kendall tau (same"
             " batch) in %; speedup B over A with both chips held out in turn.",
             "fit\tdevice\trows\tMAPE\tmedAPE\tmed_signed\twithin20\ttau",
             ]
    speedups = ["fit\tpair\tpairs\tspeedup_pred\tspeedup_meas\tspeedup_err\tspeedup_tau\tmodels"
                "\tspeedup_tau_models"]
    for stem, name in POOLED_VARIANTS:
        path = os.path.join(d, "pooled", stem + ".residuals.csv")
        if not os.path.exists(path):
            continue
        lodo = load_lodo(path)
        for device, rows in sorted(lodo.items()):
            m = row_metrics(rows)
            lines.append("\t".join([name, device, str(m["n"]), fmt(m["mape"], ".1f"),
                                    fmt(m["median"], ".1f"), fmt(m["signed"], "+.1f"),
                                    fmt(m["w20"], ".0f"), fmt(m["tau"], ".3f")]))
        pairs = [(a, b, lodo.get(a, {}), lodo.get(b, {})) for a, b in POOLED_PAIRS]
        # Chips in no pool (STEM.DEVICE.residuals.csv: the project's own H200): predicted by the
        # fit on all pooled chips; the speedup over a pooled chip A takes A's in-sample predictions.
        for unseen_path in sorted(glob.glob(os.path.join(d, "pooled", stem + ".*.residuals.csv"))):
            device = os.path.basename(unseen_path)[len(stem) + 1:-len(".residuals.csv")]
            unseen = load(unseen_path, "predicted_ms")
            m = row_metrics(unseen)
            lines.append("\t".join([name, f"{device} (in no pool; the fit on all four)",
                                    str(m["n"]), fmt(m["mape"], ".1f"), fmt(m["median"], ".1f"),
                                    fmt(m["signed"], "+.1f"), fmt(m["w20"], ".0f"),
                                    fmt(m["tau"], ".3f")]))
            pairs += [(a, device, load(path, "predicted_ms", a), unseen) for a in sorted(lodo)]
        for a, b, src, dst in pairs:
            s = speedup_metrics(src, dst)
            if s:
                speedups.append("\t".join([name, f"{a} -> {b}", str(s["n"]),
                                           fmt(s["pred"], ".3f"), fmt(s["meas"], ".3f"),
                                           fmt(s["ratio_err"], "+.1f"), fmt(s["tau"], ".3f"),
                                           str(s["models"]), fmt(s["tau_models"], ".3f")]))
    write_table(os.path.join(d, "pooled"), "lodo_table.tsv", lines + [""] + speedups)


def yaml_number(path, section, key):
    """A number from a chip or profile YAML file: `key:` at top level (section None) or in the
    first block `section:` (two-space indented keys)."""
    inside = section is None
    with open(path) as f:
        for line in f:
            if section is not None and not line.startswith(" "):
                inside = line.startswith(section + ":")
                continue
            m = re.match(r"\s*" + re.escape(key) + r":\s*([0-9.eE+-]+)", line)
            if inside and m and (section is not None or not line.startswith(" ")):
                return float(m.group(1))
    print(f"transfer_study.py: {path}: no {key} (in {section})", file=sys.stderr)
    sys.exit(2)


def memory_per_sm(d):
    """Fitted memory efficiency of each eager-fp16 chip (PyTorch, and TensorFlow 1.15's graph
    executor), as achieved GB/s and bytes per SM-cycle."""
    chips = [  # (profile in DIR, chip file, bandwidth used by the fit when overridden)
        ("rtx-4090", "rtx-4090", None), ("rtx-3090", "rtx-3090", None),
        ("v100-eager-fp16", "v100", None), ("a100-eager-fp16", "a100", 2039.0),
        ("v100-tf-fp16", "v100", None), ("a100-tf-fp16", "a100", None)]
    lines = ["# Fitted memory efficiency of the eager fp16 profiles as achieved DRAM bytes per SM"
             " per cycle (scripts/transfer_study.py).",
             "# peak_per_sm_cycle: the spec sheet's bandwidth / (SMs x boost clock);"
             " achieved = memory_efficiency x bandwidth.",
             "profile\tSMs\tclock_ghz\tpeak_gbps\tpeak_per_sm_cycle\tmemory_efficiency\t"
             "achieved_gbps\tachieved_per_sm_cycle"]
    for profile, chip, bandwidth in chips:
        path = os.path.join(d, profile + ".yaml")
        if not os.path.exists(path):
            continue
        spec = os.path.join(ACCELERATORS, chip + ".yaml")
        sms = yaml_number(spec, None, "cores")
        clock = yaml_number(spec, None, "clock_ghz")
        peak = bandwidth or yaml_number(spec, "hbm", "bandwidth_gbps")
        eff = yaml_number(path, "params", "memory_efficiency")
        per_cycle = sms * clock
        lines.append(f"{profile}\t{sms:.0f}\t{clock:.3f}\t{peak:.0f}\t{peak / per_cycle:.2f}\t"
                     f"{eff:.3f}\t{eff * peak:.0f}\t{eff * peak / per_cycle:.2f}")
    write_table(d, "memory_per_sm.tsv", lines)


def selection(args):
    """(device, stack, precision, files, where pairs) from `dcnas calibrate` selection arguments;
    a stack given as a file (a variant of a shipped stack) is named by its file's stem."""
    device, stack, precision, files, where, key = None, None, None, [], [], None
    for arg in args:
        if arg.startswith("--"):
            key = arg
        elif key == "--accel":
            device = arg
        elif key == "--stack":
            stack = os.path.splitext(os.path.basename(arg))[0]
        elif key == "--precision":
            precision = arg
        elif key == "--measurements":
            files.append(arg)
        elif key == "--where":
            where.append(tuple(arg.split("=", 1)))
    return device, stack, precision, files, where


def host_floors(args):
    """{model: batch-1 framework latency in ms} of a selection's chip: the host's floor per model
    (geomean over duplicate rows); the selection's stack or a variant of it (its name + "-...")."""
    device, stack, precision, files, where = selection(args)
    found = {}
    for path in files:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if (r["device"] == device and r["precision"] == precision and
                        (stack == r["stack"] or stack.startswith(r["stack"] + "-")) and
                        r["regime"] == "framework_latency" and r["batch_size"] == "1" and
                        all(r.get(k) == v for k, v in where)):
                    found.setdefault(r["model"], []).append(float(r["latency_ms"]))
    return {m: math.exp(statistics.fmean(math.log(x) for x in v)) for m, v in found.items()}


def host_floor(argv):
    """--host-floor PROFILE OUT -- SOURCE_SELECTION -- TARGET_SELECTION: writes OUT, PROFILE with
    its kernel_overhead_scale multiplied by the median over shared models of the target's batch-1
    framework latency over the source's (the host's floor, a property of the host CPU and
    framework that no GPU spec sheet carries). Exit status 3 when the two share no model."""
    rest = argv[2:]
    split = [i for i, a in enumerate(rest) if a == "--"]
    if len(argv) < 2 or len(split) != 2 or split[0] != 0:
        print("usage: transfer_study.py --host-floor PROFILE OUT -- SOURCE_SEL -- TARGET_SEL",
              file=sys.stderr)
        sys.exit(2)
    profile, out = argv[0], argv[1]
    src, dst = host_floors(rest[1:split[1]]), host_floors(rest[split[1] + 1:])
    shared = sorted(set(src) & set(dst))
    if not shared:
        print("no model with batch-1 framework latency on both chips")
        sys.exit(3)
    ratio = statistics.median(dst[m] / src[m] for m in shared)
    for m in shared:
        print(f"{m}: batch-1 floor {src[m]:.2f} ms -> {dst[m]:.2f} ms ({dst[m] / src[m]:.3f})")
    print(f"host floor ratio (median over {len(shared)} models): {ratio:.4f}")
    with open(profile) as f:
        text = f.read()
    line = re.search(r"^  kernel_overhead_scale: ([0-9.eE+-]+)", text, re.M)
    if not line:
        print(f"transfer_study.py: {profile}: no params.kernel_overhead_scale", file=sys.stderr)
        sys.exit(2)
    scale = float(line.group(1))
    text = (text[:line.start(1)] + repr(scale * ratio) + text[line.end(1):])
    with open(out, "w") as f:
        f.write(f"# {profile} with kernel_overhead_scale {scale:.4g} x {ratio:.4f}, the target"
                f" host's batch-1 floor over the source's ({', '.join(shared)})\n" + text)
    print(f"kernel_overhead_scale {scale:.4f} -> {scale * ratio:.4f}; wrote {out}")


def prior_sweep(d):
    """DIR/prior/prior_sweep.tsv: median APE and speedup tau of each direction's predictors (fit on
    A, and B's own fit) under each regularisation weight, the defaults as weight infinity."""
    def table(path):
        with open(path, newline="") as f:
            rows = [r for r in csv.reader(f, delimiter="\t") if r and not r[0].startswith("#")]
        return {(r[0], r[1]): dict(zip(rows[0], r)) for r in rows[1:]}
    sweep = sorted(((os.path.basename(os.path.dirname(path))[2:], path)
                    for path in glob.glob(os.path.join(d, "prior", "w-*", "transfer_table.tsv"))),
                   key=lambda w: float(w[0]))
    if not sweep:
        print(f"transfer_study.py: {d}/prior: no w-*/transfer_table.tsv (run scripts/transfer_study.sh)",
              file=sys.stderr)
        sys.exit(2)
    weights = [("0.001", os.path.join(d, "transfer_table.tsv"))] + sweep  # the tool's weight first
    tables = [(w, table(path)) for w, path in weights]
    names = [w for w, _ in weights] + ["inf"]
    lines = ["# The prior's weight (scripts/transfer_study.sh): each single-chip fit regularised toward"
             " the documented defaults with weight W; median APE % and speedup tau of each direction's"
             " transfer (fit on A) and of B's own fit, per W; inf is the defaults themselves.",
             "direction\tpredictor\t" + "\t".join(f"medAPE_w{w}" for w in names) + "\t"
             + "\t".join(f"speedup_tau_w{w}" for w in names)]
    within = {w: 0 for w in names}
    directions = [k for k in tables[0][1] if k[1].startswith("fit on ") and "floor" not in k[1]]
    for key in directions:
        own = next((k for k in tables[0][1] if k[0] == key[0] and k[1].startswith("own fit")), None)
        default = tables[0][1].get((key[0], "defaults"))
        for k in [key] + ([own] if own else []):
            rows = [t.get(k) for _, t in tables] + [default]
            med = [r["medAPE"] if r else "n/a" for r in rows]
            tau = [r["speedup_tau"] if r else "n/a" for r in rows]
            if k is key:
                for w, m in zip(names, med):
                    within[w] += m != "n/a" and float(m) <= 8.0
            lines.append("\t".join([key[0], "fit on A" if k is key else k[1]] + med + tau))
    lines.append("# directions (fit on A) within 8 % median APE, of " + str(len(directions)) + ": "
                 + ", ".join(f"w {w}: {within[w]}" for w in names))
    write_table(os.path.join(d, "prior"), "prior_sweep.tsv", lines)


def main():
    usage = __doc__.split("\n\n")[0] + "\n\n" + __doc__[__doc__.index("Usage:"):]
    if sys.argv[1:2] in (["-h"], ["--help"]) or len(sys.argv) < 2:
        print(usage, file=sys.stdout if len(sys.argv) > 1 else sys.stderr, end="")
        sys.exit(0 if len(sys.argv) > 1 else 2)
    if sys.argv[1:2] == ["--host-floor"]:
        host_floor(sys.argv[2:])
        return
    d = sys.argv[1]
    unknown = [a for a in sys.argv[2:] if a not in ("--measured", "--cross-stack", "--layout",
                                               "--prior-sweep")]
    if unknown or not os.path.isfile(os.path.join(d, "pairs.txt")):
        why = (f"{', '.join(unknown)}: unknown option" if unknown
               else f"{d}: no pairs.txt (run scripts/transfer_study.sh)")
        print(f"transfer_study.py: {why}", file=sys.stderr)
        sys.exit(2)
    if "--cross-stack" in sys.argv[2:]:
        cross_stack(d)
        return
    if "--layout" in sys.argv[2:]:
        layout_check(d)
        return
    if "--prior-sweep" in sys.argv[2:]:
        prior_sweep(d)
        return
    lines = ["# Leave-one-device-out transfer (scripts/transfer_study.sh); per-batch latency.",
             "# rows: target rows predicted; MAPE / median APE / median signed error / within +-20 % /"
             " Kendall tau (same batch) in %;",
             "# speedup B over A = latency_A / latency_B per (model, batch, image): median predicted,"
             " median measured, median error of the predicted speedup %, Kendall tau over configurations;"
             " models and speedup_tau_models: Kendall tau over models, each model's speedup the"
             " geometric mean over its configurations.",
             "direction\tpredictor\trows\tMAPE\tmedAPE\tmed_signed\twithin20\ttau\tpairs\t"
             "speedup_pred\tspeedup_meas\tspeedup_err\tspeedup_tau\tmodels\tspeedup_tau_models"]
    by_family = ["# Speedup B over A by family, chip A's fit on both chips' spec sheets (the table's"
                 " \"fit on A\" rows): configurations, median measured and predicted speedup,"
                 " median error of the predicted speedup %, Kendall tau-b of predicted vs measured"
                 " speedups; on the (all) line also tau over the pairs of configurations within one"
                 " family and across two families.",
                 "direction\tfamily\tconfigs\tspeedup_meas\tspeedup_pred\tspeedup_err\ttau"
                 "\ttau_within\ttau_across"]
    with open(os.path.join(d, "pairs.txt")) as f:
        pairs = [l.split() for l in f if l.strip()]
    for a, b in pairs:
        # (a) defaults on both chips; (b) A's fit in-sample on A, A's fit on B (transfer);
        # (c) A's fit on A, B's own fit held out by family on B (reference).
        # A's fit on A, in-sample (A-for-B: A's fit for this target, where the study fits one).
        per_target = f"{d}/{a}-for-{b}.fit.residuals.csv"
        source_fit = load(per_target if os.path.exists(per_target) else f"{d}/{a}.fit.residuals.csv",
                          "predicted_ms")
        transfer = load(f"{d}/{a}-on-{b}.residuals.csv", "predicted_ms")
        cases = [(f"fit on {a}", source_fit, transfer)]
        # (a) is absent where the study left the defaults to another directory's (the prior's).
        if os.path.exists(f"{d}/{b}.defaults.residuals.csv"):
            cases.insert(0, ("defaults", load(f"{d}/{a}.defaults.residuals.csv", "predicted_ms"),
                             load(f"{d}/{b}.defaults.residuals.csv", "predicted_ms")))
        if os.path.exists(f"{d}/{a}-on-{b}.host-floor.residuals.csv"):
            cases.append((f"fit on {a}, target host's floor", source_fit,
                          load(f"{d}/{a}-on-{b}.host-floor.residuals.csv", "predicted_ms")))
        held_out = load(f"{d}/{b}.fit.residuals.csv", "held_out_lofo_ms")
        cases.append((f"own fit on {b}, " + ("held out by family" if held_out else "in-sample"),
                      source_fit, held_out or load(f"{d}/{b}.fit.residuals.csv", "predicted_ms")))
        by_family += speedup_by_family(d, a, b, source_fit, transfer)
        for name, src, dst in cases:
            if dst is None:
                continue
            m = row_metrics(dst)
            s = speedup_metrics(src, dst)
            lines.append("\t".join([
                f"{a} -> {b}", name, str(m["n"]), fmt(m["mape"], ".1f"), fmt(m["median"], ".1f"),
                fmt(m["signed"], "+.1f"), fmt(m["w20"], ".0f"), fmt(m["tau"], ".3f"),
                str(s["n"]) if s else "0", fmt(s and s["pred"], ".3f"), fmt(s and s["meas"], ".3f"),
                fmt(s and s["ratio_err"], "+.1f"), fmt(s and s["tau"], ".3f"),
                str(s["models"]) if s else "0", fmt(s and s["tau_models"], ".3f")]))
    write_table(d, "transfer_table.tsv", lines)
    write_table(d, "speedup_by_family.tsv", by_family)
    memory_per_sm(d)
    if os.path.isdir(os.path.join(d, "pooled")):
        pooled_lodo(d)
    if "--measured" in sys.argv[2:]:
        reproducibility(d)
        layout_cost(d)


if __name__ == "__main__":
    main()
