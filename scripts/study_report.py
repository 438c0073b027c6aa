#!/usr/bin/env python3
"""Writes STUDY_DIR/index.md, the study's one report, from what scripts/run-study.sh produced:
the family directories of `dcnas scale` (family.json, comparison.json, family.svg) and the shipped
searches (data/search-study/*/summary.json, pareto.svg, copied next to the report).

Everything computed here is read from those files or is a ratio of their numbers; the released
EfficientNet-X scaling tuples (tensorflow/tpu efficientnet_x_params, as quoted in the paper facts)
are the paper's answer the found coefficients are set against.

usage: study_report.py STUDY_DIR    (Python 3 standard library only)
"""
import csv
import json
import math
import os
import shutil
import sys

# (width, depth, resolution) of members b1..b7 as released (efficientnet_x_builder.py).
RELEASED = {
    "x-tpu": [(1.05, 1.09, 229), (1.13, 1.29, 244), (1.27, 1.62, 263), (1.54, 2.38, 299),
              (1.96, 2.76, 332), (2.75, 3.01, 328), (3.26, 3.44, 350)],
    "x-gpu": [(1.05, 1.09, 229), (1.13, 1.24, 237), (1.31, 1.63, 255), (1.63, 2.4, 282),
              (1.94, 3.29, 306), (2.25, 4.28, 328), (2.58, 5.46, 350)],
}
EFFICIENTNET = {"depth": 1.2, "width": 1.1, "resolution": 1.15}  # Tan & Le 2019, at phi = 1


def load(path):
    with open(path) as f:
        return json.load(f)


def per_step_fit(tuples):
    """Per-step coefficients of a released family: least squares of log(tuple) = phi log(c)."""
    out = {}
    for key, idx in (("width", 0), ("depth", 1), ("resolution", 2)):
        num = den = 0.0
        for phi, t in enumerate(tuples, start=1):
            v = t[idx] / 224.0 if key == "resolution" else t[idx]
            num += phi * math.log(v)
            den += phi * phi
        out[key] = math.exp(num / den)
    return out


def order(c):
    """'depth > width > resolution' style ranking of per-step coefficients."""
    keys = sorted(("depth", "width", "resolution"), key=lambda k: -c[k])
    return " > ".join(keys)


def read_grid(path):
    """grid.csv of a family directory as a list of dicts of floats."""
    with open(path) as f:
        head = f.readline().strip().split(",")
        out = []
        for line in f:
            cells = line.strip().split(",")
            out.append({k: (v if k == "proxy_network" else float(v) if v else None)
                        for k, v in zip(head, cells)})
    return out


def single_axis(grid):
    """Per dimension, the grid points that scale only it: (coefficient, latency x, FLOPs x)."""
    out = {}
    for key, col in (("depth", "depth"), ("width", "width"), ("resolution", "resolution_coef")):
        others = [c for c in ("depth", "width", "resolution_coef") if c != col]
        pts = [(p[col], p["cost_ratio"] if p["flops_ratio"] else None, p["flops_ratio"],
                p["latency_ms"]) for p in grid if all(p[o] == 1.0 for o in others) and p[col] > 1.0]
        out[key] = sorted(pts)
    return out


def equal_acc(c):
    """Per-member equal-accuracy speedups of a comparison, as text: 'B1 1.066x, B2 0.394x'."""
    parts = [f"B{i + 1} {v:.3f}x" for i, v in enumerate(c.get("equal_accuracy_speedup", []))
             if v is not None]
    return ", ".join(parts) if parts else "not bracketed"


def held_summary(search_dir, setup):
    """The seed-0 search over the space held to B0's structure, where it was run."""
    path = os.path.join(search_dir, f"{setup}-dc-accelerator-b0-structure-s0", "summary.json")
    return load(path) if os.path.exists(path) else None


