# Seed 002's two matmuls with with_sharding_constraint between them (Tour06AutomaticParallelism), on 4x2 Auto axes
# named as the constraint names them ('x', 'y'; the seed's mesh says 'X', 'Y', which that P would not find).
# Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python seed002_sharding_constraint.py
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P, AxisType

mesh = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto, AxisType.Auto))
B, D, F = 8, 16, 32
x = jax.device_put(jnp.arange(B * D, dtype=jnp.float32).reshape(B, D) / 100, NamedSharding(mesh, P('x', None)))
Win = jax.device_put(jnp.sin(jnp.arange(D * F, dtype=jnp.float32)).reshape(D, F), NamedSharding(mesh, P()))
Wout = jax.device_put(jnp.cos(jnp.arange(D * F, dtype=jnp.float32)).reshape(D, F), NamedSharding(mesh, P()))

def matmul(x, Win, Wout):
  hidden = jnp.einsum('bd,df->bf', x, Win)
  hidden = jax.lax.with_sharding_constraint(hidden, NamedSharding(mesh, P('x', 'y')))
  return jnp.einsum('bf,df->bd', hidden, Wout)

def matmul_free(x, Win, Wout):
  hidden = jnp.einsum('bd,df->bf', x, Win)
  return jnp.einsum('bf,df->bd', hidden, Wout)

for name, f in (("without the constraint", matmul_free), ("with the constraint P('x', 'y')", matmul)):
  j = jax.jit(f)
  out = j(x, Win, Wout)
  print(name, "output sharding", out.sharding.spec, "sum", float(out.sum()))
  for l in j.lower(x, Win, Wout).compile().as_text().splitlines():
    if any(k in l for k in ("all-reduce(", "all-gather(", "reduce-scatter(", "all-to-all(", "collective-permute(", "dot(")):
      print("  ", l.strip()[:160])
