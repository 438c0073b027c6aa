"""Simulation: data-file listings, Setup, simulate / simulate_many / simulate_train, the Report's
tables and writers, per_chip_batch, compare, sweep and roofline (values and bad input)."""
import json
import math
import re

import numpy as np
import pytest

import dcnas

B0 = "efficientnet-b0"


def test_listings():
    accels = dcnas.accelerators()
    assert {"tpu-v3", "v100", "a100"} <= set(accels)
    assert {"xla-tpu", "pytorch-eager", "tensorrt"} <= set(dcnas.stacks())
    cals = dcnas.calibrations()
    assert "tpu-v3-xla-tpu-bf16" in cals
    for name in accels:
        assert dcnas.Setup(name, batch=1).accelerator == name
    for name in cals:
        assert dcnas.Setup("tpu-v3", calibration=name).calibration


def test_setup_properties_and_defaults():
    s = dcnas.Setup()
    assert (s.accelerator, s.kind, s.stack, s.dtype, s.batch, s.fusion) == (
        "tpu-v3", "tpu", "xla-tpu", "bf16", 128, True)
    assert s.calibration == "default"
    assert s.overrides == {}
    g = dcnas.Setup("v100", batch=16, precision="fp32", fusion=False,
                    overrides={"hbm.bandwidth_gbps": 1800, "stack.kernel_overhead_us": 5.5})
    assert (g.kind, g.dtype, g.batch, g.fusion) == ("gpu", "fp32", 16, False)
    assert g.overrides == {"hbm.bandwidth_gbps": "1800", "stack.kernel_overhead_us": "5.5"}
    assert "v100" in repr(g) and "hbm.bandwidth_gbps=1800" in repr(g)
    c = dcnas.Setup("tpu-v3", stack="xla-tpu", calibration="tpu-v3-xla-tpu-bf16")
    assert c.calibration == "tpu-v3-xla-tpu-bf16"
    assert dcnas.Setup("v100").dtype == "fp16"
    assert dcnas.Setup("v100", stack="pytorch-eager").stack == "pytorch-eager"


def test_setup_chip_properties(repo):
    v = dcnas.Setup("v100")
    assert (v.clock_ghz, v.cores, v.hbm_bandwidth_gbps, v.hbm_capacity_gib) == (
        1.53, 80, 900.0, 16.0)
    assert "V100" in v.description
    assert v.accelerator_file == str(repo / "data/accelerators/v100.yaml")
    assert v.extends == []
    x = dcnas.Setup("tpu-v3-hbm2x")
    assert x.extends == ["tpu-v3"]
    assert x.hbm_bandwidth_gbps == 2 * dcnas.Setup("tpu-v3").hbm_bandwidth_gbps
    assert dcnas.Setup("tpu-v3", overrides={"hbm.bandwidth_gbps": 1234}).hbm_bandwidth_gbps == \
        1234.0
    r = dcnas.simulate(B0, x)
    assert r.hbm_bytes_per_s == pytest.approx(x.hbm_bandwidth_gbps * 1e9)
    assert r.clock_ghz == x.clock_ghz


def test_setup_accepts_yaml_paths(repo):
    a = dcnas.Setup(str(repo / "data/accelerators/tpu-v3.yaml"), batch=8)
    b = dcnas.Setup("tpu-v3", batch=8)
    assert dcnas.simulate(B0, a).latency_s == dcnas.simulate(B0, b).latency_s


def test_setup_bool_float_and_str_override_values():
    s = dcnas.Setup("tpu-v3", overrides={"hbm.bandwidth_gbps": 1800.0, "name": "what-if"})
    assert s.overrides == {"hbm.bandwidth_gbps": "1800", "name": "what-if"}
    assert dcnas.simulate(B0, s).accelerator.startswith("what-if[")
    unfused = dcnas.Setup("tpu-v3", batch=8, overrides={"stack.fusion.batch_norm": False})
    assert unfused.overrides == {"stack.fusion.batch_norm": "false"}
    r = dcnas.simulate(B0, unfused)
    assert r.overrides == ["fusion.batch_norm=false"]
    assert r.latency_s > dcnas.simulate(B0, dcnas.Setup("tpu-v3", batch=8)).latency_s


