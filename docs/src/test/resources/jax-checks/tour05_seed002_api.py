# Tour05ShardMapBasics' seed 002 section: the seed's API as written (jax.set_mesh, creation with out_sharding,
# jit with out_shardings / in_shardings, shard_map over the mesh in context), as JAX 0.10.2 prints it.
# Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python tour05_seed002_api.py
import jax, jax.numpy as jnp, numpy as np
import jax.sharding as shd
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh(axis_shapes=(2, 2), axis_names=('X', 'Y'))
shd.set_mesh(mesh)
In = jnp.zeros((8, 2048), dtype=jnp.float32, out_sharding=P('X', 'Y'))
W = jnp.zeros((2048, 8192), dtype=jnp.float32, out_sharding=P('Y', None))
print("In", jax.typeof(In), In.sharding.spec, "W", jax.typeof(W), W.sharding.spec)


def matmul_square(In, W):
    return jnp.einsum('bd,df->bf', jnp.square(In), W)


try:
    jax.jit(matmul_square, out_shardings=P('X', None)).lower(In, W).compile()
except Exception as e:
    print(type(e).__name__ + ":", str(e).split("\n--------")[0])

add = jax.jit(lambda a, b: a + b, in_shardings=(P('X', None), P(None, 'Y')))
shd.set_mesh(None)
a = np.arange(16, dtype=np.float32).reshape(4, 4)
with jax.set_mesh(mesh):
    out = add(a, a)
    print("in_shardings:", out.sharding.spec, jax.typeof(out))
    print(out)

shd.set_mesh(jax.make_mesh(axis_shapes=(2, 4), axis_names=('x', 'y')))
try:
    jnp.arange(0, 512, dtype=jnp.int32, device=P(('x', 'y')))  # as the seed writes it
except Exception as e:
    print("arange(device=P(...)):", type(e).__name__ + ":", e)
x = jax.device_put(jnp.arange(0, 512, dtype=jnp.int32), P(('x', 'y')))  # the seed's footnote's other way
print("x", jax.typeof(x), x.sharding.spec)


def slice_and_average(x):
    assert x.shape == (512 // 8,)
    return jax.lax.pmean(x[:4], axis_name=('x', 'y'))


out = jax.shard_map(slice_and_average, mesh=shd.get_abstract_mesh(), in_specs=P(('x', 'y')),
                    out_specs=P(None,))(x)
assert out.shape == (4,)
print("out", jax.typeof(out), out.sharding.spec, out)