def constraint_rows(run, summary, held=None):
    """Per reference of a search: does 'at least as accurate' bind, and the fastest network with
    the reference's structure (layers, stages with SE) that meets it: from `held`, the summary of
    the same search over a space held to the reference's structure, where there is one; else from
    the summary (every evaluated network)."""
    with open(os.path.join(run, "pareto.csv")) as f:
        front = list(csv.DictReader(f))
    if not front:
        return []
    fastest = min(front, key=lambda p: float(p["latency_ms"]))
    rows = []
    for ref in summary.get("references", []):
        if ref.get("accuracy") is None or not ref.get("latency_ms"):
            continue
        binds = ref.get("constraint_binds", float(fastest["accuracy"]) < ref["accuracy"])
        same = "-"  # a summary written before searches recorded it
        if "fastest_same_structure" in ref:
            q = ref["fastest_same_structure"]
            same = (f"{q['latency_ms']:.3f} ms ({q['speedup']:.2f}x)" if q else
                    f"none of the {summary.get('evaluations', '?')} evaluated networks "
                    f"({ref.get('structure', '?')})")
        h = {r["model"]: r for r in (held or {}).get("references", [])}.get(ref["model"])
        if h and h.get("structure") == ref.get("structure"):
            q = h.get("fastest_at_least_as_accurate")
            same = (f"{q['latency_ms']:.3f} ms ({q['speedup']:.2f}x), structure-held search" if q
                    else "none as accurate in the structure-held search")
        unc = ref.get("fastest_at_least_as_accurate") or {}
        rows.append((ref["model"], ref["accuracy"], float(fastest["accuracy"]),
                     float(fastest["latency_ms"]), binds,
                     f"{unc['latency_ms']:.3f} ms ({unc['speedup']:.2f}x)" if unc else "-", same))
    return rows


def fmt(v, digits=3):
    return "-" if v is None else f"{v:.{digits}f}"


FAMILIES = ("x-b0-tpu-v3", "x-b0-v100", "searched-tpu-v3", "searched-v100")


def label_words(recipes):
    """What a recipe key's label is, in words."""
    if any("_zc-" in r for r in recipes):
        return ("a zero-cost label: NASWOT of the untrained proxy network on one batch, calibrated "
                "to percent against NAS-Bench-Macro's CIFAR-10 labels")
    return "Fashion-MNIST validation accuracy after a short training"


def acc_word(family):
    """What a family.json's accuracy numbers are: 'label' (a zero-cost score, no training),
    'predicted' (an ImageNet surrogate) or 'trained val'."""
    acc = family.get("accuracy") or {}
    if acc.get("kind") == "imagenet":
        return "predicted"
    return "label" if "_zc-" in str(acc.get("recipe", "")) else "trained val"


def acc_px(member):
    """'75.12 (16 px)' for a trained member or grid point of family.json, '-' otherwise."""
    t = member.get("trained") or {}
    if t.get("val_accuracy") is None:
        return "-"
    px = member.get("proxy_resolution") or 0
    return f"{t['val_accuracy']:.2f} ({px} px)" if px else f"{t['val_accuracy']:.2f}"


def duplicates(members):
    """Groups of member names whose proxy networks coincide."""
    by = {}
    for m in members:
        if m.get("proxy_network"):
            by.setdefault(m["proxy_network"], []).append(f"b{m['phi']}")
    return [g for g in by.values() if len(g) > 1]


def resolution_steps(grid):
    """Grid resolution coefficients that share one proxy input size: [(px, [coefs])]."""
    by = {}
    for p in grid:
        if p.get("proxy_resolution"):
            by.setdefault(int(p["proxy_resolution"]), set()).add(p["resolution_coef"])
    return sorted((px, sorted(c)) for px, c in by.items())


def imagenet_verdict(root):
    """The label's validity on the paper's design family (docs/imagenet-labels.md), read from the
    shipped `accuracy-data zoo` report of the published ImageNet-1k MBConv networks: a banner that
    marks every accuracy claim below untested when the label does not beat FLOPs and the
    activation-unit count there."""
    path = os.path.join(root, "data", "accuracy", "zoo", "timm-in1k-zc-naswot.json")
    if not os.path.exists(path):
        return []
    r = load(path)
    label, flops, units = r["tau"]["tau"], r["flops_tau"]["tau"], r["act_units_tau"]["tau"]
    matched = r["matched"]["tau"]
    if label >= max(flops, units) + 0.1:
        return [f"Accuracy label validated on {len(r['models'])} published ImageNet-1k MBConv "
                f"networks: tau {label:.3f} (FLOPs {flops:.3f}, activation units {units:.3f}).", ""]
    return [f"**Accuracy claims untested.** On {len(r['models'])} published ImageNet-1k-only "
            f"MBConv networks the label ranks at tau {label:.3f} against top-1, not 0.1 above "
            f"FLOPs ({flops:.3f}) and the activation-unit count ({units:.3f}); at equal FLOPs "
            f"{matched:.3f} (docs/imagenet-labels.md). Every comparison below at equal or similar "
            "accuracy rests on that label: read it as untested; the latencies stand.", ""]


