"""The XGBoost accuracy surrogate: fit from Python, fit_files, save/load (.ubj, .json), features,
predict, predict_features, the held-out report, dcnas.features, and bad input."""
import json
import re

import numpy as np
import pytest

import dcnas

pytestmark = pytest.mark.skipif(not hasattr(dcnas.Surrogate, "predict"),
                                reason="built without XGBoost")


def synthetic_accuracy(e):
    """A deterministic function of the encoding, in percent."""
    return 50.0 + 2.0 * e[1] + 1.5 * e[2] + 0.4 * sum(e) + 0.25 * e[10] * e[20]


@pytest.fixture(scope="module")
def data(space):
    rng = dcnas.Rng(5)
    encs = [space.sample(rng) for _ in range(60)]
    return encs, [synthetic_accuracy(e) for e in encs]


@pytest.fixture(scope="module")
def fitted(space, data):
    encs, accs = data
    return dcnas.Surrogate.fit(space, encs, accs, seed=1, members=2, holdout=0.4)


def test_fit_report_and_properties(fitted, space, data):
    encs, _ = data
    rep = fitted.report
    assert rep["architectures"] == 60 and rep["holdout"] == 0.4
    assert {"test", "split", "target"} <= set(rep)
    test = rep["test"]
    assert {"count", "kendall_tau", "rmse", "r_squared"} <= set(test)
    assert test["count"] == rep["split"]["test"] == 12  # half of the 40% held out
    assert rep["split"]["train"] + rep["split"]["valid"] + test["count"] == 60
    assert fitted.heldout_tau == test["kendall_tau"]
    # The synthetic accuracy is a smooth function of the encoding: ranked well.
    assert fitted.heldout_tau > 0.3
    meta = fitted.metadata
    assert meta["report"] == rep
    assert meta["space_fingerprint"] == space.fingerprint
    assert fitted.space.fingerprint == space.fingerprint
    assert fitted.space.vector_length == space.vector_length
    names = fitted.feature_names
    assert len(names) == len(set(names)) > space.vector_length
    x = fitted.features(encs)
    assert x.shape == (60, len(names)) and x.dtype == np.float32


def test_predict_and_predict_features_agree(fitted, data):
    encs, accs = data
    mean, std = fitted.predict(encs)
    assert mean.shape == std.shape == (60,)
    assert mean.dtype == np.float32 and std.dtype == np.float32
    assert np.all(std >= 0)
    assert np.all((mean > 40) & (mean < 100))
    m2, s2 = fitted.predict_features(fitted.features(encs))
    assert np.array_equal(m2, mean) and np.array_equal(s2, std)
    m3, _ = fitted.predict_features(fitted.features(encs).astype(np.float64).tolist())
    assert np.array_equal(m3, mean)
    texts = [fitted.space.to_text(e) for e in encs[:4]]
    assert np.array_equal(fitted.predict(texts)[0], mean[:4])
    assert np.array_equal(fitted.predict(np.array(encs[:4]))[0], mean[:4])
    empty_m, empty_s = fitted.predict([])
    assert empty_m.shape == (0,) and empty_s.shape == (0,)
    scaled = fitted.predict(encs[:2], scalings=[(1.0, 1.0, 1.0), (1.2, 1.1, 1.15)])
    assert scaled[0][0] == mean[0]
    feats = fitted.features(encs[:2], scalings=[(1.0, 1.0, 1.0), (1.2, 1.1, 1.15)])
    assert not np.array_equal(feats[1], fitted.features(encs[1:2])[0])
    assert np.array_equal(feats[0], fitted.features(encs[:1])[0])


@pytest.mark.parametrize("suffix", [".ubj", ".json"])
def test_save_load_same_predictions(tmp_path, fitted, data, suffix):
    encs, _ = data
    path = tmp_path / ("s" + suffix)
    fitted.save(str(path))
    loaded = dcnas.Surrogate.load(str(path))
    a, b = fitted.predict(encs), loaded.predict(encs)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert loaded.report == fitted.report
    assert loaded.feature_names == fitted.feature_names
    assert dcnas.Surrogate.load(str(path), nthread=2).predict(encs[:3])[0].tolist() == \
        a[0][:3].tolist()
    if suffix == ".json":
        assert json.loads(path.read_text())


