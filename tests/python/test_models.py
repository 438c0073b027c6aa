"""Models: the module's basics, the zoo, block strings, graph JSON and ONNX import (Graph)."""
import json
import os
import re
from pathlib import Path

import pytest

import dcnas

BLOCK = "r1_k3_s11_e1_i32_o16_se0.25"
BLOCKS = [BLOCK, "r2_k3_s22_e6_i16_o24_se0.25"]


def test_exceptions_and_version():
    assert issubclass(dcnas.InputError, ValueError)
    assert issubclass(dcnas.InternalError, RuntimeError)
    assert re.fullmatch(r"\d+\.\d+\.\d+", dcnas.__version__)


def test_build_info():
    info = dcnas.build_info()
    assert set(info) == {"version", "torch", "xgboost", "onnx"}
    assert info["version"] == dcnas.__version__
    assert all(isinstance(info[k], bool) for k in ("torch", "xgboost", "onnx"))
    assert info["xgboost"] == hasattr(dcnas.Surrogate, "predict")


def test_data_dir_is_the_source_trees_data(repo):
    expected = os.environ.get("DCNAS_DATA_DIR") or str(repo / "data")
    assert os.path.realpath(dcnas.data_dir()) == os.path.realpath(expected)


def test_zoo_models_and_families():
    models = dcnas.zoo_models()
    names = [m["name"] for m in models]
    assert "efficientnet-b0" in names and "resnet50" in names
    assert set(models[0]) == {"name", "family", "description", "native_resolution_px"}
    families = dcnas.families()
    assert set(m["family"] for m in models) <= set(families)
    x = dcnas.zoo_models("efficientnet-x")
    assert x and all(m["family"] == "efficientnet-x" for m in x)
    assert {m["name"] for m in x} <= set(names)
    b0 = next(m for m in models if m["name"] == "efficientnet-b0")
    assert b0["native_resolution_px"] == 224


def test_zoo_models_unknown_family():
    with pytest.raises(dcnas.InputError, match="no-such-family"):
        dcnas.zoo_models("no-such-family")


def test_graph_zoo_properties():
    g = dcnas.Graph.zoo("efficientnet-b0", batch=4, resolution=160, dtype="bf16",
                        num_classes=10)
    assert (g.model, g.batch, g.resolution, g.dtype, g.num_classes) == (
        "efficientnet-b0", 4, 160, "bf16", 10)
    assert len(g) == len(g.ops()) > 100
    native = dcnas.Graph.zoo("efficientnet-b0")
    assert (native.batch, native.resolution, native.dtype, native.num_classes) == (
        1, 224, "fp32", 1000)
    assert "efficientnet-b0" in repr(g)


def test_graph_ops_counts_blocks_agree():
    g = dcnas.Graph.zoo("resnet50", batch=2)
    ops = g.ops()
    counts = g.counts()
    assert set(counts) == {"macs", "flops", "params", "bytes_read", "bytes_written",
                           "intensity_flop_per_byte"}
    for key in ("macs", "flops", "params", "bytes_read", "bytes_written"):
        assert sum(o[key] for o in ops) == counts[key]
        assert sum(b[key] for b in g.blocks()) == counts[key]
    assert counts["intensity_flop_per_byte"] == pytest.approx(
        counts["flops"] / (counts["bytes_read"] + counts["bytes_written"]))
    inputs = sum(o["kind"] == "input" for o in ops)
    assert sum(b["num_ops"] for b in g.blocks()) == len(g) - inputs  # inputs belong to none
    first = ops[0]
    assert first["shape"] == (2, 224, 224, 3)
    assert first["dtype"] == "fp32"
    assert [o["id"] for o in ops] == list(range(len(ops)))
    # Parameters per image do not depend on the batch; MACs scale with it.
    g1 = dcnas.Graph.zoo("resnet50", batch=1)
    assert g1.counts()["params"] == counts["params"]
    assert 2 * g1.counts()["macs"] == counts["macs"]


@pytest.mark.parametrize("kwargs, needle", [
    ({"name": "no-such-model"}, "no-such-model"),
    ({"name": "resnet50", "batch": 0}, "batch 0"),
    ({"name": "resnet50", "batch": -3}, "batch -3"),
    ({"name": "resnet50", "resolution": -5}, "resolution -5"),
    ({"name": "resnet50", "dtype": "fp7"}, "fp7"),
    ({"name": "resnet50", "num_classes": 0}, "num_classes"),
])
def test_graph_zoo_bad_input(kwargs, needle):
    with pytest.raises(dcnas.InputError, match=re.escape(needle)):
        dcnas.Graph.zoo(**kwargs)


def test_graph_from_blocks():
    a = dcnas.Graph.from_blocks(BLOCKS, batch=2, resolution=64, name="mine")
    b = dcnas.Graph.from_blocks(", ".join(BLOCKS), batch=2, resolution=64, name="mine")
    assert a == b
    assert (a.model, a.batch, a.resolution) == ("mine", 2, 64)
    wide = dcnas.Graph.from_blocks(BLOCKS, batch=2, resolution=64, width=2.0, depth=2.0)
    assert wide.counts()["params"] > a.counts()["params"]
    assert len(wide) > len(a)


