# Part 1.2b's alternative program (roll in the [X, S/X, D] view, subtract there, reshape back) on mesh X=1, Y=2 with
# A f32[1, 2]: XLA's compiled program has no collective. Pinned by
# framework/src/test/java/dev/shardlings/jit/SizeOneReshapeTest.java.
# Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python size_one_reshape.py
import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

KINDS = ('all-reduce(', 'all-gather(', 'collective-permute(', 'all-to-all(', 'reduce-scatter(')
for x, y, s, d in [(1, 2, 1, 2), (1, 2, 1, 4), (1, 2, 2, 4)]:
    mesh = jax.make_mesh((x, y), ('X', 'Y'), axis_types=(AxisType.Auto,) * 2)
    a = jax.device_put(jnp.arange(s * d, dtype=jnp.float32).reshape(s, d), NamedSharding(mesh, P('X', 'Y')))

    def f(v):
        v3 = v.reshape(x, s // x, d)
        return (jnp.roll(v3, 1, axis=1) - v3).reshape(s, d)

    text = jax.jit(f, out_shardings=NamedSharding(mesh, P('X', 'Y'))).lower(a).compile().as_text()
    found = [l.strip() for l in text.splitlines() if any(k in l for k in KINDS)]
    print(f'X={x} Y={y} A f32[{s},{d}]: collectives {found}')
