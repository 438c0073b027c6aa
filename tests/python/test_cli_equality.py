"""The module computes what the `dcnas` command computes: sim (text, JSON, CSV, train), compare,
sweep, roofline, search journals, surrogate fit/predict, models and space commands.
Skipped when $DCNAS_CLI is unset."""
import json

import numpy as np
import pytest

import dcnas

B0 = "efficientnet-b0"


@pytest.mark.parametrize("accel, batch, overrides", [
    ("tpu-v3", 128, {}),
    ("tpu-v3", 128, {"hbm.bandwidth_gbps": 1800}),
    ("tpu-v3", 64, {"matrix_unit.rows": 256, "hbm.bandwidth_gbps": 1800}),
    ("v100", 128, {}),
    ("a100", 32, {"stack.kernel_overhead_us": 4}),
])
def test_sim_json_equal(run_cli, accel, batch, overrides):
    sets = [a for k, v in overrides.items() for a in ("--set", f"{k}={v}")]
    out = run_cli("sim", B0, "--accel", accel, "--batch", batch, "--format", "json", *sets)
    r = dcnas.simulate(B0, dcnas.Setup(accel, batch=batch, overrides=overrides))
    assert r.to_json() == out


def test_sim_csv_and_text_equal(run_cli):
    r = dcnas.simulate(B0, dcnas.Setup("v100", batch=128))
    base = ("sim", B0, "--accel", "v100", "--batch", "128")
    assert r.to_csv(per_op=True) == run_cli(*base, "--format", "csv", "--per-op")
    assert r.to_csv() == run_cli(*base, "--format", "csv")
    assert r.to_text() == run_cli(*base)
    assert r.to_text(per_op=True) == run_cli(*base, "--per-op")


def test_sim_other_options_equal(run_cli):
    setup = dcnas.Setup("v100", stack="pytorch-eager", calibration="v100-pytorch-eager-fp16",
                        precision="fp32", batch=16, fusion=False)
    out = run_cli("sim", "resnet50", "--accel", "v100", "--stack", "pytorch-eager",
                  "--calibration", "v100-pytorch-eager-fp16", "--precision", "fp32",
                  "--batch", 16, "--no-fusion", "--format", "json")
    assert dcnas.simulate("resnet50", setup).to_json() == out


def test_sim_graph_and_blocks_equal(run_cli, tmp_path):
    g = dcnas.Graph.zoo("efficientnet-x-b0", batch=8, resolution=192, dtype="bf16")
    path = tmp_path / "g.json"
    g.save(str(path))
    setup = dcnas.Setup("tpu-v3", batch=8)
    out = run_cli("sim", "--graph", path, "--accel", "tpu-v3", "--format", "json")
    assert dcnas.simulate(g, setup).to_json() == out
    blocks = ["r1_k3_s11_e1_i32_o16_se0.25", "r2_k3_s22_e6_i16_o24_se0.25"]
    b = dcnas.Graph.from_blocks(blocks, batch=8, resolution=96, width=1.5, depth=2.0,
                                dtype="bf16")
    out = run_cli("sim", "--blocks", *blocks, "--resolution", 96, "--width", 1.5, "--depth", 2,
                  "--accel", "tpu-v3", "--batch", 8, "--format", "json")
    assert b.model == "blocks"  # the name `dcnas sim --blocks` gives
    assert dcnas.simulate(b, setup).to_json() == out


def test_sim_train_equal(run_cli):
    out = run_cli("sim", B0, "--accel", "tpu-v3", "--batch", 128, "--mode", "train",
                  "--chips", 4, "--optimizer", "adam", "--format", "json")
    t = dcnas.simulate_train(B0, dcnas.Setup("tpu-v3", batch=128), optimizer="adam", chips=4)
    assert t.to_json() == out
    text = run_cli("sim", B0, "--accel", "tpu-v3", "--batch", 128, "--mode", "train",
                   "--chips", 4, "--optimizer", "adam")
    assert t.to_text() == text


def test_sim_train_options_equal(run_cli):
    setup = dcnas.Setup("v100", batch=64, fusion=False, stack="pytorch-eager")
    t = dcnas.simulate_train("resnet50", setup, optimizer="lars", chips=2)
    assert t.to_json() == run_cli("sim", "resnet50", "--accel", "v100", "--stack",
                                  "pytorch-eager", "--batch", 64, "--no-fusion", "--mode",
                                  "train", "--chips", 2, "--optimizer", "lars", "--format",
                                  "json")
    big = dcnas.simulate_train("efficientnet-b7", dcnas.Setup("tpu-v3", batch=4096),
                               memory_check=False)
    assert big.to_json() == run_cli("sim", "efficientnet-b7", "--accel", "tpu-v3", "--batch",
                                    4096, "--mode", "train", "--no-memory-check", "--format",
                                    "json")


