#!/usr/bin/env python3
"""The numpy/OpenBLAS reference for LocalMatmulBench, measured in the same benchmark run.

Times c = a @ b for float32 square matrices of the given sides, the way JMH times the Java kernel: a warm-up,
then several iterations of about one second; the score of a side is the mean time per call over the
iterations. Writes JSON (sizes, GFLOP/s, numpy and OpenBLAS versions, the OpenBLAS kernel in use and its thread
count) to the output file.

Usage: numpy_reference.py OUTPUT.json N [N ...]

Run it with OPENBLAS_NUM_THREADS=1 for the one-thread comparison, and without OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE: some machines set them to work around old OpenBLAS bugs, and they make a current numpy pick
a slower kernel. The JSON records the kernel OpenBLAS chose, so a run that got it wrong shows it.
"""
import ctypes
import glob
import json
import os
import platform
import sys
import time

import numpy as np


def openblas_info():
    """The OpenBLAS that numpy loaded: its configuration, kernel (core) name and thread count, if it says."""
    here = os.path.dirname(np.__file__)
    candidates = glob.glob(os.path.join(os.path.dirname(here), "numpy.libs", "*openblas*.so*"))
    candidates += glob.glob(os.path.join(os.path.dirname(here), "scipy_openblas*", "lib", "*.so*"))
    for path in candidates:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        info = {"library": os.path.basename(path)}
        for key, names in (("config", ("scipy_openblas_get_config64_", "openblas_get_config64_",
                                       "openblas_get_config")),
                           ("corename", ("scipy_openblas_get_corename64_", "openblas_get_corename64_",
                                         "openblas_get_corename"))):
            for name in names:
                fn = getattr(lib, name, None)
                if fn is not None:
                    fn.restype = ctypes.c_char_p
                    info[key] = fn().decode()
                    break
        for name in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_",
                     "openblas_get_num_threads"):
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.restype = ctypes.c_int
                info["threads"] = fn()
                break
        return info
    return {"library": "not found"}


def time_matmul(n, warmup_s=2.0, iterations=5, iteration_s=1.0):
    rng = np.random.default_rng(n)
    a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    end = time.perf_counter() + warmup_s
    while time.perf_counter() < end:
        a @ b
    means = []
    for _ in range(iterations):
        calls = 0
        start = time.perf_counter()
        while True:
            a @ b
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= iteration_s:
                break
        means.append(elapsed / calls)
    mean = sum(means) / len(means)
    return {"n": n, "seconds_per_call": mean, "gflops": 2.0 * n ** 3 / mean / 1e9,
            "iteration_seconds_per_call": means}


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    out = argv[1]
    sizes = [int(s) for s in argv[2:]]
    result = {
        "numpy": np.__version__,
        "python": platform.python_version(),
        "openblas": openblas_info(),
        "env": {k: os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")},
        "matmul": [time_matmul(n) for n in sizes],
    }
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump(result, f, indent=2)
    for m in result["matmul"]:
        print("numpy f32 matmul n=%d: %.1f GFLOP/s" % (m["n"], m["gflops"]))
    print("OpenBLAS:", result["openblas"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
