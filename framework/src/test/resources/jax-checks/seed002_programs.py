# XLA's per-device programs for seed 002's jitted programs (intro matmul_square, the collective-matmul baseline
# matmul, Problem 1's average_jit and shift_jit), at the seed's sizes in float32 (Auto axes).
# Pinned by framework/src/test/java/dev/shardlings/jit/XlaMatmulPlansTest.java.
# Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python seed002_programs.py
import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

KINDS = ('all-reduce(', 'all-gather(', 'collective-permute(', 'all-to-all(', 'reduce-scatter(')


def show(name, mesh, f, out, *args):
    text = jax.jit(f, out_shardings=NamedSharding(mesh, out)).lower(*args).compile().as_text()
    print('=====', name)
    for line in text.splitlines():
        if any(k in line for k in KINDS) and 'ENTRY' not in line:
            print('   ', line.strip().split(', metadata')[0])


def put(mesh, shape, spec, dtype=jnp.float32):
    n = 1
    for s in shape:
        n *= s
    return jax.device_put((jnp.arange(n) % 7).astype(dtype).reshape(shape), NamedSharding(mesh, spec))


m22 = jax.make_mesh((2, 2), ('X', 'Y'), axis_types=(AxisType.Auto,) * 2)
show('intro matmul_square', m22, lambda a, w: jnp.einsum('bd,df->bf', jnp.square(a), w), P('X', None),
     put(m22, (8, 2048), P('X', 'Y')), put(m22, (2048, 8192), P('Y', None)))
m24 = jax.make_mesh((2, 4), ('X', 'Y'), axis_types=(AxisType.Auto,) * 2)
show('collective matmul baseline', m24, lambda a, w: a @ w, P('X', 'Y'),
     put(m24, (1024, 2048), P('X', 'Y')), put(m24, (2048, 8192), P(None, 'Y')))
m42 = jax.make_mesh((4, 2), ('X', 'Y'), axis_types=(AxisType.Auto,) * 2)
x = put(m42, (8 * 64, 8), P('X', 'Y'), jnp.int32)
show('problem 1 average_jit', m42, lambda v: v.reshape(4, v.shape[0] // 4, 2, v.shape[1] // 2).mean(axis=(1, 3)),
     P('X', 'Y'), x)
show('problem 1 shift_jit', m42,
     lambda v: jnp.roll(v.reshape(4, v.shape[0] // 4, -1), 5, axis=1).reshape(v.shape[0], v.shape[1]), P('X', 'Y'), x)
