# Part 7.5's step as JAX 0.10.2 computes it on CPU, on a mesh ('data': 2): f32 masters W1[4, 4], W2[4, 2] sharded by
# rows, cast to bf16 and all-gathered, matmuls with preferred_element_type=f32, the hidden activations cast to bf16,
# the loss in f32, the gradients of the gathered copies (bf16) widened and psum_scattered in f32, W' = W - lr*dW.
# Also the same step with no cast at all (all f32). Pinned by grader/src/test/java/dev/shardlings/grader/chapter7/
# MixedPrecisionOracleTest.java (the oracle must land within its tolerances of the first, and the all-f32 loss
# outside the loss's).
# Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python mixed_precision_step.py
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

bf = jnp.bfloat16
f32 = jnp.float32
LR = 0.0625


def sixteenths(n, a, b):
    return np.array([((a * i + b) % 17 - 8) / 16 for i in range(n)], dtype=np.float32)


def masters(n, a, b):
    return np.array([((a * i + b) % 16383 - 8191) / 8192 for i in range(n)], dtype=np.float32)


w1 = masters(16, 4099, 77).reshape(4, 4)
w2 = masters(8, 2731, 5003).reshape(4, 2)
x = sixteenths(16, 5, 3).reshape(4, 4)
t = sixteenths(8, 7, 11).reshape(4, 2)
mesh = jax.make_mesh((2,), ('data',), axis_types=(jax.sharding.AxisType.Auto,))


def step(low):
    def body(w1s, w2s, xs, ts):
        batch = 2 * ts.shape[0]
        w1b = jax.lax.all_gather(w1s.astype(low), 'data', tiled=True)
        w2b = jax.lax.all_gather(w2s.astype(low), 'data', tiled=True)
        xb = xs.astype(low)

        def loss(a, b):
            h = jax.nn.relu(jnp.matmul(xb, a, preferred_element_type=f32)).astype(low)
            y = jnp.matmul(h, b, preferred_element_type=f32)
            return jnp.sum(jnp.square(y - ts)) * (0.5 / batch)

        value, (g1, g2) = jax.value_and_grad(loss, argnums=(0, 1))(w1b, w2b)
        g1 = jax.lax.psum_scatter(g1.astype(f32), 'data', tiled=True)
        g2 = jax.lax.psum_scatter(g2.astype(f32), 'data', tiled=True)
        return jax.lax.psum(value, 'data'), w1s - LR * g1, w2s - LR * g2
    return jax.jit(jax.shard_map(body, mesh=mesh, in_specs=(P('data'),) * 4, out_specs=(P(), P('data'), P('data'))))


def bits(a):
    return ' '.join('%08x' % int(v) for v in np.asarray(a, dtype=np.float32).view(np.uint32).ravel())


for name, low in (('mixed', bf), ('f32', f32)):
    loss, n1, n2 = step(low)(w1, w2, x, t)
    print(name, 'loss', bits(loss))
    print(name, 'w1', bits(n1))
    print(name, 'w2', bits(n2))