def test_setup_replace():
    s = dcnas.Setup("tpu-v3", batch=8, overrides={"hbm.bandwidth_gbps": 1800})
    r = s.replace(batch=16, precision="fp32", fusion=False,
                  overrides={"matrix_unit.rows": 256})
    assert (r.batch, r.dtype, r.fusion) == (16, "fp32", False)
    assert r.overrides == {"hbm.bandwidth_gbps": "1800", "matrix_unit.rows": "256"}
    assert (s.batch, s.dtype, s.fusion) == (8, "bf16", True)
    same = s.replace()
    assert dcnas.simulate(B0, same).to_json() == dcnas.simulate(B0, s).to_json()


@pytest.mark.parametrize("kwargs, needle", [
    ({"accelerator": "tpu-v9"}, "tpu-v9"),
    ({"stack": "no-such-stack"}, "no-such-stack"),
    ({"calibration": "no-such-cal"}, "no-such-cal"),
    ({"overrides": {"hbm.nope": 1}}, "hbm.nope"),
    ({"overrides": {"hbm.bandwidth_gbps": [1, 2]}}, "hbm.bandwidth_gbps"),
    ({"overrides": {"hbm.bandwidth_gbps": {"a": 1}}}, "hbm.bandwidth_gbps"),
    ({"overrides": {"hbm.bandwidth_gbps": None}}, "hbm.bandwidth_gbps"),
    ({"overrides": {"hbm.bandwidth_gbps": float("nan")}}, "hbm.bandwidth_gbps"),
    ({"overrides": {"hbm.bandwidth_gbps": -5}}, "-5"),
    ({"overrides": {"hbm.bandwidth_gbps": "fast"}}, "fast"),
    ({"overrides": {"stack.nope": 1}}, "nope"),
    ({"overrides": {"calibration.nope": 1}}, "nope"),
    ({"overrides": {"": 1}}, "empty key"),
    ({"overrides": {1: 1}}, "keys must be str"),
    ({"overrides": [("hbm.bandwidth_gbps", 1)]}, "overrides"),
    ({"precision": "fp7"}, "fp7"),
    ({"batch": 0}, "batch 0"),
    ({"batch": 2 ** 21}, str(2 ** 21)),
])
def test_setup_bad_input(kwargs, needle):
    with pytest.raises(dcnas.InputError, match=re.escape(needle)):
        dcnas.Setup(**kwargs)


def test_setup_replace_bad_input(tpu8):
    with pytest.raises(dcnas.InputError, match="batch 0"):
        tpu8.replace(batch=0)
    with pytest.raises(dcnas.InputError, match="hbm.nope"):
        tpu8.replace(overrides={"hbm.nope": 3})
    with pytest.raises(dcnas.InputError, match="'x'"):
        tpu8.replace(precision="x")


def test_simulate_report_fields(tpu):
    r = dcnas.simulate(B0, tpu)
    assert isinstance(r, dcnas.Report)
    assert (r.model, r.accelerator, r.stack, r.calibration) == (B0, "tpu-v3", "xla-tpu",
                                                                 "default")
    assert (r.dtype, r.batch, r.resolution, r.fusion) == ("bf16", 128, 224, True)
    assert r.latency_ms == pytest.approx(r.latency_s * 1e3, rel=1e-15)
    assert r.throughput_img_per_s == pytest.approx(128 / r.latency_s)
    assert r.achieved_flops_per_s == pytest.approx(r.flops / r.latency_s)
    assert r.percent_of_peak == pytest.approx(100 * r.achieved_flops_per_s / r.peak_flops_per_s)
    assert r.intensity_flop_per_byte == pytest.approx(r.flops / r.hbm_bytes)
    g = dcnas.Graph.zoo(B0, batch=128, dtype="bf16")
    assert r.flops == g.counts()["flops"] and r.macs == g.counts()["macs"]
    assert r.compulsory_bytes > 0 and r.hbm_bytes_per_s > 0 and r.clock_ghz > 0
    assert r.ridge_flop_per_byte == pytest.approx(r.peak_flops_per_s / r.hbm_bytes_per_s)
    assert r.overrides == []
    assert set(r.time_by_bound) == {"matrix", "vector", "memory", "overhead"}
    assert sum(r.time_by_bound.values()) == pytest.approx(r.latency_s, rel=1e-12)
    assert set(r.time_by_unit) == {"matrix_s", "vector_s", "memory_s", "overhead_s", "total_s"}
    assert r.time_by_unit["total_s"] == r.latency_s
    assert r.calibration_params["matrix_efficiency"] > 0
    assert "efficientnet-b0" in repr(r) and "tpu-v3" in repr(r)
    with_set = dcnas.simulate(B0, tpu.replace(overrides={"hbm.bandwidth_gbps": 1800}))
    assert with_set.overrides == ["hbm.bandwidth_gbps=1800"]
    assert with_set.latency_s < r.latency_s


