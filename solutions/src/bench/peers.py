#!/usr/bin/env python3
"""The peers of the matmul benchmarks, served to PeersByTurns so that they are measured in the same run, by turns.

Workloads (each set up, compiled and warmed up once, at the start):

- jax_allgather_matmul: the book's A[B_X, D_Y] . W[D, F_Y] -> Out[B_X, F_Y] on a 2 x 4 mesh (X, Y) of 8 simulated
  CPU devices, B x D x F = 1024 x 2048 x 8192, float32: jax.jit of `with_sharding_constraint(A, P('X', None)) @ W`
  with in_shardings P('X', 'Y'), P(None, 'Y') and out_shardings P('X', 'Y') -- the all-gather of A over Y, then
  one local matmul per device, as ShardedMatmulBench.allGatherThenMatmul does by hand.
- jax_collective_matmul: the same product as the book's collective matmul (seed 002, Problem 3.0): jax.jit of a
  shard_map in which A's chunks travel up the Y ring with lax.ppermute, one chunk matmul per step.
- numpy_matmul: c = a @ b for float32 a, b of side 1024 (OpenBLAS sgemm; threads as OPENBLAS_NUM_THREADS says,
  all cores when it is unset).

Usage: peers.py --serve WORKLOAD [WORKLOAD ...]

It prints one JSON line: {"ready": true, "versions": {...}, "workloads": {NAME: "ok" or an error}}. Then, for each
line "NAME N" read from stdin, it runs N calls of that workload (each to its block_until_ready) and prints their
times in seconds as a JSON list ({"error": ...} if the workload is not available); "quit" or end of input ends it.
For the JAX workloads run it with XLA_FLAGS=--xla_force_host_platform_device_count=8 and JAX_PLATFORMS=cpu.
"""
import json
import os
import platform
import sys
import time

B, D, F = 1024, 2048, 8192
N_LOCAL = 1024
WARMUP = 3


def numpy_matmul():
    import numpy as np
    rng = np.random.default_rng(N_LOCAL)
    a = rng.uniform(-1, 1, (N_LOCAL, N_LOCAL)).astype(np.float32)
    b = rng.uniform(-1, 1, (N_LOCAL, N_LOCAL)).astype(np.float32)
    return lambda: a @ b


def _jax_book():
    import jax
    import numpy as np
    from jax.sharding import AxisType, NamedSharding, PartitionSpec as P
    if len(jax.devices()) < 8:
        raise RuntimeError("JAX sees %d devices, needs 8 (XLA_FLAGS=--xla_force_host_platform_device_count=8)"
                           % len(jax.devices()))
    mesh = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Auto, AxisType.Auto))
    rng = np.random.default_rng(4)
    a = jax.device_put(rng.uniform(-1, 1, (B, D)).astype(np.float32), NamedSharding(mesh, P("X", "Y")))
    w = jax.device_put(rng.uniform(-1, 1, (D, F)).astype(np.float32), NamedSharding(mesh, P(None, "Y")))
    return jax, mesh, a, w


def jax_allgather_matmul():
    jax, mesh, a, w = _jax_book()
    from jax.sharding import NamedSharding, PartitionSpec as P

    @jax.jit
    def matmul(x, v):
        x = jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P("X", None)))
        return jax.lax.with_sharding_constraint(x @ v, NamedSharding(mesh, P("X", "Y")))

    return lambda: jax.block_until_ready(matmul(a, w))


def jax_collective_matmul():
    jax, mesh, a, w = _jax_book()
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P
    shard_map = getattr(jax, "shard_map", None)
    if shard_map is None:
        from jax.experimental.shard_map import shard_map

    def block(x, v):  # x [B/X, D/Y] (chunk y of D), v [D, F/Y]
        n = jax.lax.axis_size("Y")
        y = jax.lax.axis_index("Y")
        chunk = x.shape[1]
        up = [(s, (s + 1) % n) for s in range(n)]
        acc = x @ jax.lax.dynamic_slice_in_dim(v, y * chunk, chunk, 0)
        cur = x
        for k in range(1, n):
            cur = jax.lax.ppermute(cur, "Y", up)
            c = jnp.mod(y - k, n)
            acc = acc + cur @ jax.lax.dynamic_slice_in_dim(v, c * chunk, chunk, 0)
        return acc

    matmul = jax.jit(shard_map(block, mesh=mesh, in_specs=(P("X", "Y"), P(None, "Y")), out_specs=P("X", "Y")))
    return lambda: jax.block_until_ready(matmul(a, w))


WORKLOADS = {"numpy_matmul": numpy_matmul, "jax_allgather_matmul": jax_allgather_matmul,
             "jax_collective_matmul": jax_collective_matmul}


def versions():
    out = {"python": platform.python_version(),
           "env": {k: os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "XLA_FLAGS", "JAX_PLATFORMS")}}
    try:
        import numpy
        out["numpy"] = numpy.__version__
        try:
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            from numpy_reference import openblas_info
            out["openblas"] = openblas_info()
        except Exception as e:  # the kernel's name is a nicety
            out["openblas"] = {"error": str(e)}
    except Exception:
        pass
    try:
        import jax
        out["jax"] = jax.__version__
        out["devices"] = len(jax.devices())
    except Exception:
        pass
    return out


def main(argv):
    if len(argv) < 3 or argv[1] != "--serve":
        print(__doc__)
        return 2
    calls, status = {}, {}
    for name in argv[2:]:
        try:
            fn = WORKLOADS[name]()
            for _ in range(WARMUP):  # the compile and the first calls
                fn()
            calls[name] = fn
            status[name] = "ok"
        except Exception as e:  # no JAX or numpy, too few devices: a note in the report, not a failure
            status[name] = "%s: %s" % (type(e).__name__, e)
    print(json.dumps({"ready": True, "versions": versions(), "workloads": status}), flush=True)
    for line in sys.stdin:
        parts = line.split()
        if not parts or parts[0] == "quit":
            break
        fn = calls.get(parts[0])
        if fn is None:
            print(json.dumps({"error": status.get(parts[0], "unknown workload " + parts[0])}), flush=True)
            continue
        times = []
        for _ in range(int(parts[1])):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        print(json.dumps(times), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