def test_sweep_and_roofline_options_equal(run_cli):
    py = dcnas.sweep("resnet50", {"hbm.bandwidth_gbps": [900, 1800]}, fusion=False,
                     precision="fp32", batch=8)
    out = run_cli("sweep", "resnet50", "--set", "hbm.bandwidth_gbps=900,1800", "--no-fusion",
                  "--precision", "fp32", "--batch", 8, "--format", "json")
    assert py == json.loads(out)
    py = dcnas.roofline(["resnet50"], accelerators="a100", fusion=False, precision="fp32",
                        batch=8, stack="pytorch-eager")
    out = run_cli("roofline", "--models", "resnet50", "--accel", "a100", "--no-fusion",
                  "--precision", "fp32", "--batch", 8, "--stack", "pytorch-eager", "--format",
                  "json")
    assert py == json.loads(out)


def test_compare_equal(run_cli):
    out = run_cli("compare", "--family", "efficientnet,efficientnet-x-tpu", "--accel",
                  "tpu-v3", "--format", "json")
    assert dcnas.compare(families="efficientnet,efficientnet-x-tpu",
                         accelerators="tpu-v3") == json.loads(out)


def test_compare_pairs_and_two_accelerators_equal(run_cli):
    out = run_cli("compare", "--pairs", "efficientnet-b0:efficientnet-x-b0,resnet50:resnet101",
                  "--accel", "v100", "--batch", 32, "--set", "hbm.bandwidth_gbps=1000",
                  "--format", "json")
    py = dcnas.compare(pairs=["efficientnet-b0:efficientnet-x-b0", ("resnet50", "resnet101")],
                       accelerators="v100", batch=32, overrides={"hbm.bandwidth_gbps": 1000})
    assert py == json.loads(out)
    out = run_cli("compare", "--family", "efficientnet", "--accel", "tpu-v2,tpu-v3",
                  "--format", "json")
    assert dcnas.compare(families=["efficientnet"],
                         accelerators=["tpu-v2", "tpu-v3"]) == json.loads(out)


def test_sweep_equal(run_cli):
    out = run_cli("sweep", B0, "--set", "hbm.bandwidth_gbps=900,1800", "--format", "json")
    assert dcnas.sweep(B0, {"hbm.bandwidth_gbps": [900, 1800]}) == json.loads(out)
    out = run_cli("sweep", B0, "--accel", "v100", "--batch", 32,
                  "--set", "hbm.bandwidth_gbps=900,1800", "--set", "matrix_unit.tile_m=64,128",
                  "--format", "json")
    py = dcnas.sweep(B0, {"hbm.bandwidth_gbps": [900, 1800], "matrix_unit.tile_m": [64, 128]},
                     accelerator="v100", batch=32)
    assert py == json.loads(out)


def test_roofline_equal(run_cli):
    out = run_cli("roofline", "--models", "efficientnet-b0,resnet50", "--accel", "tpu-v3,v100",
                  "--batch", 64, "--format", "json")
    py = dcnas.roofline("efficientnet-b0,resnet50", accelerators="tpu-v3,v100", batch=64)
    assert py == json.loads(out)


SEARCH = ["--space", "SPACE", "--accuracy", "surrogate:SURROGATE", "--min-surrogate-tau", "0.3",
          "--accel", "tpu-v3", "--batch", "128", "--target-ms", "20", "--seed", "3"]


@pytest.mark.parametrize("strategy, budget, cli_params, params", [
    ("evolution", 100, [], {}),
    ("evolution", 40, ["--population", "8", "--tournament", "3", "--start", "4",
                       "--in-flight", "3"], {"population": 8, "tournament": 3, "start": 4}),
    ("nsga2", 40, ["--population", "8", "--mutations", "2"], {"population": 8, "mutations": 2}),
    ("predictor", 30, ["--start", "5", "--candidates", "50", "--ensemble", "3"],
     {"start": 5, "candidates": 50, "ensemble": 3}),
    ("random", 30, [], {}),
    ("rl", 30, [], {}),
])
def test_search_journal_byte_identical(run_cli, tmp_path, space, tpu, space_file,
                                       surrogate_file, strategy, budget, cli_params, params):
    args = [a.replace("SPACE", space_file).replace("SURROGATE", surrogate_file) for a in SEARCH]
    run_cli("search", *args, "--strategy", strategy, "--budget", budget, *cli_params,
            "--out", tmp_path / "cli")
    in_flight = int(cli_params[cli_params.index("--in-flight") + 1]) \
        if "--in-flight" in cli_params else 1
    res = dcnas.run_search(space, str(tmp_path / "py"), budget, "surrogate:" + surrogate_file,
                           latency=tpu, target_ms=20, strategy=strategy, seed=3,
                           in_flight=in_flight, min_surrogate_tau=0.3, params=params)
    cli_journal = (tmp_path / "cli" / "journal.jsonl").read_bytes()
    assert (tmp_path / "py" / "journal.jsonl").read_bytes() == cli_journal
    assert len(cli_journal.splitlines()) == budget + 1
    summary = json.loads((tmp_path / "cli" / "summary.json").read_text())
    assert {k: v for k, v in res.items()
            if k not in ("points", "best_index", "front_indices")} == summary
    for name in ("pareto.csv", "best.json", "best.txt"):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()