def test_simulate_zoo_name_uses_setup_batch_and_dtype_graph_its_own(tpu):
    by_name = dcnas.simulate("resnet50", tpu.replace(batch=4))
    by_graph = dcnas.simulate(dcnas.Graph.zoo("resnet50", batch=4, dtype="bf16"), tpu)
    assert by_name.to_json() == by_graph.to_json()
    fp32 = dcnas.simulate(dcnas.Graph.zoo("resnet50", batch=4), tpu)
    assert (fp32.batch, fp32.dtype) == (4, "fp32")


def _check_table(records, arrays):
    assert records, "empty table"
    assert set(arrays) == set(records[0])
    for key, column in arrays.items():
        assert isinstance(column, np.ndarray)
        assert len(column) == len(records)
        assert column.tolist() == [rec[key] for rec in records], key


@pytest.mark.parametrize("accel, stack", [("tpu-v3", ""), ("v100", ""),
                                          ("v100", "pytorch-eager"), ("epyc-zen4", "")])
def test_report_tables_agree(accel, stack):
    setup = dcnas.Setup(accel, stack=stack, batch=32)
    r = dcnas.simulate(B0, setup)
    ops, kernels, blocks = r.ops(), r.kernels(), r.blocks()
    _check_table(ops, r.ops_arrays())
    _check_table(kernels, r.kernels_arrays())
    _check_table(blocks, r.blocks_arrays())
    assert r.ops_arrays()["total_s"].dtype == np.float64
    assert r.ops_arrays()["id"].dtype == np.int64
    assert len(kernels) == r.num_kernels
    assert [k["id"] for k in kernels] == list(range(r.num_kernels))
    # Every op lies in one kernel; ops, kernels and blocks each cover the whole latency
    # (sim/engine.cc: the kernels' times after launch queueing sum to the latency, an op's share
    # of its kernel's time splits it, blocks sum their ops).
    assert sum(k["num_ops"] for k in kernels) == len(ops) == sum(b["num_ops"] for b in blocks)
    assert {o["kernel"] for o in ops} == set(range(r.num_kernels))
    for table in (ops, kernels, blocks):
        assert math.fsum(x["total_s"] for x in table) == pytest.approx(r.latency_s, rel=1e-9)
    assert math.fsum(k["flops"] for k in kernels) == pytest.approx(r.flops, rel=1e-12)
    assert math.fsum(o["flops"] for o in ops) == pytest.approx(r.flops, rel=1e-12)
    assert math.fsum(k["hbm_bytes"] for k in kernels) == pytest.approx(r.hbm_bytes, rel=1e-12)
    assert {k["bound"] for k in kernels} <= {"matrix", "vector", "memory", "overhead"}
    for bound, seconds in r.time_by_bound.items():
        assert math.fsum(k["total_s"] for k in kernels if k["bound"] == bound) == \
            pytest.approx(seconds, rel=1e-9, abs=1e-15)
    graph = dcnas.Graph.zoo(B0, batch=32, dtype=setup.dtype)
    names = {o["id"]: o["name"] for o in graph.ops()}
    assert all(names[o["id"]] == o["name"] for o in ops)
    d = r.to_dict()
    assert d["latency_ms"] == r.latency_ms
    assert len(d["kernels"]) == len(kernels) and len(d["blocks"]) == len(blocks)


def test_details_false_empty_tables_same_latency(tpu):
    full = dcnas.simulate(B0, tpu)
    bare = dcnas.simulate(B0, tpu, details=False)
    assert bare.latency_s == full.latency_s
    assert bare.num_kernels == full.num_kernels
    assert bare.time_by_bound == full.time_by_bound
    assert bare.ops() == [] and bare.kernels() == [] and bare.blocks() == []
    for arrays in (bare.ops_arrays(), bare.kernels_arrays(), bare.blocks_arrays()):
        assert arrays and all(len(col) == 0 for col in arrays.values())


