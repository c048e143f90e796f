# The JAX side of Tour12MixedPrecision (docs/src/main/java/dev/shardlings/tours/Tour12MixedPrecision.java): part 7.5's
# step on ('data': 4) as a shard_map, once in mixed precision (bf16 copies all-gathered, matmuls accumulating in f32,
# the gathered copies' gradients widened and psum_scattered in f32, f32 masters) and once all in float32, printed as
# JAX 0.10.2 prints it on CPU; its output is the tour's golden, docs/src/test/resources/tours/Tour12MixedPrecision.txt.
# The collectives' bytes are the framework's per-device formulas at each operand's own dtype (bf16 2 bytes, f32 4), as
# in tour09_fsdp_tp.py. Losses and weights are printed to 6 decimals (exact decimal rounding of the float, half to
# even on both sides): XLA fuses the jitted step, so the last bit of a sum can differ from the framework's op by op.
# Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python tour12_mixed_precision.py
from decimal import Decimal, ROUND_HALF_EVEN

import numpy as np
import jax
import jax.extend
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

N, B, D, H, F = 4, 8, 4, 8, 4
LR = 0.0625


def masters(n, a, b, shape):
    # many significant bits, so that the bf16 copies visibly differ from the masters
    return jnp.asarray([((a * i + b) % 16383 - 8191) / 8192 for i in range(n)], dtype=jnp.float32).reshape(shape)


def sixteenths(n, a, b, shape):
    return jnp.asarray([((a * i + b) % 17 - 8) / 16 for i in range(n)], dtype=jnp.float32).reshape(shape)


W1 = masters(D * H, 4099, 77, (D, H))
W2 = masters(H * F, 2731, 5003, (H, F))
X = sixteenths(B * D, 5, 3, (B, D))
T = sixteenths(B * F, 7, 11, (B, F))
mesh = jax.make_mesh((N,), ('data',), axis_types=(jax.sharding.AxisType.Auto,), devices=jax.devices()[:N])
print("mesh ('data': 4)")
for name, a in [("W1", W1), ("W2", W2), ("X", X), ("T", T)]:
    s = jax.device_put(a, NamedSharding(mesh, P('data')))
    print(name, s.dtype, s.shape, s.sharding.spec, "each device holds", s.addressable_shards[0].data.shape)


def step(low):
    """One step computing in dtype low: bfloat16 for mixed precision, float32 for the all-f32 step."""
    def body(w1, w2, x, t):
        batch = N * t.shape[0]
        # the low-precision copies travel, not the masters
        w1b = jax.lax.all_gather(w1.astype(low), 'data', tiled=True)
        w2b = jax.lax.all_gather(w2.astype(low), 'data', tiled=True)
        xb = x.astype(low)

        def loss(a, b):
            h = jax.nn.relu(jnp.matmul(xb, a, preferred_element_type=jnp.float32)).astype(low)
            y = jnp.matmul(h, b, preferred_element_type=jnp.float32)
            return jnp.sum(jnp.square(y - t)) * (0.5 / batch)

        value, (g1, g2) = jax.value_and_grad(loss, argnums=(0, 1))(w1b, w2b)
        # widened before the sum over devices
        g1 = jax.lax.psum_scatter(g1.astype(jnp.float32), 'data', tiled=True)
        g2 = jax.lax.psum_scatter(g2.astype(jnp.float32), 'data', tiled=True)
        return jax.lax.psum(value, 'data'), w1 - LR * g1, w2 - LR * g2
    return jax.shard_map(body, mesh=mesh, in_specs=(P('data'),) * 4, out_specs=(P(), P('data'), P('data')))


NAMES = {'all_gather': 'all_gather', 'reduce_scatter': 'psum_scatter', 'psum_invariant': 'psum'}
BYTES = {'all_gather': lambda b, n: (n - 1) * b, 'reduce_scatter': lambda b, n: (n - 1) * b // n,
         'psum_invariant': lambda b, n: 2 * (n - 1) * b // n}


def typ(aval):
    return f"{aval.dtype}[{','.join(map(str, aval.shape))}]"


def collectives(jaxpr):
    """(line, bytes) per collective of a device's program, in program order."""
    for e in jaxpr.eqns:
        for sub in jax.extend.core.jaxprs_in_params(e.params):
            yield from collectives(sub)
        if e.primitive.name in NAMES:
            axes = tuple(e.params['axes'] if 'axes' in e.params else e.params['axis_name'])
            n = int(np.prod([mesh.shape[a] for a in axes]))
            aval_in, aval_out = e.invars[0].aval, e.outvars[0].aval
            sent = BYTES[e.primitive.name](aval_in.size * aval_in.dtype.itemsize, n)
            yield f"  {NAMES[e.primitive.name]} over {axes}: {typ(aval_in)} -> {typ(aval_out)}, {sent} bytes", sent


def fixed(v):
    return str(Decimal(float(v)).quantize(Decimal('0.000001'), rounding=ROUND_HALF_EVEN))


def row(a):
    return "[" + ", ".join(fixed(v) for v in np.asarray(a).ravel()) + "]"


results = {}
for label, low in [("mixed precision", jnp.bfloat16), ("all float32", jnp.float32)]:
    print(f"{label} step, lr {LR}; collectives on device 0:")
    total = 0
    for line, sent in collectives(jax.make_jaxpr(step(low))(W1, W2, X, T).jaxpr):
        print(line)
        total += sent
    print("  bytes sent by device 0:", total)
    results[label] = step(low)(W1, W2, X, T)

(lm, w1m, w2m), (lf, w1f, w2f) = results["mixed precision"], results["all float32"]
print("loss: mixed precision", fixed(lm), "all float32", fixed(lf))
print("W1 row 0: the f32 master and its bf16 copy, what the matmuls read")
print("  master", row(W1[0]))
print("  bf16  ", row(W1[0].astype(jnp.bfloat16).astype(jnp.float32)))
print("W1' row 0 after the step, laid out", w1m.sharding.spec)
print("  mixed precision", row(w1m[0]))
print("  all float32    ", row(w1f[0]))
print("W2' row 0 after the step, laid out", w2m.sharding.spec)
print("  mixed precision", row(w2m[0]))
print("  all float32    ", row(w2f[0]))
print("the masters stay float32:", w1m.dtype, w2m.dtype)