def imagenet_verdicts(root):
    """Section 7: the search and LACS verdicts redone on the ImageNet surrogate, read from the
    shipped outputs of scripts/imagenet-search.sh and scripts/imagenet-lacs.sh."""
    search = os.path.join(root, "data", "search-study", "imagenet", "README.md")
    lacs = [(st, os.path.join(root, "data", "study", "imagenet-lacs", f"x-b0-{st}.comparison.json"))
            for st in ("tpu-v3", "v100")]
    report = os.path.join(root, "data", "surrogates", "imagenet-mbconv-in1k.report.json")
    if not (os.path.exists(search) and os.path.exists(report)):
        return []
    r = load(report)
    out = ["## 7. Verdicts on the ImageNet surrogate", "",
           f"Accuracy here is published ImageNet top-1 predicted by the ImageNet surrogate "
           f"(data/surrogates/imagenet-mbconv-in1k.ubj; {r['networks']} published networks, "
           f"leave-one-family-out tau {r['lofo_tau']['tau']:.3f}, "
           f"{r['lofo_matched']['tau']:.3f} at equal FLOPs, mean error {r['lofo_mae_pp']:.2f} pp; "
           "docs/imagenet-labels.md). Predictions, not trainings: a speedup 'at equal accuracy' "
           "is within the surrogate's error of the reference, and networks outside the published "
           "networks' feature range are extrapolations.", ""]
    with open(search) as f:
        table = [l for l in f.read().splitlines() if l.startswith("|")]
    out += ["Search (scripts/imagenet-search.sh; random search beside evolution):", ""] + table + [""]
    rows = []
    for st, path in lacs:
        if os.path.exists(path):
            c = load(path)
            eq = c.get("geomean_equal_accuracy")
            rows.append(f"| {st} | {c['geomean_speedup']:.3f}x | "
                        f"{eq:.3f}x |" if eq is not None else
                        f"| {st} | {c['geomean_speedup']:.3f}x | - |")
    if rows:
        out += ["LACS against FLOPs scaling of EfficientNet-X-B0 (scripts/imagenet-lacs.sh):", "",
                "| chip | at equal phi | at equal predicted ImageNet accuracy |", "|---|---|---|"]
        out += rows + [""]
    return out


