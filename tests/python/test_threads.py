"""Threads sharing one object (python/README.md: calls release the GIL, and objects with a cache
or a booster lock themselves, so threads may share them). Each case runs in a child interpreter,
so that a crash fails the case instead of the whole suite."""
import os
import subprocess
import sys
import textwrap

import pytest

import dcnas

PRELUDE = textwrap.dedent("""
    import sys, threading
    import dcnas
    space = dcnas.Space.load("dc-accelerator")
    setup = dcnas.Setup("tpu-v3", batch=8)
    rng = dcnas.Rng(1)
    encodings = [space.sample(rng) for _ in range(COUNT)]

    def in_threads(fn, items, expected, threads=4):
        results = {}

        def work(k):
            order = items if k % 2 == 0 else items[::-1]
            out = [fn(x) for x in order]
            results[k] = out if k % 2 == 0 else out[::-1]

        ts = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        bad = [k for k in range(threads) if results.get(k) != expected]
        print("threads with other results:", bad)
        sys.exit(1 if bad else 0)
""")

CASES = {
    "SimLatency": """
        expected = [dcnas.SimLatency(space, setup).latency_ms(e) for e in encodings]
        shared = dcnas.SimLatency(space, setup)
        in_threads(shared.latency_ms, encodings, expected)
    """,
    "Simulator": """
        graphs = [space.build_full(e, batch=8, dtype="bf16") for e in encodings[:60]]
        expected = [dcnas.simulate(g, setup, details=False).latency_s for g in graphs]
        shared = dcnas.Simulator(setup)
        in_threads(lambda g: shared.simulate(g, details=False).latency_s, graphs, expected)
    """,
    "Surrogate": """
        path = sys.argv[1]
        expected = [float(m) for m in dcnas.Surrogate.load(path).predict(encodings)[0]]
        shared = dcnas.Surrogate.load(path)
        in_threads(lambda e: float(shared.predict([e])[0][0]), encodings, expected)
    """,
    "SearchAccuracy": """
        spec = "surrogate:" + sys.argv[1]
        one = dcnas.SearchAccuracy(spec, space, min_surrogate_tau=0.3)
        expected = [one.accuracy(e) for e in encodings]
        shared = dcnas.SearchAccuracy(spec, space, min_surrogate_tau=0.3)
        in_threads(shared.accuracy, encodings, expected)
    """,
}


@pytest.mark.parametrize("name", list(CASES))
def test_threads_share_one_object(name, surrogate_file):
    if name in ("Surrogate", "SearchAccuracy") and not hasattr(dcnas.Surrogate, "predict"):
        pytest.skip("built without XGBoost")
    count = 60 if name == "Simulator" else 300
    code = PRELUDE.replace("COUNT", str(count)) + textwrap.dedent(CASES[name])
    env = dict(os.environ)
    module_dir = os.path.dirname(dcnas.__file__)
    env["PYTHONPATH"] = os.pathsep.join([module_dir, env.get("PYTHONPATH", "")])
    p = subprocess.run([sys.executable, "-c", code, surrogate_file], env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, f"exit {p.returncode}: {p.stdout}{p.stderr[-2000:]}"
