"""Measures per-chip matmul steps on the accelerator JAX sees, in the form the course's hardware models are held to.

One step maps A[m, K] -> [m, K]: `chunks` matmuls A[:, K_i] . W[K_i, :] with W[K, K] split along K into equal
chunks, summed, then x 0.01 and cast back to the dtype. A program is `steps` such steps chained (each step's output
is the next one's input) and unrolled inside one jax.jit, so that dispatch is amortised; the figure is the median
of `reps` calls divided by `steps`. float32 runs at JAX's default matmul precision (TF32 on an H100).

Usage (needs JAX with an accelerator; about 5 minutes for the default grid on an H100):
    PYTHONUNBUFFERED=1 python3 measure_matmuls.py OUT.json [ROWS.json] [--budget-s 300]
ROWS.json is a JSON array of {"dtype": "bfloat16" | "float32", "m": 512, "K": 2048, "chunks": 4} (the input of
`exec:java@model-matmuls`); without it the built-in grid runs. OUT.json is rewritten after every row: an object
with the chip, JAX version, date and method, and "rows": the input rows with "measured_us" and "best_us" added.
Rows not reached before the budget are left out (the output says how many).
"""
import datetime
import json
import random
import sys
import time

import jax
import jax.numpy as jnp
from jax import lax

DTYPES = {"bfloat16": jnp.bfloat16, "float32": jnp.float32}


def grid():
    """The issue's rows first, then a shuffled grid over m, K, chunks and dtype (fixed seed)."""
    first = [("bfloat16", 512, 2048, 1), ("bfloat16", 512, 2048, 4), ("bfloat16", 512, 2048, 8),
             ("bfloat16", 8192, 8192, 1)]
    rest = []
    for dt in ("bfloat16", "float32"):
        for m in (128, 256, 512, 1024, 2048, 4096):
            for k in (1024, 2048, 4096, 8192):
                for c in (1, 2, 4, 8, 16):
                    if k // c >= 128 and (dt == "bfloat16" or m in (256, 1024, 4096)):
                        rest.append((dt, m, k, c))
    rest += [("bfloat16", 384, 3072, 3), ("bfloat16", 1000, 2000, 5), ("bfloat16", 640, 1536, 6),
             ("bfloat16", 8192, 4096, 2), ("bfloat16", 64, 2048, 4), ("bfloat16", 32, 4096, 1),
             ("bfloat16", 3072, 6144, 3), ("float32", 512, 2048, 4), ("float32", 8192, 8192, 1)]
    random.Random(36).shuffle(rest)
    seen, rows = set(), []
    for r in first + rest:
        if r not in seen:
            seen.add(r)
            rows.append({"dtype": r[0], "m": r[1], "K": r[2], "chunks": r[3]})
    return rows


def program(k, chunks, steps):
    w = k // chunks

    def step(a, wt):
        acc = None
        for i in range(chunks):
            p = a[:, w * i:w * (i + 1)] @ wt[w * i:w * (i + 1), :]
            acc = p if acc is None else acc + p
        return (acc * 0.01).astype(a.dtype)

    def run(a, wt):
        return lax.fori_loop(0, steps, lambda i, x: step(x, wt), a, unroll=True)

    return jax.jit(run)


def measure(row, reps):
    dt = DTYPES[row["dtype"]]
    m, k, c = row["m"], row["K"], row["chunks"]
    flops = 2 * m * k * k
    # 50 steps as in the method; fewer for big steps (dispatch is then negligible) and many chunks (compile time).
    steps = 50 if flops * 50 < 2e13 else 10
    if c >= 16:
        steps = min(steps, 20)
    key = jax.random.key(0)
    a = jax.random.normal(key, (m, k), dt)
    wt = jax.random.normal(jax.random.fold_in(key, 1), (k, k), dt)
    f = program(k, c, steps)
    t0 = time.perf_counter()
    jax.block_until_ready(f(a, wt))
    compile_s = time.perf_counter() - t0
    for _ in range(3):
        jax.block_until_ready(f(a, wt))
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        jax.block_until_ready(f(a, wt))
        ts.append(time.perf_counter() - t)
    ts.sort()
    return dict(row, measured_us=ts[len(ts) // 2] / steps * 1e6, best_us=ts[0] / steps * 1e6, steps=steps,
                compile_s=round(compile_s, 2))


def main(argv):
    out = argv[1]
    budget = 300.0
    if "--budget-s" in argv:
        budget = float(argv[argv.index("--budget-s") + 1])
    args = [a for i, a in enumerate(argv[2:], 2) if not a.startswith("--") and argv[i - 1] != "--budget-s"]
    rows = json.load(open(args[0])) if args else grid()
    reps = 20
    dev = jax.devices()[0]
    doc = {"device_kind": dev.device_kind, "platform": dev.platform, "jax": jax.__version__,
           "date": datetime.date.today().isoformat(),
           "method": "one step maps A[m,K] -> [m,K]: chunks matmuls A[:,K_i].W[K_i,:] (W[K,K] split along K), summed,"
                     " x0.01, cast back; steps chained and unrolled in one jax.jit; median of 20 calls / steps;"
                     " float32 at JAX's default precision",
           "rows": [], "rows_not_reached": 0}
    start = time.perf_counter()
    for n, row in enumerate(rows):
        if time.perf_counter() - start > budget:
            doc["rows_not_reached"] = len(rows) - n
            break
        try:
            r = measure(row, reps)
        except Exception as e:  # one bad row must not lose the others
            r = dict(row, error=repr(e)[:300])
        doc["rows"].append(r)
        print(json.dumps(r), flush=True)
        with open(out, "w") as f:
            json.dump(doc, f, indent=1)
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
    print(f"{len(doc['rows'])} rows, {doc['rows_not_reached']} not reached, {time.perf_counter() - start:.0f} s",
          flush=True)


if __name__ == "__main__":
    main(sys.argv)