def test_fit_equals_fit_files(tmp_path, space, space_file, data, fitted):
    encs, accs = data
    csv = tmp_path / "data.csv"
    csv.write_text("encoding,accuracy\n" +
                   "".join(f"{space.to_text(e)},{a!r}\n" for e, a in zip(encs, accs)))
    out = tmp_path / "py.ubj"
    s = dcnas.Surrogate.fit_files(space_file, [str(csv)], str(out), seed=1, members=2,
                                  holdout=0.4, learning_curve=False)
    assert out.is_file()
    assert (tmp_path / "py.ubj.report.json").is_file()
    assert (tmp_path / "py.ubj.parity.svg").is_file()
    assert np.array_equal(s.predict(encs)[0], fitted.predict(encs)[0])
    assert s.heldout_tau == fitted.heldout_tau


def test_fit_options_change_the_model(space, data, fitted):
    encs, accs = data
    other = dcnas.Surrogate.fit(space, encs, accs, seed=2, members=2, holdout=0.4,
                                features="onehot,counts")
    assert len(other.feature_names) < len(fitted.feature_names)
    assert other.features(encs).shape == (60, len(other.feature_names))
    all_in = dcnas.Surrogate.fit(space, encs, accs, seed=1, members=1, holdout=0.0)
    assert all_in.predict(encs)[0].shape == (60,)


def test_module_features(space, data, fitted):
    encs, _ = data
    names, x = dcnas.features(space, encs[:5])
    assert x.shape == (5, len(names)) and x.dtype == np.float32
    names_all, x_all = dcnas.features(space, encs[:5], sets="onehot,counts,graph")
    assert names_all == fitted.feature_names
    assert np.array_equal(x_all, fitted.features(encs[:5]))
    onehot, xo = dcnas.features(space, encs[:5], sets="onehot")
    assert xo.shape == (5, len(onehot))
    assert set(onehot) < set(names_all)
    _, scaled = dcnas.features(space, encs[:1], scalings=[(2.0, 2.0, 2.0)])
    assert not np.array_equal(scaled[0], x[0])


