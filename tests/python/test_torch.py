"""LibTorch: dcnas.measure times a tiny graph on this CPU, dcnas.train trains a tiny proxy
network on a slice of Fashion-MNIST; bad input to both."""
import json
import re
from pathlib import Path

import pytest

import dcnas

FASHION_MNIST = Path("/usr/share/datasets/fashion-mnist")  # models/torch/fashion_mnist.h


def _has_torch():
    try:
        dcnas.measure(dcnas.Graph.zoo("mobilenetv2-1.0", batch=1, resolution=32), mode="bad")
    except dcnas.InputError as e:
        return "without LibTorch" not in str(e)
    return True


pytestmark = pytest.mark.skipif(not _has_torch(), reason="built without LibTorch")


@pytest.fixture(scope="module")
def tiny():
    return dcnas.Graph.zoo("mobilenetv2-1.0", batch=2, resolution=32)


def test_torch_module():
    path = Path(dcnas.torch_module())
    assert path.is_file() and path.name.startswith("libdcnas_torch")
    assert dcnas.build_info()["torch"] is True


@pytest.mark.parametrize("mode", ["infer", "train"])
def test_measure(tiny, mode):
    m = dcnas.measure(tiny, mode=mode, repeats=2, warmup=1)
    assert (m["model"], m["batch"], m["resolution_px"], m["threads"], m["mode"]) == (
        "mobilenetv2-1.0", 2, 32, 1, mode)
    assert len(m["samples_ms"]) == 2 and all(t > 0 for t in m["samples_ms"])
    assert min(m["samples_ms"]) <= m["median_ms"] <= max(m["samples_ms"])
    assert m["spread_ms"] >= 0
    assert m["throughput_img_per_s"] == pytest.approx(2 / m["median_ms"] * 1e3)


@pytest.mark.parametrize("kwargs, needle", [
    ({"mode": "x"}, "'x'"),
    ({"repeats": 0}, "repeats"),
    ({"warmup": -1, "repeats": 1}, "-1"),
    ({"threads": 0, "repeats": 1}, "threads"),
])
def test_measure_bad_input(tiny, kwargs, needle):
    with pytest.raises(dcnas.InputError, match=re.escape(needle)):
        dcnas.measure(tiny, **kwargs)


needs_data = pytest.mark.skipif(not (FASHION_MNIST / "train-images-idx3-ubyte.gz").is_file(),
                                reason="Fashion-MNIST is not installed")


@needs_data
def test_train_tiny_proxy(tmp_path, space, encodings):
    graph = space.build_proxy(encodings[0])
    lines = []
    out = tmp_path / "run"
    r = dcnas.train(graph, str(out), epochs=1, batch=64, limit_train=256, limit_eval=128,
                    progress=lambda line, final: lines.append((line, final)))
    assert r["finished"] is True and r["epochs"] == 1
    assert r["model"] == graph.model
    assert r["params"] == graph.counts()["params"]
    assert 0.0 <= r["val_accuracy"] <= 1.0 and 0.0 <= r["test_accuracy"] <= 1.0
    assert len(r["history"]) == 1 and r["history"][0]["epoch"] == 1
    assert r["history"][0]["val_accuracy"] == r["val_accuracy"]
    result = json.loads((out / "result.json").read_text())
    assert result["model"] == graph.model
    assert result["test_accuracy"] == r["test_accuracy"]
    assert (out / "metrics.jsonl").is_file()
    assert lines and lines[-1][1] is True


@needs_data
@pytest.mark.parametrize("kwargs, needle", [
    ({"optimizer": "x"}, "'x'"),
    ({"epochs": 0}, "epochs"),
    ({"batch": 0}, "batch"),
    ({"learning_rate": -1.0}, "-1"),
    ({"limit_train": -5}, "limit-train"),
    ({"threads": 0}, "threads"),
    ({"batch": 128}, "128"),  # more than the 64 images of limit_train
    ({"data_dir": "/nonexistent/fashion"}, "/nonexistent/fashion"),
])
def test_train_bad_input(tmp_path, space, encodings, kwargs, needle):
    graph = space.build_proxy(encodings[0])
    args = {"epochs": 1, "batch": 32, "limit_train": 64, "limit_eval": 64, **kwargs}
    with pytest.raises(dcnas.InputError, match=re.escape(needle)):
        dcnas.train(graph, str(tmp_path / "run"), **args)


@needs_data
def test_train_bad_graph_and_out(tmp_path):
    thousand = dcnas.Graph.zoo("mobilenetv2-1.0", batch=2, resolution=32)
    with pytest.raises(dcnas.InputError, match="1000"):
        dcnas.train(thousand, str(tmp_path / "r"), epochs=1, batch=32, limit_train=64,
                    limit_eval=64)
    ten = dcnas.Graph.zoo("mobilenetv2-1.0", batch=2, resolution=32, num_classes=10)
    with pytest.raises(dcnas.InputError, match="out"):
        dcnas.train(ten, "", epochs=1)


def _write_cifar10(root, per_batch=240, test=100):
    """The CIFAR-10 binary layout: label byte, then 1,024 red, green and blue bytes."""
    root.mkdir()
    def records(n):
        out = bytearray()
        for i in range(n):
            label = i % 10
            out.append(label)
            for c in range(3):
                out += bytes([(40 + label * (97, 53, 31)[c]) % 256]) * 1024
        return bytes(out)
    for b in range(1, 6):
        (root / f"data_batch_{b}.bin").write_bytes(records(per_batch))
    (root / "test_batch.bin").write_bytes(records(test))


def test_train_on_cifar10(tmp_path):
    _write_cifar10(tmp_path / "c10")
    graph = dcnas.Graph.zoo("mobilenetv2-1.0", batch=32, resolution=32, num_classes=10)
    r = dcnas.train(graph, str(tmp_path / "run"), epochs=1, batch=32, limit_eval=64,
                    dataset=f"cifar10:{tmp_path / 'c10'}")
    assert r["finished"] and r["epochs"] == 1
    config = json.loads((tmp_path / "run" / "result.json").read_text())["config"]
    assert re.fullmatch(r"cifar10@[0-9a-f]{16}", config["dataset"])
    assert config["crop_pad"] == 4 and config["validation_images"] == 120


@pytest.mark.parametrize("kwargs, needle", [
    ({"dataset": "svhn"}, "unknown dataset 'svhn'"),
    ({"dataset": "cifar10"}, "cifar10:DIR"),
    ({"dataset": "imagefolder:/nonexistent/folder"}, "/nonexistent/folder"),
    ({"device": "gpu"}, "--device 'gpu'"),
    ({"image_size": 3}, "--image-size 3"),
])
def test_train_dataset_and_device_errors(tmp_path, kwargs, needle):
    graph = dcnas.Graph.zoo("mobilenetv2-1.0", batch=2, resolution=32, num_classes=10)
    with pytest.raises(dcnas.InputError, match=re.escape(needle)):
        dcnas.train(graph, str(tmp_path / "run"), epochs=1, **kwargs)


def test_measure_device_error(tiny):
    with pytest.raises(dcnas.InputError, match=re.escape("--device 'tpu'")):
        dcnas.measure(tiny, device="tpu")
