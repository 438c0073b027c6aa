"""Search: Rng, Space, strategies behind ask/tell, rewards, Pareto ranks, SimLatency and
run_search (a Python ask/tell loop reproduces the journal; resume; bad input)."""
import json
import re

import pytest

import dcnas

SEARCH_KW = dict(min_surrogate_tau=0.3, references=[])


# Space ----------------------------------------------------------------------------------------

def test_space_properties(space, space_file):
    assert space.name == "dc-accelerator"
    assert space.description
    assert space.file == space_file
    assert re.fullmatch(r"[0-9a-f]{16}", space.fingerprint)
    assert space.vector_length == len(space.choice_counts) == len(space.choice_names) == 46
    assert all(c >= 1 for c in space.choice_counts)
    raw = 1.0
    for c in space.choice_counts:
        raw *= c
    assert space.raw_size == pytest.approx(raw)
    assert 0 < space.canonical_size <= space.raw_size
    assert "dc-accelerator" in repr(space)
    by_path = dcnas.Space.load(space_file)
    assert by_path.fingerprint == space.fingerprint
    with open(space_file) as f:
        parsed = dcnas.Space.parse(f.read(), file="inline.yaml")
    assert parsed.fingerprint == space.fingerprint and parsed.file == "inline.yaml"


def test_space_load_and_parse_bad_input(tmp_path):
    with pytest.raises(dcnas.InputError, match="no-such-space"):
        dcnas.Space.load("no-such-space")
    missing = tmp_path / "missing.yaml"
    with pytest.raises(dcnas.InputError, match=re.escape(str(missing))):
        dcnas.Space.load(str(missing))
    with pytest.raises(dcnas.InputError, match="my.yaml"):
        dcnas.Space.parse("name: [", file="my.yaml")
    with pytest.raises(dcnas.InputError, match="my.yaml"):
        dcnas.Space.parse("", file="my.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("foo: 1\n")
    with pytest.raises(dcnas.InputError, match=re.escape(str(bad))):
        dcnas.Space.load(str(bad))


def test_rng_bad_seed_is_input_error():
    with pytest.raises(dcnas.InputError, match="-1"):
        dcnas.Rng(-1)


def test_space_sampling_is_deterministic(space):
    a = [space.sample(dcnas.Rng(5)) for _ in range(2)]
    assert a[0] == a[1]
    rng1, rng2 = dcnas.Rng(5), dcnas.Rng(5)
    seq1 = [space.sample(rng1) for _ in range(5)]
    seq2 = [space.sample(rng2) for _ in range(5)]
    assert seq1 == seq2 and len({tuple(e) for e in seq1}) == 5
    assert seq1 != [space.sample(dcnas.Rng(6)) for _ in range(5)]
    for e in seq1:
        assert len(e) == space.vector_length
        assert all(0 <= v < c for v, c in zip(e, space.choice_counts))
        assert space.is_valid(e) and space.canonical(e) == e


def test_space_mutate_crossover_deterministic(space, encodings):
    a, b = encodings[0], encodings[1]
    m1 = space.mutate(a, 2, dcnas.Rng(9))
    assert m1 == space.mutate(a, 2, dcnas.Rng(9))
    assert m1 != a and space.is_valid(m1) and space.canonical(m1) == m1
    x1 = space.crossover(a, b, dcnas.Rng(9))
    assert x1 == space.crossover(a, b, dcnas.Rng(9))
    assert space.is_valid(x1) and space.canonical(x1) == x1
    # Each choice of a child comes from one parent (before canonicalisation zeroes don't-cares).
    ca, cb = space.canonical(a), space.canonical(b)
    assert sum(v not in (p, q) and v != 0 for v, p, q in zip(x1, ca, cb)) == 0
    assert space.crossover(a, a, dcnas.Rng(1)) == space.canonical(a)
    text = space.to_text(a)
    assert space.mutate(text, 2, dcnas.Rng(9)) == m1


def test_space_canonical_idempotent_and_text_round_trip(space):
    rng = dcnas.Rng(3)
    for _ in range(20):
        raw = [int(v) for v in (space.sample(rng))]
        # Perturb to a raw (possibly non-canonical) encoding.
        raw = [(v + i) % c for i, (v, c) in enumerate(zip(raw, space.choice_counts))]
        c = space.canonical(raw)
        assert space.canonical(c) == c
        assert space.canonical(tuple(raw)) == c
        text = space.to_text(c)
        assert space.from_text(text) == c
        assert space.canonical(text) == c
        assert space.to_text(space.from_text(text)) == text


def test_space_decode_and_build(space, encodings):
    e = encodings[0]
    d = space.decode(e)
    assert set(d) == {"blocks", "block_stages", "stage_ops", "layers"}
    assert len(d["blocks"]) == len(d["block_stages"])
    assert d["layers"] >= len(d["blocks"])
    g = space.build_full(e, batch=2, dtype="bf16")
    assert isinstance(g, dcnas.Graph)
    assert (g.batch, g.dtype) == (2, "bf16")
    assert len(d["stage_ops"]) == 7
    layers = {b["block"] for b in g.blocks() if b["block"].startswith("blocks.")}
    assert len(layers) == d["layers"]
    bigger = space.build_full(e, scaling=(1.2, 1.1, 1.15))
    assert bigger.resolution > space.build_full(e).resolution
    assert bigger.counts()["params"] > space.build_full(e).counts()["params"]
    p = space.build_proxy(e)
    assert isinstance(p, dcnas.Graph)
    assert p.num_classes == 10 and p.resolution < g.resolution
    assert space.build_proxy(e, scaling=(1.0, 1.0, 2.0)).resolution > p.resolution


@pytest.mark.parametrize("call, needle", [
    (lambda s, e, bad: s.mutate([-1] + e[1:], 1, dcnas.Rng()), "-1"),
    (lambda s, e, bad: s.mutate(e[:-1], 1, dcnas.Rng()), "45"),
    (lambda s, e, bad: s.crossover(e, bad, dcnas.Rng()), "99"),
    (lambda s, e, bad: s.canonical(bad), "99"),
    (lambda s, e, bad: s.canonical([0.5] * s.vector_length), "encoding"),
    (lambda s, e, bad: s.canonical(5), "int"),
    (lambda s, e, bad: s.is_valid(bad), "99"),
    (lambda s, e, bad: s.to_text(e + [0]), "47"),
    (lambda s, e, bad: s.from_text("1.2.x"), "1.2.x"),
    (lambda s, e, bad: s.from_text("9" + s.to_text(e)[1:]), "= 9"),
    (lambda s, e, bad: s.decode(bad), "99"),
    (lambda s, e, bad: s.build_full(e, batch=0), "batch 0"),
    (lambda s, e, bad: s.build_full(e, dtype="fp5"), "fp5"),
    (lambda s, e, bad: s.build_full(e, scaling=(0.0, 1.0, 1.0)), "scaling"),
    (lambda s, e, bad: s.build_full(e, scaling=(1.0, 1.0, float("nan"))), "scaling"),
    (lambda s, e, bad: s.build_proxy(e, scaling=(1.0, -1.0, 1.0)), "scaling"),
    (lambda s, e, bad: s.build_proxy(bad), "99"),
])
def test_space_bad_input(space, encodings, call, needle):
    e = list(encodings[0])
    bad = list(e)
    bad[0] = 99
    with pytest.raises(dcnas.InputError, match=re.escape(needle)):
        call(space, e, bad)


# Strategies -----------------------------------------------------------------------------------

def test_strategy_names_and_parameters():
    names = dcnas.strategy_names()
    assert names == ["random", "evolution", "rl", "nsga2", "predictor"]
    assert dcnas.strategy_parameters("random") == []
    assert dcnas.strategy_parameters("evolution") == ["population", "tournament", "mutations",
                                                      "start"]
    assert dcnas.strategy_parameters("nsga2") == ["population", "mutations"]
    assert "kappa" in dcnas.strategy_parameters("predictor")


def test_strategy_parameters_unknown_strategy():
    with pytest.raises(dcnas.InputError, match="no-such-strategy"):
        dcnas.strategy_parameters("no-such-strategy")


def test_strategy_ask_tell(space):
    st = dcnas.Strategy("evolution", space, seed=3, population=4, tournament=2)
    assert st.name == "evolution"
    assert (st.asked, st.told, st.pending) == (0, 0, 0)
    cands = st.ask(3)
    assert all(isinstance(c, dcnas.Candidate) for c in cands)
    assert [c.id for c in cands] == [0, 1, 2]
    assert all(space.is_valid(c.encoding) for c in cands)
    assert "Candidate 0" in repr(cands[0])
    assert (st.asked, st.told, st.pending) == (3, 0, 3)
    for k, c in enumerate(cands):
        st.tell(c, 50.0 + k)
    assert (st.asked, st.told, st.pending) == (3, 3, 0)
    assert st.ask(0) == []
    again = dcnas.Strategy("evolution", space, seed=3, population=4, tournament=2)
    assert [c.encoding for c in again.ask(3)] == [c.encoding for c in cands]
    other = dcnas.Strategy("evolution", space, seed=4, population=4, tournament=2)
    assert [c.encoding for c in other.ask(3)] != [c.encoding for c in cands]


def test_nsga2_waits_between_generations(space):
    st = dcnas.Strategy("nsga2", space, seed=1, population=4)
    first = st.ask(10)
    assert len(first) == 4
    assert st.ask(1) == []  # the generation is not told yet
    for k, c in enumerate(first):
        st.tell(c, 0.0, [50.0 + k, -10.0 - k])
    assert len(st.ask(4)) == 4


def test_strategy_tell_bad_input(space):
    st = dcnas.Strategy("random", space, seed=1)
    c, = st.ask(1)
    other = dcnas.Strategy("random", space, seed=2)
    d0, d1 = other.ask(2)
    with pytest.raises(dcnas.InputError, match="candidate 1"):
        st.tell(d1, 1.0)  # an id never asked
    with pytest.raises(dcnas.InputError, match=space.to_text(d0.encoding)):
        st.tell(d0, 1.0)  # the same id, another encoding
    with pytest.raises(dcnas.InputError, match="nan"):
        st.tell(c, float("nan"))
    with pytest.raises(dcnas.InputError, match="inf"):
        st.tell(c, 1.0, [float("inf")])
    st.tell(c, 1.0)
    with pytest.raises(dcnas.InputError, match="told already"):
        st.tell(c, 1.0)
    with pytest.raises(dcnas.InputError, match="-1"):
        st.ask(-1)
    n = dcnas.Strategy("nsga2", space, seed=1, population=4)
    a, b, _, _ = n.ask(4)
    with pytest.raises(dcnas.InputError, match="objectives"):
        n.tell(a, 1.0)
    n.tell(a, 1.0, [1.0, 2.0])
    with pytest.raises(dcnas.InputError, match="1 objectives"):
        n.tell(b, 1.0, [1.0])


@pytest.mark.parametrize("name, params, needle", [
    ("no-such-strategy", {}, "no-such-strategy"),
    ("random", {"population": 3}, "population"),
    ("evolution", {"foo": 3}, "foo"),
    ("evolution", {"population": 2.5}, "2.5"),
    ("evolution", {"population": "abc"}, "abc"),
    ("evolution", {"population": 0}, "population 0"),
    ("evolution", {"population": -3}, "-3"),
    ("nsga2", {"tournament": 2}, "tournament"),
    ("predictor", {"model": "nope"}, "nope"),
    ("predictor", {"acquisition": "nope"}, "nope"),
    ("predictor", {"kappa": float("nan")}, "kappa"),
    ("predictor", {"kappa": [1]}, "kappa"),
])
def test_strategy_bad_input(space, name, params, needle):
    with pytest.raises(dcnas.InputError, match=re.escape(needle)):
        dcnas.Strategy(name, space, seed=0, **params)


def test_strategy_non_space_is_input_error():
    with pytest.raises(dcnas.InputError, match="space"):
        dcnas.Strategy("random", 3)


# Rewards and fronts ---------------------------------------------------------------------------

def test_rewards():
    assert dcnas.mnas_reward(70.0, 10.0, 10.0) == 70.0
    assert dcnas.mnas_reward(70.0, 20.0, 10.0) == pytest.approx(70.0 * 2 ** -0.07)
    assert dcnas.mnas_reward(70.0, 20.0, 10.0, w=-0.5) == pytest.approx(70.0 * 2 ** -0.5)
    assert dcnas.hard_reward(70.0, 5.0, 10.0) == 70.0
    assert dcnas.hard_reward(70.0, 20.0, 10.0) == pytest.approx(35.0)
    for fn in (dcnas.mnas_reward, dcnas.hard_reward):
        with pytest.raises(dcnas.InputError, match="target 0"):
            fn(70.0, 10.0, 0.0)
        with pytest.raises(dcnas.InputError, match="latency -1"):
            fn(70.0, -1.0, 10.0)
        with pytest.raises(dcnas.InputError, match="nan"):
            fn(float("nan"), 10.0, 10.0)


def _dominates(a, b):
    return all(x >= y for x, y in zip(a, b)) and any(x > y for x, y in zip(a, b))


def test_pareto_front_and_ranks_against_brute_force():
    import random
    r = random.Random(4)
    points = [[r.randint(0, 9), r.randint(0, 9)] for _ in range(40)]
    front = dcnas.pareto_front(points)
    expected = [i for i, p in enumerate(points)
                if not any(_dominates(q, p) for q in points)]
    assert sorted(front) == expected
    ranks = dcnas.non_dominated_ranks(points)
    assert len(ranks) == len(points)
    assert sorted(i for i, k in enumerate(ranks) if k == 0) == expected
    for i, p in enumerate(points):
        for j, q in enumerate(points):
            if _dominates(p, q):
                assert ranks[i] < ranks[j]
    assert dcnas.pareto_front([]) == [] and dcnas.non_dominated_ranks([]) == []
    for fn in (dcnas.pareto_front, dcnas.non_dominated_ranks):
        with pytest.raises(dcnas.InputError, match="point 1"):
            fn([[1, 2], [3]])
        with pytest.raises(dcnas.InputError, match="NaN"):
            fn([[1, float("nan")], [2, 3]])


# SimLatency -----------------------------------------------------------------------------------

@pytest.mark.parametrize("accel", ["tpu-v3", "v100"])
def test_sim_latency_equals_simulate(space, encodings, accel):
    setup = dcnas.Setup(accel, batch=128)
    lat = dcnas.SimLatency(space, setup)
    values = [lat.latency_ms(e) for e in encodings]
    # search/objectives.h: the latency is the one Simulate gives for the graph (BuildFull).
    assert values == [
        dcnas.simulate(space.build_full(e, batch=128, dtype=setup.dtype), setup).latency_ms
        for e in encodings]
    many = lat.latency_ms_many(encodings)
    assert many.dtype.name == "float64" and many.tolist() == values
    assert lat.latency_ms(space.to_text(encodings[0])) == values[0]
    assert lat.latency_ms_many([]).tolist() == []


def test_sim_latency_and_counts(space, encodings, tpu8):
    lat = dcnas.SimLatency(space, tpu8)
    for e in encodings[:4]:
        ms, (params, flops) = lat.latency_and_counts(e)
        assert ms == lat.latency_ms(e)
        counts = space.build_full(e).counts()  # batch 1
        assert (params, flops) == (counts["params"], counts["flops"])


def test_search_accuracy(space, encodings, tpu8, surrogate, surrogate_file, tmp_path):
    spec = "surrogate:" + surrogate_file
    acc = dcnas.SearchAccuracy(spec, space, min_surrogate_tau=0.3)
    mean = [float(m) for m in surrogate.predict(encodings)[0]]
    assert [acc.accuracy(e) for e in encodings] == mean
    lat = dcnas.SimLatency(space, tpu8)
    counts = [lat.latency_and_counts(e)[1] for e in encodings]
    many = acc.accuracy_many(encodings)
    assert many.dtype.name == "float64" and many.tolist() == mean
    assert acc.accuracy_many(encodings, counts=counts).tolist() == mean
    assert acc.config["kind"] == "surrogate" and acc.config["min_tau"] == 0.3
    res = dcnas.run_search(space, str(tmp_path / "run"), 3, spec, latency=tpu8, target_ms=2.0,
                           **SEARCH_KW)
    assert res["config"]["accuracy"] == acc.config
    table = tmp_path / "acc.csv"
    table.write_text("encoding,accuracy\n" + "".join(
        f"{space.to_text(e)},{50 + k}\n" for k, e in enumerate(encodings)))
    t = dcnas.SearchAccuracy(f"table:{table}", space)
    assert t.accuracy_many(encodings).tolist() == [50.0 + k for k in range(len(encodings))]
    assert t.config["kind"] == "table"


def test_search_accuracy_bad_input(space, encodings, surrogate_file, tmp_path):
    spec = "surrogate:" + surrogate_file
    acc = dcnas.SearchAccuracy(spec, space, min_surrogate_tau=0.3)
    bad = list(encodings[0])
    bad[0] = 99
    missing = tmp_path / "missing.ubj"
    cases = [
        (lambda: dcnas.SearchAccuracy("nope:x", space), "nope:x"),
        (lambda: dcnas.SearchAccuracy(spec, space), "tau"),
        (lambda: dcnas.SearchAccuracy(f"surrogate:{missing}", space), str(missing)),
        (lambda: dcnas.SearchAccuracy(spec, dcnas.Space.load("mnasnet"), min_surrogate_tau=0),
         "dc-accelerator"),
        (lambda: dcnas.SearchAccuracy("train:nope", space), "nope"),
        (lambda: acc.accuracy(bad), "99"),
        (lambda: acc.accuracy_many([encodings[0], bad]), "99"),
        (lambda: acc.accuracy_many(encodings, counts=[(1.0, 2.0)]), "1 given for"),
    ]
    for call, needle in cases:
        with pytest.raises(dcnas.InputError, match=re.escape(needle)):
            call()
    table = tmp_path / "acc.csv"
    table.write_text(f"encoding,accuracy\n{space.to_text(encodings[0])},60\n")
    t = dcnas.SearchAccuracy(f"table:{table}", space)
    with pytest.raises(dcnas.InputError, match=re.escape(space.to_text(encodings[1]))):
        t.accuracy(encodings[1])


@pytest.mark.parametrize("counts, needle", [
    ([(1.0,)], "counts"),
    ([(float("nan"), 1.0)], "nan"),
    ([(-1.0, -5.0)], "-1"),
])
def test_search_accuracy_bad_counts(space, encodings, surrogate_file, counts, needle):
    acc = dcnas.SearchAccuracy("surrogate:" + surrogate_file, space, min_surrogate_tau=0.3)
    with pytest.raises(dcnas.InputError, match=re.escape(needle)):
        acc.accuracy_many(encodings[:1], counts=counts)


def test_search_accuracy_non_space_is_input_error(surrogate_file):
    with pytest.raises(dcnas.InputError, match="space"):
        dcnas.SearchAccuracy("surrogate:" + surrogate_file, 3, min_surrogate_tau=0.3)


def test_sim_latency_bad_input(space, encodings, tpu8):
    lat = dcnas.SimLatency(space, tpu8)
    bad = list(encodings[0])
    bad[3] = 99
    with pytest.raises(dcnas.InputError, match="99"):
        lat.latency_ms(bad)
    with pytest.raises(dcnas.InputError, match="99"):
        lat.latency_ms_many([encodings[0], bad])
    with pytest.raises(dcnas.InputError, match="str"):
        lat.latency_ms_many("0.0.0")


def test_sim_latency_non_space_is_input_error(tpu8):
    with pytest.raises(dcnas.InputError, match="space"):
        dcnas.SimLatency(3, tpu8)


# run_search -----------------------------------------------------------------------------------

def _journal(path):
    lines = (path / "journal.jsonl").read_text().splitlines()
    return json.loads(lines[0]), [json.loads(x) for x in lines[1:]]


def _ask_tell(space, strategy, budget, in_flight, accuracy, latency, target, seed=3, **params):
    """run.h's rounds in Python: ask in_flight, score the new networks, tell all in order;
    a network evaluated before is answered from its first result and not charged."""
    st = dcnas.Strategy(strategy, space, seed=seed, **params)
    evaluated, points, repeats = {}, [], 0
    while len(points) < budget:
        cands = st.ask(min(in_flight, budget - len(points)))
        assert cands
        texts = [space.to_text(c.encoding) for c in cands]
        fresh = [k for k, t in enumerate(texts) if t not in evaluated and t not in texts[:k]]
        accs = accuracy([cands[k].encoding for k in fresh])
        scores = {k: (a, latency(cands[k].encoding)) for k, a in zip(fresh, accs)}
        for k, c in enumerate(cands):
            if texts[k] in evaluated:
                a, lat, r = evaluated[texts[k]]
                repeats += 1
            else:
                a, lat = scores[k]
                r = dcnas.mnas_reward(a, lat, target)
                evaluated[texts[k]] = (a, lat, r)
                points.append({"accuracy": a, "encoding": texts[k], "id": c.id,
                               "latency_ms": lat, "reward": r})
            st.tell(c, r, [a, -lat])
    return points, repeats


@pytest.mark.parametrize("strategy, budget, in_flight, params", [
    ("evolution", 60, 1, {}),
    ("evolution", 30, 3, {"population": 6}),
    ("nsga2", 24, 8, {"population": 8}),
])
def test_ask_tell_loop_reproduces_run_search(tmp_path, space, tpu, surrogate, surrogate_file,
                                             strategy, budget, in_flight, params):
    res = dcnas.run_search(space, str(tmp_path), budget, "surrogate:" + surrogate_file,
                           latency=tpu, target_ms=20.0, seed=3, strategy=strategy,
                           in_flight=in_flight, params=params, **SEARCH_KW)
    header, lines = _journal(tmp_path)
    assert header["config"]["in_flight"] == in_flight
    lat = dcnas.SimLatency(space, tpu)
    points, repeats = _ask_tell(
        space, strategy, budget, in_flight,
        lambda es: [float(a) for a in surrogate.predict(es)[0]] if es else [],
        lat.latency_ms, 20.0, **params)
    assert lines == points
    assert repeats == res["repeats"]


def test_ask_tell_loop_with_repeats(tmp_path, small_space, tpu8):
    def accuracy(e):
        return 40.0 + 3.0 * e[0] + 2.0 * e[3] + 0.5 * sum(e)

    res = dcnas.run_search(small_space, str(tmp_path), 120, accuracy, latency=tpu8,
                           target_ms=5.0, seed=3, strategy="rl", in_flight=2, references=[])
    _, lines = _journal(tmp_path)
    lat = dcnas.SimLatency(small_space, tpu8)
    points, repeats = _ask_tell(small_space, "rl", 120, 2,
                                lambda es: [accuracy(e) for e in es], lat.latency_ms, 5.0)
    assert lines == points
    assert repeats == res["repeats"] > 0
    assert len(lines) == res["evaluations"] == 120


def test_run_search_result(tmp_path, space, tpu8):
    progress = []

    def accuracy(e):
        assert isinstance(e, list) and len(e) == space.vector_length
        return 50.0 + e[1] + 0.25 * e[5]

    res = dcnas.run_search(space, str(tmp_path), 12, accuracy, latency=tpu8, target_ms=2.0,
                           seed=1, progress=progress.append, references=["efficientnet-b0"])
    assert {p.name for p in tmp_path.iterdir()} >= {
        "journal.jsonl", "summary.json", "best.json", "best.txt", "pareto.csv"}
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert {k: v for k, v in res.items()
            if k not in ("points", "best_index", "front_indices")} == summary
    assert res["evaluations"] == len(res["points"]) == 12
    assert res["config"]["accuracy"]["kind"] == "python"
    assert res["config"]["accuracy"]["function"].endswith("accuracy")
    pts = res["points"]
    assert [p["id"] for p in pts] == sorted(p["id"] for p in pts)
    best = pts[res["best_index"]]
    assert best["reward"] == max(p["reward"] for p in pts)
    assert best["encoding"] == res["best"]["encoding"]
    lat = dcnas.SimLatency(space, tpu8)
    for p in pts:
        e = space.from_text(p["encoding"])
        assert p["accuracy"] == accuracy(e)
        assert p["latency_ms"] == lat.latency_ms(e)
        assert p["reward"] == dcnas.mnas_reward(p["accuracy"], p["latency_ms"], 2.0)
    front = [pts[i] for i in res["front_indices"]]
    objs = [[p["accuracy"], -p["latency_ms"]] for p in pts]
    assert sorted(res["front_indices"]) == sorted(dcnas.pareto_front(objs))
    assert [p["latency_ms"] for p in front] == sorted(p["latency_ms"] for p in front)
    assert len(progress) == 12 and progress[-1]["evaluations"] == 12
    assert set(progress[-1]) == {"evaluations", "replayed", "repeats", "budget", "best_reward"}
    assert progress[-1]["best_reward"] == best["reward"]
    assert [r["model"] for r in res["references"]] == ["efficientnet-b0"]
    best_graph = dcnas.Graph.load(str(tmp_path / "best.json"))
    assert best_graph.batch == 8 and best_graph.dtype == "bf16"


def test_run_search_accuracy_only_and_hard(tmp_path, space, tpu8):
    res = dcnas.run_search(space, str(tmp_path / "a"), 6, lambda e: 50.0 + e[1], seed=2)
    assert all(p["reward"] == p["accuracy"] for p in res["points"])
    hard = dcnas.run_search(space, str(tmp_path / "h"), 6, lambda e: 50.0 + e[1],
                            latency=tpu8, target_ms=1.0, hard=True, seed=2, references=[])
    for p in hard["points"]:
        assert p["reward"] == dcnas.hard_reward(p["accuracy"], p["latency_ms"], 1.0)


def test_run_search_resume_after_truncation(tmp_path, space, tpu8, surrogate_file):
    kw = dict(latency=tpu8, target_ms=2.0, seed=5, strategy="evolution", **SEARCH_KW)
    acc = "surrogate:" + surrogate_file
    full = dcnas.run_search(space, str(tmp_path / "full"), 20, acc, **kw)
    journal = (tmp_path / "full" / "journal.jsonl").read_bytes()
    cut = tmp_path / "cut"
    cut.mkdir()
    lines = journal.splitlines(keepends=True)
    (cut / "journal.jsonl").write_bytes(b"".join(lines[:8]))  # header + 7 results
    with pytest.raises(dcnas.InputError, match="resume"):
        dcnas.run_search(space, str(cut), 20, acc, **kw)
    resumed = dcnas.run_search(space, str(cut), 20, acc, resume=True, **kw)
    assert (cut / "journal.jsonl").read_bytes() == journal
    assert resumed["points"] == full["points"]
    with pytest.raises(dcnas.InputError, match="journal"):
        dcnas.run_search(space, str(cut), 20, acc, resume=True,
                         **{**kw, "seed": 6})


def _fn(e):
    return 50.0 + e[1]


@pytest.mark.parametrize("kwargs, needle", [
    ({"budget": 0}, "budget"),
    ({"budget": -1}, "-1"),
    ({"strategy": "nope"}, "nope"),
    ({"strategy": "random", "params": {"population": 3}}, "population"),
    ({"params": {"population": "x"}}, "'x'"),
    ({"params": {"population": 1.5}}, "1.5"),
    ({"accuracy": "nope:x"}, "nope:x"),
    ({"accuracy": "surrogate:/nonexistent/s.ubj"}, "/nonexistent/s.ubj"),
    ({"accuracy": 3}, "int"),
    ({"accuracy": lambda e: "x"}, "str"),
    ({"accuracy": lambda e: float("nan")}, "nan"),
    ({"target_ms": 10.0}, "target_ms"),
    ({"latency": "SETUP"}, "target_ms"),
    ({"latency": "SETUP", "target_ms": 0.0}, "target-ms"),
    ({"latency": "SETUP", "target_ms": -1.0}, "-1"),
    ({"latency": "sim", "target_ms": 10.0}, "'sim'"),
    ({"latency": "table:/nonexistent/t.csv", "target_ms": 10.0}, "/nonexistent/t.csv"),
    ({"latency": 3, "target_ms": 10.0}, "int"),
    ({"in_flight": 0}, "in-flight"),
    ({"threads": 0}, "threads"),
    ({"latency": "SETUP", "target_ms": 10.0, "references": ["no-model"]}, "no-model"),
    ({"latency": "SETUP", "target_ms": 10.0, "w": 0.5}, "0.5"),
    ({"prior": True}, "prior"),
])
def test_run_search_bad_input(tmp_path, space, tpu8, kwargs, needle):
    args = {"budget": 5, "accuracy": _fn, **kwargs}
    if args.get("latency") == "SETUP":
        args["latency"] = tpu8
    with pytest.raises(dcnas.InputError, match=re.escape(needle)):
        dcnas.run_search(space, str(tmp_path / "run"), **args)


def test_run_search_low_tau_surrogate(tmp_path, space, tpu8, surrogate_file):
    with pytest.raises(dcnas.InputError, match="tau"):
        dcnas.run_search(space, str(tmp_path), 5, "surrogate:" + surrogate_file,
                         latency=tpu8, target_ms=5.0)


def test_run_search_garbage_surrogate(tmp_path, space):
    garbage = tmp_path / "garbage.ubj"
    garbage.write_bytes(b"garbage\x00")
    with pytest.raises(dcnas.InputError, match=re.escape(str(garbage))):
        dcnas.run_search(space, str(tmp_path / "run"), 5, "surrogate:" + str(garbage))


def test_run_search_python_exceptions_propagate(tmp_path, space):
    def boom(e):
        raise KeyError("from the accuracy function")

    with pytest.raises(KeyError, match="from the accuracy function"):
        dcnas.run_search(space, str(tmp_path / "a"), 3, boom)

    def bad_progress(p):
        raise ZeroDivisionError("progress")

    with pytest.raises(ZeroDivisionError):
        dcnas.run_search(space, str(tmp_path / "b"), 3, _fn, progress=bad_progress)


def test_run_search_stopped_by_progress_resumes_to_the_same_journal(tmp_path, space, tpu8):
    """An exception from the progress function (as Ctrl-C raises one there) stops the search with
    its journal intact; resume=True then ends where an uninterrupted run does."""
    kw = dict(latency=tpu8, target_ms=2.0, seed=2, **SEARCH_KW)
    dcnas.run_search(space, str(tmp_path / "full"), 60, _fn, **kw)

    class Stop(Exception):
        pass

    def stop_at_25(p):
        if p["evaluations"] >= 25:
            raise Stop()

    with pytest.raises(Stop):
        dcnas.run_search(space, str(tmp_path / "cut"), 60, _fn, progress=stop_at_25, **kw)
    kept = (tmp_path / "cut" / "journal.jsonl").read_bytes().splitlines()
    assert 25 <= len(kept) - 1 < 60
    dcnas.run_search(space, str(tmp_path / "cut"), 60, _fn, resume=True, **kw)
    assert ((tmp_path / "cut" / "journal.jsonl").read_bytes() ==
            (tmp_path / "full" / "journal.jsonl").read_bytes())


def test_run_search_out_is_a_file_is_input_error(tmp_path, space):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(dcnas.InputError, match=re.escape(str(blocker))):
        dcnas.run_search(space, str(blocker / "run"), 3, _fn)


@pytest.mark.parametrize("kwargs, needle", [
    ({"references": [1]}, "references"),
    ({"params": {1: 2}}, "1"),
])
def test_run_search_bad_types_are_input_errors(tmp_path, space, kwargs, needle):
    with pytest.raises(dcnas.InputError, match=re.escape(needle)):
        dcnas.run_search(space, str(tmp_path / "run"), 3, _fn, **kwargs)


def test_run_search_references_as_one_string(tmp_path, space, tpu8):
    try:
        res = dcnas.run_search(space, str(tmp_path / "run"), 3, _fn, latency=tpu8,
                               target_ms=2.0, references="efficientnet-b0")
    except dcnas.InputError as e:
        assert "references" in str(e)
    else:
        assert [r["model"] for r in res["references"]] == ["efficientnet-b0"]


def test_run_search_accepts_callable_objects(tmp_path, space):
    import functools

    partial = functools.partial(lambda e, bonus: 50.0 + e[1] + bonus, bonus=1.0)
    res = dcnas.run_search(space, str(tmp_path / "p"), 3, partial)
    assert res["evaluations"] == 3


def test_run_search_threads_do_not_change_the_journal(tmp_path, space, tpu8, surrogate_file):
    kw = dict(latency=tpu8, target_ms=2.0, seed=4, in_flight=4, **SEARCH_KW)
    for name, acc in (("s", "surrogate:" + surrogate_file), ("f", _fn)):
        dcnas.run_search(space, str(tmp_path / f"{name}1"), 24, acc, threads=1, **kw)
        dcnas.run_search(space, str(tmp_path / f"{name}3"), 24, acc, threads=3, **kw)
        assert (tmp_path / f"{name}1" / "journal.jsonl").read_bytes() == \
            (tmp_path / f"{name}3" / "journal.jsonl").read_bytes()


def test_run_search_from_tables_reproduces_the_points(tmp_path, space, tpu8):
    kw = dict(target_ms=2.0, seed=4, in_flight=2, references=[])
    first = dcnas.run_search(space, str(tmp_path / "sim"), 16, _fn, latency=tpu8, **kw)
    pts = first["points"]
    lat, acc = tmp_path / "lat.csv", tmp_path / "acc.csv"
    lat.write_text("encoding,latency_ms\n" +
                   "".join(f"{p['encoding']},{p['latency_ms']!r}\n" for p in pts))
    acc.write_text("encoding,accuracy\n" +
                   "".join(f"{p['encoding']},{p['accuracy']!r}\n" for p in pts))
    again = dcnas.run_search(space, str(tmp_path / "tab"), 16, f"table:{acc}",
                             latency=f"table:{lat}", **kw)
    assert again["points"] == pts
    assert again["config"]["latency"]["kind"] == "table"
    # One network fewer in the accuracy table: the search needs it and names it.
    short = tmp_path / "short.csv"
    short.write_text("encoding,accuracy\n" +
                     "".join(f"{p['encoding']},{p['accuracy']!r}\n" for p in pts[:-1]))
    with pytest.raises(dcnas.InputError, match=re.escape(pts[-1]["encoding"])):
        dcnas.run_search(space, str(tmp_path / "short"), 16, f"table:{short}",
                         latency=f"table:{lat}", **kw)


@pytest.mark.parametrize("kwargs", [{"target_ms": float("nan")},
                                    {"target_ms": 10.0, "w": float("nan")}])
def test_run_search_nan_is_named(tmp_path, space, tpu8, kwargs):
    with pytest.raises(dcnas.InputError, match="nan"):
        dcnas.run_search(space, str(tmp_path / "run"), 5, _fn, latency=tpu8, **kwargs)