def test_surrogate_bad_input(tmp_path, space, data, fitted):
    encs, accs = data
    bad = list(encs[0])
    bad[0] = 99
    garbage = tmp_path / "garbage.ubj"
    garbage.write_bytes(b"garbage\x00\x01")
    gjson = tmp_path / "garbage.json"
    gjson.write_text('{"x": 1}')
    missing = tmp_path / "missing.ubj"
    cases = [
        (lambda: dcnas.Surrogate.load(str(missing)), str(missing)),
        (lambda: dcnas.Surrogate.load(str(garbage)), str(garbage)),
        (lambda: dcnas.Surrogate.load(str(gjson)), str(gjson)),
        (lambda: dcnas.Surrogate.fit(space, encs, accs[:-1]), "60 encodings and 59"),
        (lambda: dcnas.Surrogate.fit(space, encs[:-1] + [bad], accs), "99"),
        (lambda: dcnas.Surrogate.fit(space, encs, accs, holdout=1.0), "holdout 1"),
        (lambda: dcnas.Surrogate.fit(space, encs, accs, holdout=-0.1), "-0.1"),
        (lambda: dcnas.Surrogate.fit(space, encs, accs, members=0, holdout=0.4), "members"),
        (lambda: dcnas.Surrogate.fit(space, encs, accs, target="nope"), "nope"),
        (lambda: dcnas.Surrogate.fit(space, encs, accs, features="nope"), "nope"),
        (lambda: dcnas.Surrogate.fit(space, encs, accs, features="onehot,zero-cost"),
         "zero-cost"),
        (lambda: dcnas.Surrogate.fit(space, encs, accs[:-1] + [float("nan")], holdout=0.4),
         "nan"),
        (lambda: dcnas.Surrogate.fit(space, encs, accs[:-1] + [150.0], holdout=0.4), "150"),
        (lambda: dcnas.Surrogate.fit(space, encs[:5], accs[:5]), "5 architectures"),
        (lambda: dcnas.Surrogate.fit(space, encs, accs), "holdout"),
        (lambda: fitted.save(str(tmp_path / "x.txt")), "x.txt"),
        (lambda: fitted.save(str(garbage / "x.ubj")), str(garbage)),
        (lambda: fitted.predict([bad]), "99"),
        (lambda: fitted.predict("0.0.0"), "str"),
        (lambda: fitted.predict(encs[:2], scalings=[(1, 1, 1)]), "1 given for 2"),
        (lambda: fitted.predict(encs[:1], scalings=[(0, 1, 1)]), "scaling"),
        (lambda: fitted.features([bad]), "99"),
        (lambda: fitted.features(encs[:2], scalings=[(1, 1, 1)]), "1 given for 2"),
        (lambda: fitted.predict_features(np.zeros((2, 3))),
         f"{len(fitted.feature_names)} columns"),
        (lambda: fitted.predict_features(np.zeros(len(fitted.feature_names))), "columns"),
        (lambda: dcnas.features(space, encs[:2], sets="nope"), "nope"),
        (lambda: dcnas.features(space, encs[:2], sets="zero-cost"), "zero-cost"),
        (lambda: dcnas.features(space, [bad]), "99"),
        (lambda: dcnas.features(space, encs[:2], scalings=[(1, 1, 1)]), "1 given for 2"),
    ]
    for call, needle in cases:
        with pytest.raises(dcnas.InputError, match=re.escape(needle)):
            call()


def test_fit_files_bad_input(tmp_path, space_file, space):
    bad_csv = tmp_path / "bad.csv"
    bad_csv.write_text("encoding,accuracy\n1.2.3,50\n")
    with pytest.raises(dcnas.InputError, match=re.escape(f"{bad_csv}:2")):
        dcnas.Surrogate.fit_files(space_file, [str(bad_csv)], str(tmp_path / "o.ubj"))
    missing = tmp_path / "missing.csv"
    with pytest.raises(dcnas.InputError, match=re.escape(str(missing))):
        dcnas.Surrogate.fit_files(space_file, [str(missing)], str(tmp_path / "o.ubj"))
    no_space = tmp_path / "no-space.yaml"
    with pytest.raises(dcnas.InputError, match=re.escape(str(no_space))):
        dcnas.Surrogate.fit_files(str(no_space), [str(bad_csv)], str(tmp_path / "o.ubj"))
    with pytest.raises(dcnas.InputError, match="holdout 1.5"):
        dcnas.Surrogate.fit_files(space_file, [str(bad_csv)], str(tmp_path / "o.ubj"),
                                  holdout=1.5)


def test_fit_files_without_data_names_the_problem(tmp_path, space_file):
    with pytest.raises(dcnas.InputError, match="data"):
        dcnas.Surrogate.fit_files(space_file, [], str(tmp_path / "o.ubj"))


@pytest.mark.parametrize("where", ["predict", "features", "module features"])
def test_bad_scaling_shape_is_input_error(fitted, data, space, where):
    encs, _ = data
    call = {"predict": lambda: fitted.predict(encs[:1], scalings=[(1.0, 1.0)]),
            "features": lambda: fitted.features(encs[:1], scalings=[(1.0, 1.0)]),
            "module features": lambda: dcnas.features(space, encs[:1], scalings=[(1.0, 1.0)])}
    with pytest.raises(dcnas.InputError, match="scaling"):
        call[where]()


def test_shipped_surrogate(surrogate, space, encodings):
    assert surrogate.space.fingerprint == space.fingerprint
    mean, std = surrogate.predict(encodings)
    assert mean.shape == (len(encodings),) and np.all(std >= 0)
    assert 0.0 < surrogate.heldout_tau < 1.0
