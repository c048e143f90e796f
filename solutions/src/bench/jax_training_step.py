#!/usr/bin/env python3
"""The JAX reference for TrainingBench, measured in the same benchmark run.

One data-parallel SGD step of seed 001's MLP (the notebook "Distributed arrays and automatic parallelization"):
layer sizes [784, 1024, 1024, 1024, 10], batch 1024, jax.random.key(0), on 8 simulated CPU devices (mesh
'batch' = 8, Auto axes; parameters replicated P(), inputs and targets P('batch')). The step is one jitted
program, jax.jit of (grad of the loss, then p - lr * g with lr = 1e-5), fed its own output as in training. After
a warm-up (the compile and a few steps), each step is timed to its block_until_ready; the score is the median.

Usage: jax_training_step.py OUTPUT.json [STEPS]
       jax_training_step.py --serve

Run it with XLA_FLAGS=--xla_force_host_platform_device_count=8 and JAX_PLATFORMS=cpu. Without JAX (or with
fewer than 8 devices) it writes {"error": ...} and exits 1, and the report says the reference is missing.

--serve is for TrainingVersusJax, which alternates JAX's steps with ours so that both see the same load: after the
compile and the warm-up it prints one JSON line ({"ready": true, "jax": ..., ...}, or {"error": ...}), then for
each line N read from stdin runs N steps and prints their times in seconds as a JSON list; "quit" (or end of
input) ends it.
"""
import json
import os
import platform
import statistics
import sys
import time

SIZES = [784, 1024, 1024, 1024, 10]
BATCH = 1024
LR = 1e-5


def init_model(key, layer_sizes, batch_size):
    import jax
    import jax.numpy as jnp
    key, *keys = jax.random.split(key, len(layer_sizes))
    params = []
    for n_in, n_out, k in zip(layer_sizes[:-1], layer_sizes[1:], keys):
        kw, kb = jax.random.split(k)
        params.append((jax.random.normal(kw, (n_in, n_out)) / jnp.sqrt(n_in), jax.random.normal(kb, (n_out,))))
    key, *keys = jax.random.split(key, 3)
    inputs = jax.random.normal(keys[0], (batch_size, layer_sizes[0]))
    targets = jax.random.normal(keys[1], (batch_size, layer_sizes[-1]))
    return params, (inputs, targets)


def setup():
    """JAX, the jitted step, and the placed parameters and batch; or {"error": ...} when JAX cannot run it."""
    try:
        import jax
        import jax.numpy as jnp
        from jax.sharding import AxisType, NamedSharding, PartitionSpec as P
    except Exception as e:  # no JAX: a note, not a failure of the run
        return {"error": "JAX not importable by %s: %s" % (sys.executable, e)}
    if len(jax.devices()) < 8:
        return {"error": "JAX sees %d devices, needs 8 (XLA_FLAGS=--xla_force_host_platform_device_count=8)"
                         % len(jax.devices())}

    def predict(params, inputs):
        outputs = None
        for w, b in params:
            outputs = jnp.dot(inputs, w) + b
            inputs = jnp.maximum(outputs, 0)
        return outputs

    def loss(params, batch):
        inputs, targets = batch
        predictions = predict(params, inputs)
        return jnp.mean(jnp.sum((predictions - targets) ** 2, axis=-1))

    @jax.jit
    def step(params, batch):
        grads = jax.grad(loss)(params, batch)
        return [(w - LR * dw, b - LR * db) for (w, b), (dw, db) in zip(params, grads)]

    mesh = jax.make_mesh((8,), ("batch",), axis_types=(AxisType.Auto,))
    params, batch = init_model(jax.random.key(0), SIZES, BATCH)
    params = jax.device_put(params, NamedSharding(mesh, P()))
    batch = jax.device_put(batch, NamedSharding(mesh, P("batch")))

    t0 = time.perf_counter()
    lowered = step.lower(params, batch)
    trace_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    lowered.compile()
    compile_s = time.perf_counter() - t0
    return {"jax": jax, "step": step, "loss": loss, "params": params, "batch": batch, "trace_seconds": trace_s,
            "compile_seconds": compile_s}


def timed_steps(s, n):
    """Runs n steps (each fed the last one's parameters) and returns each one's time to block_until_ready."""
    jax = s["jax"]
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        s["params"] = s["step"](s["params"], s["batch"])
        jax.block_until_ready(s["params"])
        times.append(time.perf_counter() - t0)
    return times


def serve():
    s = setup()
    if "error" in s:
        print(json.dumps(s), flush=True)
        return 1
    timed_steps(s, 3)  # warm-up
    print(json.dumps({"ready": True, "jax": s["jax"].__version__, "python": platform.python_version(),
                      "devices": len(s["jax"].devices()), "trace_seconds": s["trace_seconds"],
                      "compile_seconds": s["compile_seconds"]}), flush=True)
    for line in sys.stdin:
        line = line.strip()
        if not line or line == "quit":
            break
        print(json.dumps(timed_steps(s, int(line))), flush=True)
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--serve":
        return serve()
    if len(argv) < 2:
        print(__doc__)
        return 2
    out = argv[1]
    steps = int(argv[2]) if len(argv) > 2 else 20
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    s = setup()
    if "error" in s:
        with open(out, "w") as f:
            json.dump(s, f)
        print("JAX reference not measured:", s["error"])
        return 1
    jax = s["jax"]
    step, loss, params, batch = s["step"], s["loss"], s["params"], s["batch"]
    trace_s, compile_s = s["trace_seconds"], s["compile_seconds"]

    loss_before = float(jax.jit(loss)(params, batch))
    for _ in range(3):  # warm-up: the compile and the first steps
        params = step(params, batch)
    jax.block_until_ready(params)
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        params = step(params, batch)
        jax.block_until_ready(params)
        times.append(time.perf_counter() - t0)
    median = statistics.median(times)
    flops = 3 * 2 * BATCH * sum(a * b for a, b in zip(SIZES[:-1], SIZES[1:]))
    result = {
        "jax": jax.__version__,
        "python": platform.python_version(),
        "devices": len(jax.devices()),
        "sizes": SIZES,
        "batch": BATCH,
        "lr": LR,
        "steps_timed": steps,
        "step_seconds_median": median,
        "step_seconds": times,
        "step_gflops": flops / median / 1e9,
        "trace_seconds": trace_s,
        "compile_seconds": compile_s,
        "loss_before": loss_before,
        "loss_after": float(jax.jit(loss)(params, batch)),
        "steps_taken": 3 + steps,
        "env": {k: os.environ.get(k) for k in ("XLA_FLAGS", "JAX_PLATFORMS")},
    }
    with open(out, "w") as f:
        json.dump(result, f, indent=2)
    print("JAX %s training step (8 devices): median %.1f ms over %d steps, %.1f GFLOP/s; lower %.0f ms, compile %.0f ms"
          % (jax.__version__, median * 1e3, steps, result["step_gflops"], trace_s * 1e3, compile_s * 1e3))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