def test_report_writers(tpu):
    r = dcnas.simulate(B0, tpu.replace(batch=16))
    text = r.to_text()
    assert B0 in text and "tpu-v3" in text
    assert len(r.to_text(per_op=True).splitlines()) > len(text.splitlines())
    j = json.loads(r.to_json())
    assert j == r.to_dict()
    assert j["latency_ms"] == r.latency_ms and j["batch"] == 16
    csv = r.to_csv()
    per_op = r.to_csv(per_op=True)
    assert len(per_op.splitlines()) == len(r.ops()) + 1
    assert len(csv.splitlines()) < len(per_op.splitlines())


def test_simulate_bad_input(tpu8):
    with pytest.raises(dcnas.InputError, match="no-such-model"):
        dcnas.simulate("no-such-model", tpu8)
    with pytest.raises(dcnas.InputError, match="int"):
        dcnas.simulate(42, tpu8)


def test_simulate_many_equals_simulate():
    setup = dcnas.Setup("v100", batch=32)
    models = [B0, "resnet50", dcnas.Graph.zoo("efficientnet-x-b0", batch=32, dtype="fp16"), B0]
    many = dcnas.simulate_many(models, setup)
    assert [r.to_json() for r in many] == [
        dcnas.simulate(m, setup, details=False).to_json() for m in models]
    many = dcnas.simulate_many(models, setup, details=True)
    assert [r.to_json() for r in many] == [dcnas.simulate(m, setup).to_json() for m in models]
    assert dcnas.simulate_many([], setup) == []


def test_simulator_equals_simulate():
    setup = dcnas.Setup("v100", batch=16)
    sim = dcnas.Simulator(setup)
    assert repr(sim.setup) == repr(setup)
    models = [B0, "resnet50", dcnas.Graph.zoo("efficientnet-x-b0", batch=16, dtype="fp16")]
    for _ in range(2):  # a warm cache changes nothing
        assert [sim.simulate(m).to_json() for m in models] == [
            dcnas.simulate(m, setup).to_json() for m in models]
        assert [r.to_json() for r in sim.simulate_many(models)] == [
            r.to_json() for r in dcnas.simulate_many(models, setup)]
    assert sim.simulate(B0, details=False).ops() == []
    assert len(sim.simulate_many(models, details=True)[0].ops()) > 0


def test_simulator_bad_input(tpu8):
    sim = dcnas.Simulator(tpu8)
    with pytest.raises(dcnas.InputError, match="no-such-model"):
        sim.simulate("no-such-model")
    with pytest.raises(dcnas.InputError, match="int"):
        sim.simulate(3)
    with pytest.raises(dcnas.InputError, match="no-such-model"):
        sim.simulate_many([B0, "no-such-model"])


def test_simulate_many_bad_input(tpu8):
    with pytest.raises(dcnas.InputError, match="no-such-model"):
        dcnas.simulate_many([B0, "no-such-model"], tpu8)
    with pytest.raises(dcnas.InputError, match="int"):
        dcnas.simulate_many([B0, 3], tpu8)


def test_per_chip_batch(tpu):
    assert dcnas.per_chip_batch(128, 4, tpu) == 32
    assert dcnas.per_chip_batch(64, 2, dcnas.Setup("v100")) == 32
    with pytest.raises(dcnas.InputError, match="chips"):
        dcnas.per_chip_batch(128, 0, tpu)
    with pytest.raises(dcnas.InputError, match="127"):
        dcnas.per_chip_batch(127, 4, tpu)


def test_per_chip_batch_negative_global_batch():
    with pytest.raises(dcnas.InputError, match="-128"):
        dcnas.per_chip_batch(-128, 4, dcnas.Setup("tpu-v3"))


