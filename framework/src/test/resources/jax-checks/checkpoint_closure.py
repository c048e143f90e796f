# jax.checkpoint of a closure, as JAX 0.10.2 computes it on CPU: the layer's weight is captured, not passed
# (jax.checkpoint(lambda h: relu(h @ w))), and JAX closure-converts it into an input of the checkpoint, so its
# cotangent flows back through the recomputation. The same two-layer MLP and values as checkpoint.py: the loss and
# gradients equal those printed there (CheckpointTest pins them for Checkpoint.checkpoint of a closure). Also the
# first layer, whose argument x is not differentiated: the block is still rematerialised and W1 gets its gradient.
# print_saved_residuals shows that only the blocks' inputs are saved. Run with
#   XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python checkpoint_closure.py
import jax
import jax.numpy as jnp
import numpy as np
from jax.ad_checkpoint import print_saved_residuals
from jax.sharding import PartitionSpec as P

B, D = 8, 3


def values(a, b, rows, cols):
    # multiples of 1/16 in [-1/2, 1/2], the same formula as the Java test
    return np.array([[((a * i + b * j) % 17 - 8) / 16 for j in range(cols)] for i in range(rows)], np.float32)


x, t = values(7, 3, B, D), values(5, 11, B, D)
w1, w2 = values(3, 13, D, D), values(11, 5, D, D)


def loss(ws, x, t):
    h = x
    for w in ws:
        h = jax.checkpoint(lambda a: jax.nn.relu(a @ w))(h)  # w captured: a closed-over tracer
    return jnp.sum((h - t) ** 2)


def plain(ws, x, t):
    h = x
    for w in ws:
        h = jax.nn.relu(h @ w)
    return jnp.sum((h - t) ** 2)


print_saved_residuals(lambda ws: loss(ws, x, t), [w1, w2])
v, g = jax.value_and_grad(loss)([w1, w2], x, t)
pv, pg = jax.value_and_grad(plain)([w1, w2], x, t)
print('closure: loss', repr(float(v)))
for k, gk in enumerate(g):
    print('  dW%d' % (k + 1), ', '.join(repr(float(e)) for e in np.asarray(gk).ravel()))
print('equal to the plain function:', float(v) == float(pv), all(bool(jnp.array_equal(a, b)) for a, b in zip(g, pg)))

mesh = jax.make_mesh((4,), ('data',), axis_types=(jax.sharding.AxisType.Auto,))


def step(ws, xb, tb):
    v, g = jax.value_and_grad(loss)(ws, xb, tb)
    return jax.lax.psum(v, 'data'), g


sv, sg = jax.shard_map(step, mesh=mesh, in_specs=([P(), P()], P('data'), P('data')),
                       out_specs=(P(), [P(), P()]))([w1, w2], x, t)
print('shard_map over data=4: loss', repr(float(sv)), 'gradients equal one device:',
      all(bool(jnp.allclose(a, b, atol=1e-6)) for a, b in zip(sg, g)))
