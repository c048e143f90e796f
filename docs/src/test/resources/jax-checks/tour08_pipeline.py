# The JAX side of Tour08Pipeline (docs/src/main/java/dev/shardlings/tours/Tour08Pipeline.java): the same stack, the
# same neighbour ppermute and the same gradient, printed as JAX 0.10.2 prints them on CPU.
# Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python tour08_pipeline.py
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

L, D, M, B = 4, 4, 4, 2
W = jnp.asarray((np.arange(L * D * D) % 5 - 2) / 2, dtype=jnp.float32).reshape(L, D, D)
X = jnp.asarray((np.arange(M * B * D) % 5 - 2) / 4, dtype=jnp.float32).reshape(M, B, D)
T = jnp.asarray((np.arange(M * B * D) % 3 - 1) / 2, dtype=jnp.float32).reshape(M, B, D)
mesh = jax.make_mesh((4,), ('stage',), axis_types=(jax.sharding.AxisType.Auto,), devices=jax.devices()[:4])
print("Mesh('stage': 4); W f32[4, 4, 4] laid out P('stage'): each stage holds", W[:1].shape)


def up(a):
    return jax.lax.ppermute(a, 'stage', [(0, 1), (1, 2), (2, 3)])


def down(a):
    return jax.lax.ppermute(a, 'stage', [(1, 0), (2, 1), (3, 2)])


idx = jnp.arange(4, dtype=jnp.int32)
print("ppermute of arange(4) one stage up, pairs (s, s + 1):",
      jax.shard_map(up, mesh=mesh, in_specs=P('stage'), out_specs=P('stage'))(idx))
print("ppermute of arange(4) one stage down, pairs (s + 1, s):",
      jax.shard_map(down, mesh=mesh, in_specs=P('stage'), out_specs=P('stage'))(idx))


def loss(w, x, t):
    a = x.reshape(M * B, D)
    for l in range(L):
        a = jax.nn.relu(a @ w[l])
    return 0.5 * jnp.sum((a - t.reshape(M * B, D)) ** 2) / (M * B)


value, dw = jax.value_and_grad(loss)(W, X, T)
print("loss (mean over the M·b rows of ½‖y − t‖²):", value)
print("dW[3] (the last stage's layer):")
print(dw[3])
print("dW[0] (the first stage's layer):")
print(dw[0])