@pytest.mark.parametrize("kwargs, needle", [
    ({"blocks": "r1_k3_zz"}, "zz"),
    ({"blocks": ""}, "blocks"),
    ({"blocks": []}, "blocks"),
    ({"blocks": BLOCK, "width": 0}, "width"),
    ({"blocks": BLOCK, "depth": -1.0}, "depth"),
    ({"blocks": BLOCK, "width": float("inf")}, "inf"),
    ({"blocks": BLOCK, "batch": 0}, "batch 0"),
    ({"blocks": BLOCK, "dtype": "fp99"}, "fp99"),
])
def test_graph_from_blocks_bad_input(kwargs, needle):
    with pytest.raises(dcnas.InputError, match=re.escape(needle)):
        dcnas.Graph.from_blocks(**kwargs)


@pytest.mark.parametrize("blocks", [[1, 2], 5])
def test_graph_from_blocks_non_string_block_is_input_error(blocks):
    with pytest.raises(dcnas.InputError, match="blocks"):
        dcnas.Graph.from_blocks(blocks)


def test_graph_json_round_trip(tmp_path):
    g = dcnas.Graph.zoo("efficientnet-x-b0", batch=3)
    text = g.to_json()
    assert json.loads(text)["ops"]
    assert dcnas.Graph.from_json(text) == g
    path = tmp_path / "sub" / "g.json"
    g.save(str(path))
    assert path.read_text() == text
    loaded = dcnas.Graph.load(str(path))
    assert loaded == g and loaded.to_json() == text
    assert not (g == dcnas.Graph.zoo("efficientnet-x-b0", batch=4))


@pytest.mark.parametrize("dtype", ["fp16", "bf16", "int8"])
def test_graph_json_round_trip_equal_at_every_dtype(dtype):
    g = dcnas.Graph.from_blocks(BLOCK, resolution=32, dtype=dtype)
    h = dcnas.Graph.from_json(g.to_json())
    assert h.to_json() == g.to_json()
    assert h == g


def test_graph_json_bad_input(tmp_path):
    with pytest.raises(dcnas.InputError, match="my-source"):
        dcnas.Graph.from_json('{"ops": [', source="my-source")
    with pytest.raises(dcnas.InputError, match="format"):
        dcnas.Graph.from_json("{}", source="empty-object")
    text = dcnas.Graph.zoo("efficientnet-b0").to_json()
    doc = json.loads(text)
    doc["ops"][3]["kind"] = "warp_drive"
    with pytest.raises(dcnas.InputError, match="warp_drive"):
        dcnas.Graph.from_json(json.dumps(doc))
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text(text[: len(text) // 2])
    with pytest.raises(dcnas.InputError, match=re.escape(str(corrupt))):
        dcnas.Graph.load(str(corrupt))
    missing = tmp_path / "missing.json"
    with pytest.raises(dcnas.InputError, match=re.escape(str(missing))):
        dcnas.Graph.load(str(missing))


def test_graph_save_bad_path(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    target = blocker / "g.json"
    with pytest.raises(dcnas.InputError, match=re.escape(str(target))):
        dcnas.Graph.zoo("efficientnet-b0").save(str(target))


def test_graph_from_onnx(tiny_onnx):
    path = tiny_onnx
    g = dcnas.Graph.from_onnx(str(path), batch=4, dtype="fp16", name="tiny-net")
    assert (g.model, g.batch, g.resolution, g.dtype) == ("tiny-net", 4, 32, "fp16")
    # conv 3x3x3x8 + bias, fc 8x10 + bias
    assert g.counts()["params"] == 3 * 3 * 3 * 8 + 8 + 8 * 10 + 10
    assert dcnas.Graph.from_onnx(str(path)).model == "tiny"


def test_graph_from_onnx_bad_file(tmp_path):
    missing = tmp_path / "missing.onnx"
    with pytest.raises(dcnas.InputError, match=re.escape(str(missing))):
        dcnas.Graph.from_onnx(str(missing))
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"this is not a protobuf \x00\x01\x02")
    with pytest.raises(dcnas.InputError, match=re.escape(str(garbage))):
        dcnas.Graph.from_onnx(str(garbage))


def test_graph_from_onnx_bad_options(tiny_onnx):
    path = tiny_onnx
    with pytest.raises(dcnas.InputError, match="batch"):
        dcnas.Graph.from_onnx(str(path), batch=0)
    with pytest.raises(dcnas.InputError, match="fp3"):
        dcnas.Graph.from_onnx(str(path), dtype="fp3")


def test_stub_lists_exactly_the_module_api():
    """python/dcnas.pyi names every public function and class of the module, and no other."""
    import ast
    stub = Path(__file__).resolve().parents[2] / "python" / "dcnas.pyi"
    tree = ast.parse(stub.read_text())
    names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    public = {n for n in dir(dcnas) if not n.startswith("_")}
    assert names == public
    # And each class's methods and properties.
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name not in ("InputError", "InternalError"):
            members = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
            members |= {n.target.id for n in node.body if isinstance(n, ast.AnnAssign)}
            members.discard("__init__")
            members.discard("__len__")
            actual = {n for n in dir(getattr(dcnas, node.name)) if not n.startswith("_")}
            assert members == actual, node.name
