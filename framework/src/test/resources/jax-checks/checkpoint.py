# jax.checkpoint (jax.remat) as JAX 0.10.2 computes it on CPU: a two-layer ReLU MLP, loss = sum((relu(relu(x·W1)·W2)
# - t)²), with and without each layer checkpointed, on one device and inside a shard_map over 'data' (4 devices; the
# invariant weights' cotangents are psummed by the transpose of their implicit pvary). Prints the loss and the
# gradients (CheckpointTest pins them) and, per variant, jax.ad_checkpoint.print_saved_residuals: with every layer
# checkpointed only the layers' inputs (x, h1), the arguments and the loss's 2·(h - t) are saved; without it every
# layer's intermediates (relu's masks and outputs) are. Run with
#   XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python checkpoint.py
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


def layer(h, w):
    return jax.nn.relu(h @ w)


def loss(ws, x, t, remat):
    f = jax.checkpoint(layer) if remat else layer
    h = x
    for w in ws:
        h = f(h, w)
    return jnp.sum((h - t) ** 2)


mesh = jax.make_mesh((4,), ('data',), axis_types=(jax.sharding.AxisType.Auto,))
for remat in (False, True):
    print('remat' if remat else 'plain')
    print_saved_residuals(lambda ws: loss(ws, x, t, remat), [w1, w2])
    v, g = jax.value_and_grad(loss)([w1, w2], x, t, remat)
    print('  one device: loss', repr(float(v)))
    for k, gk in enumerate(g):
        print('  dW%d' % (k + 1), ', '.join(repr(float(e)) for e in np.asarray(gk).ravel()))

    def step(ws, xb, tb):
        # ws are invariant over 'data': their cotangents are psummed over it by the transpose of the implicit pvary
        v, g = jax.value_and_grad(loss)(ws, xb, tb, remat)
        return jax.lax.psum(v, 'data'), g

    sv, sg = jax.shard_map(step, mesh=mesh, in_specs=([P(), P()], P('data'), P('data')),
                           out_specs=(P(), [P(), P()]))([w1, w2], x, t)
    print('  shard_map over data=4: loss', repr(float(sv)), 'gradients equal one device:',
          all(bool(jnp.allclose(a, b, atol=1e-6)) for a, b in zip(sg, g)))