def main():
    if sys.argv[1:] in (["-h"], ["--help"]):
        print(__doc__, end="")
        return 0
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr, end="")
        return 2
    study = sys.argv[1]
    if not os.path.isdir(study):
        print(f"study_report.py: {study}: not a directory (the STUDY_DIR of scripts/run-study.sh)",
              file=sys.stderr)
        return 2
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    lines = ["# dcnas study: search, latency-aware compound scaling, and the paper side by side", ""]
    recipes = sorted({load(os.path.join(study, n, "lacs", "family.json"))["accuracy"].get("recipe", "?")
                      for n in FAMILIES if os.path.exists(os.path.join(study, n, "lacs", "family.json"))})
    lines += [
        "Generated by `scripts/run-study.sh` (`--quick`: from the shipped searches and labelled "
        "networks). Latency: the simulator (tpu-v3: xla-tpu, bf16, calibrated profile; v100: "
        "tensorrt, fp16, default efficiencies), ms per batch of 128. Accuracy: the proxy label "
        f"of recipe {', '.join(recipes) or '-'} ({label_words(recipes)}), one seed per network; "
        "the searches used the XGBoost surrogate of the shipped accuracy data. None of these "
        "accuracies is ImageNet's: they rank networks. How far the proxy ranks as real labels do: "
        "docs/proxy-validity.md. Every trained accuracy below carries its proxy network's input "
        "size in px; points whose proxy networks coincide are flagged (their accuracies are equal "
        "by construction).", ""]
    lines += imagenet_verdict(root)

    # 1. The searches.
    lines += ["## 1. Architecture search (data/search-study)", ""]
    search_dir = os.path.join(root, "data", "search-study")
    rows = []
    for setup in ("tpu-v3", "v100"):
        run = os.path.join(search_dir, f"{setup}-dc-accelerator-s0")
        if not os.path.exists(os.path.join(run, "summary.json")):
            continue
        s = load(os.path.join(run, "summary.json"))
        shutil.copyfile(os.path.join(run, "pareto.svg"), os.path.join(study, f"pareto-{setup}.svg"))
        best = s["best"]
        refs = {r["model"]: r for r in s.get("references", [])}
        b0 = refs.get("efficientnet-b0", {})
        xb0 = refs.get("efficientnet-x-b0", {})
        rows.append((setup, best, b0, xb0))
        lines.append(f"![Pareto front, {setup}](pareto-{setup}.svg)")
        lines.append("")
    if rows:
        lines += ["| setup | best: predicted % / ms | EfficientNet-B0: % / ms | EfficientNet-X-B0: % / ms | "
                  "speedup vs B0 | vs X-B0 |", "|---|---|---|---|---|---|"]
        for setup, best, b0, xb0 in rows:
            def sp(ref):
                return f"{ref['latency_ms'] / best['latency_ms']:.2f}x" if ref.get("latency_ms") else "-"
            lines.append(f"| {setup} | {best['accuracy']:.2f} / {best['latency_ms']:.3f} | "
                         f"{fmt(b0.get('accuracy'), 2)} / {fmt(b0.get('latency_ms'))} | "
                         f"{fmt(xb0.get('accuracy'), 2)} / {fmt(xb0.get('latency_ms'))} | "
                         f"{sp(b0)} | {sp(xb0)} |")
        lines += ["", "Ops chosen per stage (seed 0):", "", "| stage | " +
                  " | ".join(r[0] for r in rows) + " |", "|---" * (len(rows) + 1) + "|"]
        for i in range(len(rows[0][1]["stage_ops"])):
            lines.append(f"| {i + 1} | " + " | ".join(r[1]["stage_ops"][i] for r in rows) + " |")
        lines += ["", "Equal-accuracy comparisons: whether 'at least as accurate as the reference' "
                  "binds (it binds when the fastest network found is less accurate than the "
                  "reference), the fastest network that meets it, and the fastest that also keeps "
                  "the reference's structure (its number of layers and the stages with SE; from "
                  "the search over the space held to B0's structure where it ran):", "", "| setup | reference | reference % | front's fastest: % / ms | "
                  "binds | fastest >= reference | same structure, >= reference |",
                  "|---|---|---|---|---|---|---|"]
        for setup, best, b0, xb0 in rows:
            run = os.path.join(search_dir, f"{setup}-dc-accelerator-s0")
            for model, acc, facc, fms, binds, unc, same in constraint_rows(
                    run, load(os.path.join(run, "summary.json")), held_summary(search_dir, setup)):
                lines.append(f"| {setup} | {model} | {acc:.2f} | {facc:.2f} / {fms:.3f} | "
                             f"{'yes' if binds else 'no'} | {unc} | {same} |")
        lines += ["", "Speedups of the best-reward architecture at its own (surrogate) accuracy, "
                  "which is above both references'; data/search-study/README.md has the "
                  "matched-accuracy figures, the mnasnet-space ablation and the finalists trained "
                  "for real.", ""]

    # 2. The families.
    lines += ["## 2. Families: LACS against accuracy-only compound scaling", ""]
    found = {}
    comparisons = {}
    for name in FAMILIES:
        d = os.path.join(study, name)
        if not os.path.exists(os.path.join(d, "comparison.json")):
            lines += [f"- {name}: not run", ""]
            continue
        c = load(os.path.join(d, "comparison.json"))
        lacs = load(os.path.join(d, "lacs", "family.json"))
        flops = load(os.path.join(d, "flops", "family.json"))
        found[name] = (lacs, flops)
        comparisons[name] = c
        accel = c["setup"]["accelerator"]
        lines += [f"### {name} (base {lacs['base']['name']}, {accel})", "",
                  f"![latency vs {acc_word(lacs)} accuracy]({name}/lacs/family.svg)", "",
                  "| rule | alpha (depth) | beta (width) | gamma (resolution) | order | grid points "
                  f"with accuracy | best {acc_word(lacs)} % |", "|---|---|---|---|---|---|---|"]
        for fam in (lacs, flops):
            ps = fam["per_step"]
            g = read_grid(os.path.join(d, fam["mode"], "grid.csv"))
            trained = sum(1 for p in g if p["surface"] == 1.0)
            lines.append(f"| {fam['mode']} | {ps['depth']:.3f} | {ps['width']:.3f} | "
                         f"{ps['resolution']:.3f} | {order(ps)} | {trained} of {len(g)} | "
                         f"{fmt((fam['best']['trained'] or {}).get('val_accuracy'), 2)} |")
        lines += ["", "| phi | lacs (d, w, r) | flops (d, w, r) | lacs ms | flops ms | flops / lacs | "
                  "lacs activations x | flops activations x | lacs val % (proxy px) | "
                  "flops val % (proxy px) |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        a0 = lacs["members"][0]["measured"]["activations"]
        f0 = flops["members"][0]["measured"]["activations"]
        for a, f in zip(lacs["members"], flops["members"]):
            ta, tf = a["tuple"], f["tuple"]
            lines.append(
                f"| {a['phi']} | {ta['depth']:.2f}, {ta['width']:.2f}, {ta['resolution']} | "
                f"{tf['depth']:.2f}, {tf['width']:.2f}, {tf['resolution']} | "
                f"{a['measured']['latency_ms']:.3f} | {f['measured']['latency_ms']:.3f} | "
                f"{f['measured']['latency_ms'] / a['measured']['latency_ms']:.3f} | "
                f"{a['measured']['activations'] / a0:.2f} | {f['measured']['activations'] / f0:.2f} | "
                f"{acc_px(a)} | {acc_px(f)} |")
        flags = []
        for fam in (lacs, flops):
            for g in duplicates(fam["members"]):
                flags.append(f"{fam['mode']} members {', '.join(g)} train the same proxy network")
        for i, same in enumerate(c.get("same_proxy_network", []), start=1):
            if same:
                flags.append(f"lacs b{i} trains the same proxy network as flops {', '.join(same)} "
                             "(equal accuracy by construction: no evidence either way)")
        for fam in (lacs, flops):
            steps = resolution_steps(read_grid(os.path.join(d, fam["mode"], "grid.csv")))
            shared = [f"{', '.join(f'{x:.2f}' for x in cs)} -> {px} px" for px, cs in steps
                      if len(cs) > 1]
            if shared:
                flags.append(f"{fam['mode']} grid: resolution steps the proxy cannot tell apart "
                             f"(trained points): {'; '.join(shared)}")
        if flags:
            lines += [""] + [f"- Flag: {x}" for x in flags]
        lines += ["", f"Geomean latency of the flops family over the lacs family, members 1-7: "
                  f"**{c['geomean_speedup']:.3f}x**. At equal trained accuracy (the flops "
                  f"family's latency interpolated log-linearly at each trained lacs member's "
                  f"accuracy): {equal_acc(c)}.", ""]

    # 2b. What each dimension costs on each chip, and what it buys at the proxy.
    lines += ["## 2b. Why the coefficients come out as they do", "",
              "The largest grid point that scales one dimension only (the others at 1): the "
              "simulated latency and FLOPs it costs over the base. Latency per FLOP below 1 means "
              "the chip runs that dimension's extra work more efficiently than the base's (wider "
              "layers fill the matrix units better).", "",
              "| base / setup | dimension | coefficient | latency x | FLOPs x | latency per FLOP |",
              "|---|---|---|---|---|---|"]
    for name, (lacs, flops) in found.items():
        g = read_grid(os.path.join(study, name, "lacs", "grid.csv"))
        for dim, pts in single_axis(g).items():
            if not pts:
                continue
            coef, lat, fl, _ = pts[-1]
            lines.append(f"| {name} | {dim} | {coef:.2f} | {lat:.3f} | {fl:.3f} | {lat / fl:.3f} |")
    lines += ["", "What the latency budget alone prefers: among each lacs grid's candidates (simulated "
              "latency within the budget), the point that buys the most FLOPs, i.e. the LACS choice "
              "if accuracy grew with FLOPs the same way along every dimension (no proxy noise in it):",
              ""]
    for name, (lacs, flops) in found.items():
        g = read_grid(os.path.join(study, name, "lacs", "grid.csv"))
        cands = [p for p in g if p["candidate"] == 1.0]
        if not cands:
            continue
        top = max(cands, key=lambda p: p["flops_ratio"])
        c = {"depth": top["depth"], "width": top["width"], "resolution": top["resolution_coef"]}
        lines.append(f"- {name}: depth {c['depth']:.2f}, width {c['width']:.2f}, resolution "
                     f"{c['resolution']:.2f} ({order(c)}): {top['flops_ratio']:.2f}x the FLOPs for "
                     f"{top['cost_ratio']:.2f}x the latency")
    lines += ["", "Proxy accuracy along each dimension (every trained grid point of both modes, mean per "
              "coefficient value, one seed each; for resolution, the proxy input sizes the "
              "coefficient maps to, rounded to 4 px, so neighbouring coefficients may share one):",
              ""]
    for name, (lacs, flops) in found.items():
        pts = {}
        pxs = {}
        for mode in ("lacs", "flops"):
            for p in read_grid(os.path.join(study, name, mode, "grid.csv")):
                if p["val_accuracy"] is not None:
                    pts[(p["depth"], p["width"], p["resolution_coef"])] = p["val_accuracy"]
                    if p.get("proxy_resolution"):
                        pxs.setdefault(p["resolution_coef"], set()).add(int(p["proxy_resolution"]))
        for dim, i in (("depth", 0), ("width", 1), ("resolution", 2)):
            by = {}
            for k, v in pts.items():
                by.setdefault(k[i], []).append(v)

            def px(x):
                return (f", {'/'.join(str(v) for v in sorted(pxs[x]))} px"
                        if dim == "resolution" and x in pxs else "")
            cells = [f"{x:.2f}: {sum(v) / len(v):.1f}% (n={len(v)}{px(x)})"
                     for x, v in sorted(by.items())]
            lines.append(f"- {name}, {dim}: " + "; ".join(cells))
    lines.append("")

    # 3. Against the released tuples.
    lines += ["## 3. Coefficients against the released EfficientNet-X scaling", "",
              "Per-step coefficients of the released families, fitted as log(tuple) = phi log(c) "
              "over b1-b7 (least squares through b0); EfficientNet's are the published phi = 1 "
              "grid-search result.", "",
              "| family | alpha (depth) | beta (width) | gamma (resolution) | order |",
              "|---|---|---|---|---|"]
    for key in ("x-tpu", "x-gpu"):
        c = per_step_fit(RELEASED[key])
        lines.append(f"| EfficientNet-X {key} (released) | {c['depth']:.3f} | {c['width']:.3f} | "
                     f"{c['resolution']:.3f} | {order(c)} |")
    lines.append(f"| EfficientNet (published) | 1.200 | 1.100 | 1.150 | {order(EFFICIENTNET)} |")
    for name, (lacs, flops) in found.items():
        for fam in (lacs, flops):
            ps = fam["per_step"]
            lines.append(f"| dcnas {fam['mode']}, {name} | {ps['depth']:.3f} | {ps['width']:.3f} | "
                         f"{ps['resolution']:.3f} | {order(ps)} |")
    lines.append("")

    # 4. phi = 1 against a direct search at phi = 2.
    lines += ["## 4. Coefficients found at phi = 1 against a direct search at phi = 2", ""]
    phi2 = None
    phi2_path = os.path.join(study, "x-b0-tpu-v3-phi2", "family.json")
    if os.path.exists(phi2_path) and "x-b0-tpu-v3" in found:
        p2 = load(phi2_path)
        p1 = found["x-b0-tpu-v3"][0]["per_step"]
        s2 = p2["searched"]
        lines += ["| coefficient | phi = 1 result, squared | direct phi = 2 result | difference |",
                  "|---|---|---|---|"]
        diffs = []
        for k in ("depth", "width", "resolution"):
            sq = p1[k] ** 2
            diffs.append(f"{k} {100 * (s2[k] / sq - 1):+.1f}%")
            lines.append(f"| {k} | {sq:.3f} | {s2[k]:.3f} | {100 * (s2[k] / sq - 1):+.1f}% |")
        phi2 = ", ".join(diffs)
        lines += ["", "(tpu-v3, lacs; the phi = 2 grid spans the phi = 1 result squared +-15% in "
                  f"depth and +-10% in width: `{p2['grid']}`; a result on its edge means "
                  "the direct search wanted to go further.) The paper: within 6%.", ""]
    else:
        lines += ["Not run.", ""]

    # 5. The paper's claims beside dcnas's, each with a verdict.
    latency_only = "holds on latency alone"
    on_proxy = "depends on the proxy"
    untestable = "not testable here"
    lines += ["## 5. The paper's claims and what dcnas found", "",
              f"Verdicts: *{latency_only}* (simulated latency and FLOPs only, no accuracy in it), "
              f"*{on_proxy}* (an accuracy of the proxy label or its surrogate decides it: as "
              "valid as docs/proxy-validity.md measures the label), *" + untestable + "* (the "
              "study's data cannot decide it, the reason given).", "",
              "| claim (EfficientNet-X paper) | dcnas | verdict |", "|---|---|---|"]
    if rows:
        for setup, best, b0, xb0 in rows:
            if not b0.get("latency_ms"):
                continue
            run = os.path.join(search_dir, f"{setup}-dc-accelerator-s0")
            cons = {r[0]: r for r in constraint_rows(run, load(os.path.join(run, "summary.json")),
                                                     held_summary(search_dir, setup))}
            c = cons.get("efficientnet-b0")
            text = (f"best-reward model {b0['latency_ms'] / best['latency_ms']:.2f}x faster than B0 "
                    f"at {best['accuracy']:.2f}% predicted (B0 {b0['accuracy']:.2f}%)")
            if c and c[4]:
                text += (f"; the fastest front network at least as accurate as B0: {c[5]} (the "
                         "constraint binds)")
            elif c:
                text += ("; the equal-accuracy constraint does not bind (the front's fastest "
                         "network is already more accurate than B0), so the figure is set by the "
                         "latency target, not by matching accuracy")
            if c:
                text += f"; with B0's structure: {c[6]}"
            lines.append(f"| X up to 2x faster than EfficientNet at comparable accuracy ({setup}) | "
                         f"{text} | {on_proxy} |")
    for name, (lacs, flops) in found.items():
        ps = lacs["per_step"]
        lines.append(f"| LACS: depth grows faster than width and resolution ({name}) | "
                     f"{order(ps)} ({ps['depth']:.3f}, {ps['width']:.3f}, {ps['resolution']:.3f}), "
                     f"chosen by trained proxy accuracy among the latency-feasible points | "
                     f"{on_proxy} |")
        g = read_grid(os.path.join(study, name, "lacs", "grid.csv"))
        cands = [p for p in g if p["candidate"] == 1.0]
        if cands:
            top = max(cands, key=lambda p: p["flops_ratio"])
            cc = {"depth": top["depth"], "width": top["width"], "resolution": top["resolution_coef"]}
            lines.append(f"| (the same, if accuracy followed FLOPs) ({name}) | the latency budget "
                         f"alone buys the most FLOPs at {order(cc)} ({cc['depth']:.2f}, "
                         f"{cc['width']:.2f}, {cc['resolution']:.2f}) | {latency_only} |")
    for name, c in comparisons.items():
        paper = "1.14x" if "tpu" in name else "1.25x"
        shared = [f"b{i}" for i, same in enumerate(c.get("same_proxy_network", []), start=1)
                  if same]
        verdict = on_proxy
        text = (f"at equal trained accuracy {equal_acc(c)}; {c['geomean_speedup']:.3f}x geomean "
                f"over members 1-7 at equal phi")
        if shared:
            verdict = (f"{untestable} for {', '.join(shared)} (the same proxy network as the flops "
                       f"member it is compared with); {on_proxy} for the rest")
        lines.append(f"| LACS family faster than FLOPs scaling at similar accuracy: {paper} ({name}) | "
                     f"{text} | {verdict} |")
    if phi2 is not None:
        verdict = on_proxy
        g = read_grid(os.path.join(study, "x-b0-tpu-v3", "lacs", "grid.csv"))
        shared = [px for px, cs in resolution_steps(g) if len(cs) > 1]
        if shared:
            verdict += (f"; the proxy cannot tell some resolution steps apart (they share "
                        f"{', '.join(str(x) for x in shared)} px), so gamma is only resolved to the "
                        "proxy's 4 px steps")
        lines.append(f"| Coefficients at phi = 1 within 6% of a direct search at a larger phi | "
                     f"phi = 2 on tpu-v3: {phi2} | {verdict} |")
    if found:
        lines.append("| Per-dimension cost on the chip (2b: latency per FLOP of depth, width and "
                     "resolution; the ops each chip's search picks per stage) | tables 1 and 2b | "
                     f"{latency_only} (the ops per stage: chosen by a reward that includes the "
                     "proxy, their latency ranking by the simulator) |")
    lines.append("")

    # 6. The zoo on published ImageNet top-1.
    charts = [st for st in ("tpu-v3", "v100")
              if os.path.exists(os.path.join(study, f"accuracy-latency-{st}.svg"))]
    if charts:
        lines += ["## 6. The zoo on published ImageNet top-1", "",
                  "Simulated latency (the setups above, batch 128) against each model's published "
                  "ImageNet top-1 (data/accuracy/published-imagenet.csv, sourced per row); the "
                  "axis is published ImageNet top-1, never the proxy's. EfficientNet-X's own "
                  "top-1 is not in the table: X-Bk is given EfficientNet-Bk's (the paper's "
                  "'comparable accuracy' assumption). Speedups at equal accuracy "
                  "(`dcnas compare --at-equal-accuracy`): each X member against the baseline "
                  "family's latency at the member's top-1 on the baseline's published-top-1 / "
                  "latency front (log-linear between members, no extrapolation), geomean over "
                  "the members inside the baseline's range.", ""]
        lines += ["| EfficientNet-X against | " + " | ".join(charts) + " |",
                  "|---|" + "---|" * len(charts)]
        for base, name in (("regnety", "RegNetY"), ("resnest", "ResNeSt"),
                           ("efficientnet", "EfficientNet")):
            cells = []
            for st in charts:
                path = os.path.join(study, f"equal-accuracy-{st}-{base}.json")
                if not os.path.exists(path):
                    cells.append("-")
                    continue
                fam = load(path)["families"][0]
                inside = [r["model"].rsplit("-", 1)[-1].upper() for r in fam["rows"]
                          if r["speedup"] is not None]
                cells.append(f"{fam['geomean_speedup']:.2f}x ({', '.join(inside)})"
                             if fam["compared"] else "- (no member inside its range)")
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append("")
        for st in charts:
            lines.append(f"![latency against published ImageNet top-1, {st}]"
                         f"(accuracy-latency-{st}.svg)")
        lines.append("")

    lines += imagenet_verdicts(root)

    lines += ["## Files", "",
              "- `NAME/lacs`, `NAME/flops`: family.json, family.csv, family.txt, grid.csv (every "
              "grid point: cost, latency, trained accuracy), members/*.json (layer graphs), "
              "members/*.txt (block strings), family.svg, family-latency.svg",
              "- `NAME/comparison.txt`, `comparison.json`: the lacs-vs-flops tables above",
              "- `trained.jsonl` (quick) or data/study/trained.jsonl: every proxy training",
              "- `accuracy-latency-SETUP.svg`, `equal-accuracy-SETUP-BASE.json`, "
              "`published-x-KIND.csv`: section 6", ""]
    with open(os.path.join(study, "index.md"), "w") as f:
        f.write("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
