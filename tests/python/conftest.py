"""Shared fixtures of the `dcnas` Python module's tests: paths, the CLI, spaces and setups.

Run with Debian's interpreter and the built module on the path:
    DCNAS_CLI=build/cli/dcnas PYTHONPATH=build/python /usr/bin/python3 -m pytest tests/python
Tests that compare against the command line skip when DCNAS_CLI is unset.
"""
import os
import subprocess
from pathlib import Path

import pytest

import dcnas

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "data"
SPACE_FILE = DATA / "search_spaces" / "dc-accelerator.yaml"
SURROGATE_FILE = DATA / "surrogates" / "dc-accelerator.ubj"


def pytest_report_header(config):
    return f"dcnas {dcnas.__version__} from {dcnas.__file__}; data {dcnas.data_dir()}"


@pytest.fixture(scope="session")
def repo():
    return REPO


@pytest.fixture(scope="session")
def space_file():
    return str(SPACE_FILE)


@pytest.fixture(scope="session")
def surrogate_file():
    return str(SURROGATE_FILE)


@pytest.fixture(scope="session")
def cli_path():
    """The `dcnas` binary named by $DCNAS_CLI (relative paths from the repository root)."""
    value = os.environ.get("DCNAS_CLI", "")
    if not value:
        pytest.skip("DCNAS_CLI is not set: no command line to compare against")
    path = Path(value)
    if not path.is_absolute():
        path = REPO / path
    if not path.is_file():
        pytest.skip(f"DCNAS_CLI={value}: no such file")
    return str(path)


@pytest.fixture(scope="session")
def run_cli(cli_path):
    """Runs the CLI from the repository root; returns stdout, fails with stderr on exit != 0."""

    def run(*args, expect_rc=0):
        p = subprocess.run([cli_path, *map(str, args)], cwd=REPO, capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == expect_rc, f"dcnas {' '.join(map(str, args))}: {p.stderr}"
        return p.stdout

    return run


@pytest.fixture(scope="session")
def space():
    return dcnas.Space.load("dc-accelerator")


@pytest.fixture(scope="session")
def small_space():
    """nas-bench-macro: 8 choices, a few thousand networks (repeats happen in searches)."""
    return dcnas.Space.load("nas-bench-macro")


@pytest.fixture(scope="session")
def tpu():
    return dcnas.Setup("tpu-v3", batch=128)


@pytest.fixture(scope="session")
def tpu8():
    return dcnas.Setup("tpu-v3", batch=8)


@pytest.fixture(scope="session")
def surrogate():
    if not hasattr(dcnas.Surrogate, "predict"):
        pytest.skip("built without XGBoost")
    return dcnas.Surrogate.load(str(SURROGATE_FILE))


@pytest.fixture(scope="session")
def encodings(space):
    rng = dcnas.Rng(11)
    return [space.sample(rng) for _ in range(12)]


@pytest.fixture
def tiny_onnx(tmp_path):
    """A tiny ONNX model (conv, relu, global pool, fc) built with the onnx package."""
    path = tmp_path / "tiny.onnx"
    onnx = pytest.importorskip("onnx")
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    rs = np.random.RandomState(0)
    inits = [numpy_helper.from_array(rs.randn(8, 3, 3, 3).astype(np.float32), "W"),
             numpy_helper.from_array(np.zeros(8, np.float32), "B"),
             numpy_helper.from_array(rs.randn(10, 8).astype(np.float32), "FW"),
             numpy_helper.from_array(np.zeros(10, np.float32), "FB")]
    nodes = [helper.make_node("Conv", ["x", "W", "B"], ["c"], kernel_shape=[3, 3],
                              pads=[1, 1, 1, 1], strides=[2, 2]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("GlobalAveragePool", ["r"], ["p"]),
             helper.make_node("Flatten", ["p"], ["f"], axis=1),
             helper.make_node("Gemm", ["f", "FW", "FB"], ["y"], transB=1)]
    graph = helper.make_graph(
        nodes, "tiny", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 32, 32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(model, str(path))
    return path
