"""Measures the whole programs of the H100 table (the fixture h100-2026-11-27-table.json, "programs"): seed 001's
MLP training step per device, as 8-way data parallelism and as 4 x 2 data x tensor parallelism leave it to one
device (collectives left out), and streaming 1 GiB through one elementwise kernel.

Usage (needs JAX with an accelerator; about a minute):  PYTHONUNBUFFERED=1 python3 measure_programs.py OUT.json
Each program is one jax.jit call (milliseconds: dispatch does not matter), median of 10 calls after 3 warm-ups.
float32 matmuls run at JAX's default precision (TF32 on an H100).
"""
import datetime
import json
import sys
import time

import jax
import jax.numpy as jnp


def median_us(f, *args, reps=10):
    jax.block_until_ready(f(*args))
    for _ in range(3):
        jax.block_until_ready(f(*args))
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        jax.block_until_ready(f(*args))
        ts.append(time.perf_counter() - t)
    return sorted(ts)[len(ts) // 2] * 1e6


def mlp_step(params, x, t):
    def loss(ps):
        h = x
        for i, (w, b) in enumerate(ps):
            h = h @ w + b
            if i < len(ps) - 1:
                h = jnp.maximum(h, 0)
        return jnp.mean(jnp.sum((h - t) ** 2, axis=-1))
    grads = jax.grad(loss)(params)
    return [(w - 1e-5 * gw, b - 1e-5 * gb) for (w, b), (gw, gb) in zip(params, grads)]


def mlp(shapes, batch):
    key = jax.random.key(1)
    ks = jax.random.split(key, len(shapes) + 2)
    ps = [(jax.random.normal(k, s) / jnp.sqrt(s[0]), jnp.zeros((s[1],))) for k, s in zip(ks, shapes)]
    x = jax.random.normal(ks[-2], (batch, shapes[0][0]))
    t = jax.random.normal(ks[-1], (batch, shapes[-1][1]))
    return median_us(jax.jit(mlp_step), ps, x, t)


def main(out):
    dev = jax.devices()[0]
    rows = [
        {"program": "seed-001-mlp-step", "variant": "8-way-data-parallel",
         "measured_us": mlp([(784, 8192), (8192, 8192), (8192, 8192), (8192, 10)], 1024)},
        {"program": "seed-001-mlp-step", "variant": "4x2-data-tensor-parallel",
         "measured_us": mlp([(784, 8192), (8192, 4096), (4096, 8192), (8192, 10)], 2048)},
    ]
    v = jnp.ones((256 * 1024 * 1024,), jnp.float32)
    rows.append({"program": "stream", "variant": "x * 1.5 + 1 over float32[268435456]",
                 "measured_us": median_us(jax.jit(lambda a: a * 1.5 + 1.0), v)})
    doc = {"device_kind": dev.device_kind, "platform": dev.platform, "jax": jax.__version__,
           "date": datetime.date.today().isoformat(), "programs": rows}
    for r in rows:
        print(json.dumps(r), flush=True)
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