def test_simulate_train(tpu):
    t = dcnas.simulate_train(B0, tpu, optimizer="adam", chips=4)
    assert isinstance(t, dcnas.TrainReport)
    assert (t.model, t.optimizer, t.global_batch, t.chips, t.per_chip_batch) == (
        B0, "adam", 128, 4, 32)
    assert t.step_s > 0 and t.percent_of_peak > 0
    assert t.images_per_s == pytest.approx(128 / t.step_s)
    d = t.to_dict()
    assert d == json.loads(t.to_json())
    assert d["optimizer"] == "adam" and d["chips"] == 4
    assert B0 in t.to_text()
    graph = dcnas.Graph.zoo(B0, batch=32, dtype="bf16")
    assert dcnas.simulate_train(graph, tpu, optimizer="adam", chips=4).to_json() == t.to_json()
    sgd = dcnas.simulate_train(B0, tpu, chips=4)
    assert sgd.optimizer == "sgd-momentum"


def test_simulate_train_bad_input(tpu8):
    with pytest.raises(dcnas.InputError, match="nope"):
        dcnas.simulate_train(B0, tpu8, optimizer="nope")
    with pytest.raises(dcnas.InputError, match="chips"):
        dcnas.simulate_train(B0, tpu8, chips=0)
    with pytest.raises(dcnas.InputError, match="3 chips"):
        dcnas.simulate_train(B0, tpu8, chips=3)
    with pytest.raises(dcnas.InputError, match="batch is 3"):
        dcnas.simulate_train(dcnas.Graph.zoo(B0, batch=3), tpu8)
    big = tpu8.replace(batch=4096)
    with pytest.raises(dcnas.InputError, match="efficientnet-b7"):
        dcnas.simulate_train("efficientnet-b7", big)
    assert dcnas.simulate_train("efficientnet-b7", big, memory_check=False).step_s > 0


def test_compare_one_accelerator():
    c = dcnas.compare(families="efficientnet,efficientnet-x-tpu", accelerators="tpu-v3",
                      batch=32)
    assert set(c) >= {"setups", "batch", "rows", "geomean"}
    assert c["batch"] == 32 and c["rows"]
    same = dcnas.compare(families=["efficientnet", "efficientnet-x-tpu"],
                         accelerators=["tpu-v3"], batch=32)
    assert same == c
    pairs = dcnas.compare(pairs=["efficientnet-b0:efficientnet-x-b0",
                                 ("resnet50", "resnet101")], accelerators="v100", batch=8)
    assert len(pairs["rows"]) == 2
    row = pairs["rows"][0]
    v100 = dcnas.Setup("v100", batch=8)
    base = dcnas.simulate(B0, v100, details=False).latency_ms
    cand = dcnas.simulate("efficientnet-x-b0", v100, details=False).latency_ms
    assert (row["baseline_model"], row["candidate_model"]) == (B0, "efficientnet-x-b0")
    assert (row["baseline_latency_ms"], row["candidate_latency_ms"]) == (base, cand)
    assert row["candidate_speedup"] == pytest.approx(base / cand)


def test_compare_two_accelerators():
    c = dcnas.compare(families="efficientnet", accelerators="tpu-v2,tpu-v3", batch=16)
    assert [x["accelerator"] for x in c["setups"]] == ["tpu-v2", "tpu-v3"]
    assert len(c["rows"]) == len(dcnas.zoo_models("efficientnet"))


@pytest.mark.parametrize("kwargs, needle", [
    ({"families": "efficientnet", "pairs": ["a:b"]}, "families and pairs"),
    ({}, "families"),
    ({"families": "efficientnet,no-such-family"}, "no-such-family"),
    ({"families": ""}, "families"),
    ({"families": 5}, "families"),
    ({"pairs": ["efficientnet-b0"]}, "efficientnet-b0"),
    ({"pairs": ["efficientnet-b0:no-such-model"]}, "no-such-model"),
    ({"pairs": []}, "pairs"),
    ({"families": "efficientnet,efficientnet-x", "accelerators": "tpu-v9"}, "tpu-v9"),
    ({"families": "efficientnet,efficientnet-x", "accelerators": "tpu-v2,tpu-v3,v100"},
     "accelerators"),
    ({"families": "efficientnet"}, "two families"),
    ({"families": "efficientnet,efficientnet-x", "batch": 0}, "batch 0"),
    ({"families": "efficientnet,efficientnet-x", "overrides": {"hbm.nope": 1}}, "hbm.nope"),
    ({"families": "efficientnet,efficientnet-x", "precision": "fp9"}, "fp9"),
    ({"families": "efficientnet,efficientnet-x", "stack": "no-stack"}, "no-stack"),
])
def test_compare_bad_input(kwargs, needle):
    with pytest.raises(dcnas.InputError, match=re.escape(needle)):
        dcnas.compare(**kwargs)