def test_surrogate_fit_files_equals_cli(run_cli, tmp_path, space, space_file):
    rng = dcnas.Rng(21)
    encs = [space.sample(rng) for _ in range(60)]
    csv = tmp_path / "data.csv"
    csv.write_text("encoding,accuracy\n" + "".join(
        f"{space.to_text(e)},{55.0 + 3.0 * e[1] + 0.3 * sum(e)!r}\n" for e in encs))
    opts = ["--seed", "2", "--members", "2", "--holdout", "0.4", "--no-learning-curve"]
    run_cli("surrogate", "fit", "--data", csv, "--space", space_file, "--out",
            tmp_path / "cli.ubj", *opts)
    py = dcnas.Surrogate.fit_files(space_file, [str(csv)], str(tmp_path / "py.ubj"), seed=2,
                                   members=2, holdout=0.4, learning_curve=False)
    cli = dcnas.Surrogate.load(str(tmp_path / "cli.ubj"))
    a, b = py.predict(encs), cli.predict(encs)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert py.report == cli.report
    out = run_cli("surrogate", "predict", "--model", tmp_path / "py.ubj", "--format", "csv",
                  *[space.to_text(e) for e in encs[:3]])
    rows = [line.split(",") for line in out.splitlines()[1:]]
    assert [r[0] for r in rows] == [space.to_text(e) for e in encs[:3]]
    assert [float(r[1]) for r in rows] == pytest.approx(a[0][:3].tolist(), abs=5e-4)


def test_models_and_space_commands_equal(run_cli, tmp_path, space, space_file):
    listed = json.loads(run_cli("models", "list", "--format", "json"))
    assert [m["name"] for m in listed] == [m["name"] for m in dcnas.zoo_models()]
    assert [m["native_resolution_px"] for m in listed] == [
        m["native_resolution_px"] for m in dcnas.zoo_models()]
    run_cli("models", "export", "resnet50", "--batch", 2, "--dtype", "fp16", "--out",
            tmp_path / "r50.json")
    assert (tmp_path / "r50.json").read_text() == \
        dcnas.Graph.zoo("resnet50", batch=2, dtype="fp16").to_json()
    sampled = json.loads(run_cli("space", "sample", space_file, "--count", 4, "--seed", 5,
                                 "--format", "json"))
    rng = dcnas.Rng(5)
    for row in sampled:
        e = space.sample(rng)
        assert row["encoding"] == space.to_text(e)
        d = space.decode(e)
        assert (row["blocks"], row["stage_ops"], row["layers"]) == (
            d["blocks"], d["stage_ops"], d["layers"])
        counts = space.build_full(e).counts()
        assert (row["params"], row["flops"]) == (counts["params"], counts["flops"])


def test_import_onnx_equal(run_cli, tmp_path, tiny_onnx):
    path = tiny_onnx
    run_cli("import", path, "--batch", 4, "--out", tmp_path / "tiny.json", "--quiet")
    assert dcnas.Graph.load(str(tmp_path / "tiny.json")) == \
        dcnas.Graph.from_onnx(str(path), batch=4)
    assert (tmp_path / "tiny.json").read_text() == \
        dcnas.Graph.from_onnx(str(path), batch=4).to_json()


def test_compare_at_equal_accuracy_equals_cli(run_cli):
    cli = json.loads(run_cli("compare", "--family", "efficientnet,regnety,resnest", "--accel",
                             "v100", "--batch", "16", "--at-equal-accuracy", "--format", "json"))
    py = dcnas.compare_at_equal_accuracy(["efficientnet", "regnety", "resnest"],
                                         accelerator="v100", batch=16)
    for key in ("accelerator", "stack", "dtype", "batch", "published"):
        cli.pop(key)
    assert py == cli
    assert py["families"][0]["compared"] > 0


def test_compare_at_equal_accuracy_bad_input(tmp_path):
    with pytest.raises(dcnas.InputError, match="at least one other"):
        dcnas.compare_at_equal_accuracy(["efficientnet"])
    with pytest.raises(dcnas.InputError, match="published top-1"):
        dcnas.compare_at_equal_accuracy(["efficientnet-x", "efficientnet"])
    with pytest.raises(dcnas.InputError, match="nope.csv"):
        dcnas.compare_at_equal_accuracy(["efficientnet", "resnet"],
                                        published=str(tmp_path / "nope.csv"))
