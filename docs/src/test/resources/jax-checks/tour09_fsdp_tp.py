# The JAX side of Tour09FsdpTp (docs/src/main/java/dev/shardlings/tours/Tour09FsdpTp.java): the same MLP block on
# ('data': 2, 'model': 2), the same shard_map step, printed as JAX 0.10.2 prints it on CPU. Its output is the tour's
# golden (docs/src/test/resources/tours/Tour09FsdpTp.txt) less the sharding pictures: jax.debug.visualize_array_sharding
# needs rich, which the venv does not have. The collectives are read from the step's jaxpr (psum_invariant is what
# psum binds under check_vma, reduce_scatter what psum_scatter binds); their bytes are the framework's per-device
# formulas: all_gather (n - 1)·b, psum_scatter (n - 1)/n·b, psum 2(n - 1)/n·b, for an operand of b bytes.
# Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python tour09_fsdp_tp.py
import numpy as np
import jax
import jax.extend
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

B, D, F = 8, 4, 8
LR = 0.5


def pattern(n, period, shift, divisor, shape):
    return jnp.asarray((np.arange(n) % period - shift) / divisor, dtype=jnp.float32).reshape(shape)


X = pattern(B * D, 5, 2, 2, (B, D))
T = pattern(B * D, 3, 1, 2, (B, D))
W1 = pattern(D * F, 7, 3, 4, (D, F))
W2 = pattern(F * D, 5, 2, 4, (F, D))
mesh = jax.make_mesh((2, 2), ('data', 'model'), axis_types=(jax.sharding.AxisType.Auto,) * 2,
                     devices=jax.devices()[:4])
print("mesh ('data': 2, 'model': 2)")
for name, a, spec in [("W1", W1, P('data', 'model')), ("W2", W2, P('model', 'data')), ("X", X, P('data', None))]:
    s = jax.device_put(a, NamedSharding(mesh, spec))
    print(name, s.dtype, s.shape, s.sharding.spec, "each device holds", s.addressable_shards[0].data.shape)


def step(x, t, w1, w2):
    rows = jax.lax.axis_size('data')

    def loss(w):
        w1g = jax.lax.all_gather(w[0], 'data', axis=0, tiled=True)
        w2g = jax.lax.all_gather(w[1], 'data', axis=1, tiled=True)
        y = jax.lax.psum(jax.nn.relu(x @ w1g) @ w2g, 'model')
        return jnp.mean(jnp.sum((y - t) ** 2, -1)) / rows

    value, (g1, g2) = jax.value_and_grad(loss)((w1, w2))
    return jax.lax.psum(value, 'data'), g1, w1 - LR * g1, w2 - LR * g2


f = jax.shard_map(step, mesh=mesh,
                  in_specs=(P('data', None), P('data', None), P('data', 'model'), P('model', 'data')),
                  out_specs=(P(), P('data', 'model'), P('data', 'model'), P('model', 'data')))

NAMES = {'all_gather': 'all_gather', 'reduce_scatter': 'psum_scatter', 'psum_invariant': 'psum'}
BYTES = {'all_gather': lambda b, n: (n - 1) * b, 'reduce_scatter': lambda b, n: (n - 1) * b // n,
         'psum_invariant': lambda b, n: 2 * (n - 1) * b // n}


def typ(aval):
    # the block's dtype and shape, without the varying axes the jaxpr also prints ({V:data})
    return f"{aval.dtype}[{','.join(map(str, aval.shape))}]"


def collectives(jaxpr):
    for e in jaxpr.eqns:
        for sub in jax.extend.core.jaxprs_in_params(e.params):
            yield from collectives(sub)
        if e.primitive.name in NAMES:
            axes = tuple(e.params['axes'] if 'axes' in e.params else e.params['axis_name'])
            n = int(np.prod([mesh.shape[a] for a in axes]))
            aval_in, aval_out = e.invars[0].aval, e.outvars[0].aval
            yield (f"  {NAMES[e.primitive.name]} over {axes}: {typ(aval_in)} -> {typ(aval_out)}, "
                   f"{BYTES[e.primitive.name](aval_in.size * aval_in.dtype.itemsize, n)} bytes")


print("collectives of one step on device 0 (bytes sent per device):")
for line in collectives(jax.make_jaxpr(f)(X, T, W1, W2).jaxpr):
    print(line)
value, dw1, w1_new, w2_new = f(X, T, W1, W2)
print("loss:", value)
print("dW1 (gathered):")
print(dw1)
print("W1 after the step:")
print(w1_new)
print("W2 after the step:")
print(w2_new)
whole, (g1, _) = jax.value_and_grad(lambda w: jnp.mean(jnp.sum((jax.nn.relu(X @ w[0]) @ w[1] - T) ** 2, -1)))((W1, W2))
print("single device: loss", whole, "dW1 equal:", bool(jnp.allclose(g1, dw1)))