@pytest.mark.parametrize("pair", [3, ("a", "b", "c")])
def test_compare_non_string_pair_is_input_error(pair):
    with pytest.raises(dcnas.InputError, match="pairs"):
        dcnas.compare(pairs=[pair])


def test_sweep_values():
    rows = dcnas.sweep(B0, {"hbm.bandwidth_gbps": [900, 1800], "matrix_unit.rows": [128, 256]},
                       batch=16)
    # Every combination, the first key slowest.
    assert [r["variant"] for r in rows] == [
        "hbm.bandwidth_gbps=900 matrix_unit.rows=128",
        "hbm.bandwidth_gbps=900 matrix_unit.rows=256",
        "hbm.bandwidth_gbps=1800 matrix_unit.rows=128",
        "hbm.bandwidth_gbps=1800 matrix_unit.rows=256"]
    assert all(r["model"] == B0 for r in rows)
    assert rows[0]["speedup"] == 1.0
    base = dcnas.simulate(B0, dcnas.Setup("tpu-v3", batch=16, overrides={
        "hbm.bandwidth_gbps": 900, "matrix_unit.rows": 128}), details=False)
    assert rows[0]["latency_ms"] == base.latency_ms
    last = dcnas.simulate(B0, dcnas.Setup("tpu-v3", batch=16, overrides={
        "hbm.bandwidth_gbps": 1800, "matrix_unit.rows": 256}), details=False)
    assert rows[-1]["latency_ms"] == last.latency_ms
    assert rows[-1]["speedup"] == pytest.approx(base.latency_s / last.latency_s)
    for r in rows:
        assert sum(r[f"{b}_bound_pct"] for b in ("matrix", "vector", "memory", "overhead")) == \
            pytest.approx(100.0)
    scalar = dcnas.sweep(B0, {"hbm.bandwidth_gbps": 900}, batch=16)
    assert len(scalar) == 1
    graph = dcnas.Graph.zoo(B0, batch=16, dtype="bf16")
    assert dcnas.sweep(graph, {"hbm.bandwidth_gbps": 900}) == scalar


@pytest.mark.parametrize("args, kwargs, needle", [
    ((B0, {}), {}, "axis"),
    ((B0, {"hbm.bandwidth_gbps": []}), {}, "hbm.bandwidth_gbps"),
    ((B0, {"hbm.nope": [1, 2]}), {}, "hbm.nope"),
    ((B0, {"hbm.bandwidth_gbps": [1, None]}), {}, "hbm.bandwidth_gbps"),
    ((B0, {"hbm.bandwidth_gbps": [900, -1]}), {}, "-1"),
    (("no-such-model", {"hbm.bandwidth_gbps": [900]}), {}, "no-such-model"),
    ((B0, {"hbm.bandwidth_gbps": [900]}), {"batch": 0}, "batch 0"),
    ((B0, {"hbm.bandwidth_gbps": [900]}), {"accelerator": "no-accel"}, "no-accel"),
    ((B0, {"hbm.bandwidth_gbps": [900]}), {"precision": "fp9"}, "fp9"),
])
def test_sweep_bad_input(args, kwargs, needle):
    with pytest.raises(dcnas.InputError, match=re.escape(needle)):
        dcnas.sweep(*args, **kwargs)


def test_sweep_graph_with_precision_is_refused():
    with pytest.raises(dcnas.InputError, match="precision"):
        dcnas.sweep(dcnas.Graph.zoo(B0), {"hbm.bandwidth_gbps": [900]}, precision="fp16")


def test_sweep_non_string_key_is_input_error():
    with pytest.raises(dcnas.InputError, match="1"):
        dcnas.sweep(B0, {1: [900]})


