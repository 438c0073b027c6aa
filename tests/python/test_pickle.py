"""Pickling of Graph, Setup, Report and Space, and simulation in a multiprocessing.Pool."""
import multiprocessing
import pickle

import pytest

import dcnas

MODELS = ["efficientnet-b0", "resnet50", "efficientnet-x-b0", "mobilenetv2-1.0"]


def _latency(job):
    """Top-level so that spawned workers can import it."""
    model, setup = job
    return dcnas.simulate(model, setup, details=False).latency_s


def _report(job):
    graph, setup = job
    return dcnas.simulate(graph, setup)


def test_graph_pickle():
    g = dcnas.Graph.zoo("resnet50", batch=4)
    h = pickle.loads(pickle.dumps(g))
    assert h == g and h.to_json() == g.to_json()
    assert (h.model, h.batch, len(h)) == ("resnet50", 4, len(g))


def test_graph_pickle_non_fp32():
    g = dcnas.Graph.zoo("efficientnet-b0", batch=2, dtype="bf16")
    h = pickle.loads(pickle.dumps(g))
    assert h.to_json() == g.to_json()
    assert h == g


def test_setup_pickle():
    s = dcnas.Setup("v100", stack="pytorch-eager", calibration="v100-pytorch-eager-fp16",
                    batch=16, precision="fp32", fusion=False,
                    overrides={"hbm.bandwidth_gbps": 1800, "stack.kernel_overhead_us": 5.5,
                               "calibration.overlap": 0.5})
    t = pickle.loads(pickle.dumps(s))
    assert (t.accelerator, t.stack, t.calibration, t.dtype, t.batch, t.fusion) == (
        s.accelerator, s.stack, s.calibration, s.dtype, s.batch, s.fusion)
    assert t.overrides == s.overrides
    assert repr(t) == repr(s)
    assert dcnas.simulate("efficientnet-b0", t).to_json() == \
        dcnas.simulate("efficientnet-b0", s).to_json()


@pytest.mark.parametrize("details", [True, False])
def test_report_pickle(details):
    r = dcnas.simulate("efficientnet-b0", dcnas.Setup("v100", batch=8,
                                                      overrides={"hbm.bandwidth_gbps": 1000}),
                       details=details)
    q = pickle.loads(pickle.dumps(r))
    assert q.to_json() == r.to_json()
    assert q.to_csv(per_op=True) == r.to_csv(per_op=True)
    assert q.to_text(per_op=True) == r.to_text(per_op=True)
    assert q.ops() == r.ops() and q.kernels() == r.kernels() and q.blocks() == r.blocks()
    assert q.time_by_bound == r.time_by_bound and q.time_by_unit == r.time_by_unit
    assert q.calibration_params == r.calibration_params
    assert q.overrides == r.overrides
    assert (q.latency_s, q.num_kernels, q.peak_flops_per_s) == (
        r.latency_s, r.num_kernels, r.peak_flops_per_s)


def test_space_pickle(space, encodings):
    s = pickle.loads(pickle.dumps(space))
    assert (s.name, s.file, s.fingerprint, s.choice_counts) == (
        space.name, space.file, space.fingerprint, space.choice_counts)
    assert s.sample(dcnas.Rng(4)) == space.sample(dcnas.Rng(4))
    assert s.build_full(encodings[0]) == space.build_full(encodings[0])


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_pool_matches_in_process(method):
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} start method")
    setup = dcnas.Setup("v100", batch=16, overrides={"hbm.bandwidth_gbps": 1800})
    jobs = [(m, setup) for m in MODELS]
    local = [_latency(j) for j in jobs]
    with multiprocessing.get_context(method).Pool(2) as pool:
        remote = pool.map(_latency, jobs)
        graph = dcnas.Graph.zoo("resnet50", batch=4, dtype="fp16")
        report, = pool.map(_report, [(graph, setup)])
    assert remote == local
    assert report.to_json() == dcnas.simulate(graph, setup).to_json()


def test_corrupt_graph_pickle_is_input_error():
    data = pickle.dumps(dcnas.Graph.zoo("resnet50"))
    assert b'"format"' in data
    with pytest.raises(dcnas.InputError, match="<pickle>"):
        pickle.loads(data.replace(b'"format"', b'"fXrmat"'))


def test_corrupt_report_pickle_is_input_error():
    data = pickle.dumps(dcnas.simulate("resnet50", dcnas.Setup("tpu-v3", batch=2)))
    assert b'"totals"' in data
    with pytest.raises(dcnas.InputError, match="totals"):
        pickle.loads(data.replace(b'"totals"', b'"tXtals"'))


def test_train_report_pickle():
    r = dcnas.simulate_train("resnet50", dcnas.Setup("tpu-v3", batch=256), optimizer="adam",
                             chips=4)
    q = pickle.loads(pickle.dumps(r))
    assert q.to_json() == r.to_json()
    assert q.to_text() == r.to_text()
    assert (q.step_s, q.images_per_s, q.per_chip_batch) == (r.step_s, r.images_per_s,
                                                            r.per_chip_batch)
    data = pickle.dumps(r)
    with pytest.raises(dcnas.InputError, match="TrainReport pickle"):
        pickle.loads(data.replace(b'[[', b'[{', 1))
