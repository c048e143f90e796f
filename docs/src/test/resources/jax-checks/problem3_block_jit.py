# Part 3.3's transformer block compiled by jax.jit (the seed's baseline for the collective matmuls), on the book's
# 2 x 4 mesh, B, D, F = 64, 128, 256 (docs/problem-3.md, "jax.jit's program for the block").
# Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python problem3_block_jit.py
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P, AxisType

mesh = jax.make_mesh((2, 4), ('X', 'Y'), axis_types=(AxisType.Auto, AxisType.Auto))
B, D, F = 64, 128, 256
x = jax.device_put(jnp.ones((B, D), jnp.float32), NamedSharding(mesh, P('X', 'Y')))
win = jax.device_put(jnp.ones((D, F), jnp.float32), NamedSharding(mesh, P(None, 'Y')))
wout = jax.device_put(jnp.ones((F, D), jnp.float32), NamedSharding(mesh, P('Y', None)))

def block(x, win, wout):
  return jax.nn.gelu(x @ win) @ wout

f = jax.jit(block, out_shardings=NamedSharding(mesh, P('X', 'Y')))
for l in f.lower(x, win, wout).compile().as_text().splitlines():
  if any(k in l for k in ("all-gather(", "all-reduce(", "reduce-scatter(", "all-to-all(", "collective-permute(", " dot(")):
    print(l.strip()[:190])