def test_roofline_values():
    rows = dcnas.roofline("efficientnet-b0, resnet50", accelerators=["tpu-v3", "v100"],
                          batch=16)
    assert len(rows) == 4
    assert {(r["model"], r["accelerator"]) for r in rows} == {
        (m, a) for m in (B0, "resnet50") for a in ("tpu-v3", "v100")}
    for r in rows:
        setup = dcnas.Setup(r["accelerator"], batch=16)
        rep = dcnas.simulate(r["model"], setup, details=False)
        assert r["latency_ms"] == rep.latency_ms
        assert r["intensity_flop_per_byte"] == pytest.approx(rep.intensity_flop_per_byte)
        assert r["gflops_per_image"] == pytest.approx(rep.flops / 16 / 1e9)
        assert r["batch"] == 16
    fast = dcnas.roofline([B0], overrides={"hbm.bandwidth_gbps": 1800}, batch=16)
    slow = next(r for r in rows if r["model"] == B0 and r["accelerator"] == "tpu-v3")
    assert fast[0]["latency_ms"] < slow["latency_ms"]


@pytest.mark.parametrize("kwargs, needle", [
    ({"models": "no-such-model"}, "no-such-model"),
    ({"models": ""}, "models"),
    ({"models": 5}, "models"),
    ({"models": B0, "accelerators": "zz-accel"}, "zz-accel"),
    ({"models": B0, "accelerators": ""}, "accelerators"),
    ({"models": B0, "batch": 0}, "batch 0"),
    ({"models": B0, "overrides": {"hbm.nope": 2}}, "hbm.nope"),
])
def test_roofline_bad_input(kwargs, needle):
    with pytest.raises(dcnas.InputError, match=re.escape(needle)):
        dcnas.roofline(**kwargs)


def test_prepared_graph_simulates_exactly_as_its_graph():
    setup = dcnas.Setup("tpu-v3", batch=8)
    graph = dcnas.Graph.zoo("efficientnet-b0", batch=8, dtype="bf16")
    prepared = dcnas.prepare(graph)
    assert prepared.model == "efficientnet-b0"
    direct = dcnas.simulate(graph, setup)
    assert dcnas.simulate(prepared, setup).to_json() == direct.to_json()
    sim = dcnas.Simulator(setup)
    assert sim.simulate(prepared).to_json() == direct.to_json()
    many = dcnas.simulate_many([prepared, graph, "efficientnet-b0"], setup)
    assert len({r.latency_s for r in many}) == 1
    # The prepared graph keeps its Graph alive.
    del graph
    import gc
    gc.collect()
    assert dcnas.simulate(prepared, setup).latency_s == direct.latency_s
    # One preparation serves other setups too.
    v100 = dcnas.Setup("v100", batch=8, precision="bf16")
    assert (dcnas.simulate(prepared, v100).latency_s ==
            dcnas.simulate(dcnas.Graph.zoo("efficientnet-b0", batch=8, dtype="bf16"),
                           v100).latency_s)


def test_prepare_bad_input():
    with pytest.raises(dcnas.InputError, match="str"):
        dcnas.prepare("efficientnet-b0")


def test_set_malloc_policy():
    dcnas.set_malloc_policy("system")
    dcnas.set_malloc_policy("keep")
    assert dcnas.simulate("efficientnet-b0", dcnas.Setup(batch=2)).latency_s > 0
    with pytest.raises(dcnas.InputError, match="'x'"):
        dcnas.set_malloc_policy("x")


def test_report_interval_as_the_command_prints_it(run_cli, tpu):
    r = dcnas.simulate("efficientnet-b0", tpu)
    cli = json.loads(run_cli("sim", "efficientnet-b0", "--accel", "tpu-v3", "--batch", tpu.batch,
                             "--format", "json"))
    assert r.interval == cli["latency_interval_ms"]
    assert r.interval["lo80"] < r.latency_ms < r.interval["hi80"]
    assert r.interval["lo95"] <= r.interval["lo80"]
    assert (r.interval["regime"], r.interval["situation"]) == ("tpu", "defaults")
    fitted = dcnas.simulate("resnet50", dcnas.Setup("v100", stack="pytorch-eager",
                                                   calibration="gpus-pytorch-eager-fp16"))
    assert (fitted.interval["regime"], fitted.interval["situation"]) == (
        "large-batch-gpu", "fitted")
    step = dcnas.simulate_train("resnet50", dcnas.Setup("tpu-v3", batch=256), chips=4)
    assert step.interval["lo80"] < step.step_s * 1e3 < step.interval["hi80"]
