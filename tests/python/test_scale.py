"""Compound scaling (dcnas.scale) with a Python proxy-accuracy function: families, members,
written files, modes, and bad input."""
import json
import re

import pytest

import dcnas

GRID = "d=1/1.2,w=1/1.1,r=1/1.15"


def proxy_accuracy(graph):
    """Percent from the proxy graph's counts: larger proxies score higher."""
    assert isinstance(graph, dcnas.Graph)
    return 50.0 + 0.05 * graph.counts()["flops"] ** 0.1


def _scale(out_dir, **kwargs):
    args = dict(model="efficientnet-x-b0", setup=dcnas.Setup("tpu-v3", batch=8), out=str(out_dir),
                members=2, train_members=1, accuracy=proxy_accuracy, references=False,
                grid=GRID, phi=1)
    args.update(kwargs)
    return dcnas.scale(**args)


def test_scale_lacs(tmp_path):
    graphs, progress = [], []

    def acc(graph):
        graphs.append(graph)
        return proxy_accuracy(graph)

    r = _scale(tmp_path / "fam", accuracy=acc, progress=progress.append)
    assert set(r) == {"text", "families"}
    assert len(r["families"]) == 1
    fam = r["families"][0]
    assert fam["format"] == "dcnas-family" and fam["mode"] == "lacs"
    assert fam["grid"] == GRID
    assert fam["base"]["name"] == "efficientnet-x-b0"
    members = fam["members"]
    assert [m["phi"] for m in members] == [0, 1, 2]
    assert members[0]["tuple"] == {"depth": 1.0, "resolution": 224, "width": 1.0}
    lat = [m["measured"]["latency_ms"] for m in members]
    assert lat == sorted(lat)
    assert members[0]["measured"]["latency_ms"] == fam["base_latency_ms"]
    base = dcnas.simulate("efficientnet-x-b0", dcnas.Setup("tpu-v3", batch=8))
    assert fam["base_latency_ms"] == pytest.approx(base.latency_ms, rel=1e-9)
    # Members phi <= train_members carry the function's accuracy; later ones are not trained.
    assert members[0]["trained"]["val_accuracy"] > 50.0
    assert members[2]["trained"] is None
    assert fam["accuracy"]["kind"] == "python"
    assert graphs and all(g.num_classes == 10 for g in graphs)
    written = json.loads((tmp_path / "fam" / "family.json").read_text())
    assert written == fam
    assert (tmp_path / "fam" / "family.csv").is_file()
    assert "efficientnet-x-b0" in r["text"]
    assert progress and all(isinstance(line, str) for line in progress)


def test_scale_both_modes(tmp_path):
    r = _scale(tmp_path / "both", mode="both")
    assert [f["mode"] for f in r["families"]] == ["lacs", "flops"]
    assert "comparison" in r and r["comparison"]
    assert (tmp_path / "both" / "lacs" / "family.json").is_file()
    assert (tmp_path / "both" / "flops" / "family.json").is_file()


@pytest.mark.parametrize("kwargs, needle", [
    ({"grid": "q=1/2"}, "q=1/2"),
    ({"grid": "d=abc"}, "abc"),
    ({"model": "no-such-model"}, "no-such-model"),
    ({"model": "resnet50"}, "resnet50"),
    ({"model": ""}, "base"),
    ({"blocks": "r1_k3_s11_e1_i32_o16_se0.25"}, "got 2"),
    ({"mode": "nope"}, "nope"),
    ({"phi": 0}, "phi 0"),
    ({"recipe": "nope"}, "nope"),
    ({"train_members": -1}, "-1"),
    ({"out": ""}, "out"),
    ({"model": "", "run_dir": "/nonexistent/run"}, "/nonexistent/run"),
    ({"model": "", "blocks": "r1_k3_s11_e1_i32_o16_se0.25", "base_resolution": 0},
     "base-resolution 0"),
    ({"accuracy": lambda g: "x"}, "str"),
    ({"accuracy": lambda g: None}, "trained accuracy"),
    ({"accuracy": lambda g: float("nan")}, "nan"),
])
def test_scale_bad_input(tmp_path, kwargs, needle):
    with pytest.raises(dcnas.InputError, match=re.escape(needle)):
        _scale(tmp_path / "x", **kwargs)


def test_scale_accepts_callable_objects(tmp_path):
    import functools

    r = _scale(tmp_path / "p", accuracy=functools.partial(proxy_accuracy))
    assert r["families"][0]["members"]
