# The JAX side of Tour11Zero (docs/src/main/java/dev/shardlings/tours/Tour11Zero.java): gradient accumulation and
# one ZeRO-1 Adam step on ('data': 4), as shard_maps, printed as JAX 0.10.2 and optax 0.2.8 print them on CPU; its
# output is the tour's golden, docs/src/test/resources/tours/Tour11Zero.txt. all_gather_invariant is JAX's own
# (jax._src.lax.parallel, not exported in 0.10.2): the gathered W' is the same on every device, so out_specs P()
# accepts it. The collectives' bytes are the framework's per-device formulas, as in tour09_fsdp_tp.py.
# Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/optaxvenv/bin/python tour11_zero.py
import numpy as np
import jax
import jax.extend
import jax.numpy as jnp
import optax
from jax._src.lax.parallel import all_gather_invariant
from jax.sharding import NamedSharding, PartitionSpec as P

N, B, D, F, M = 4, 16, 4, 4, 2
LR = 0.125


def pattern(n, period, shift, divisor, shape):
    return jnp.asarray((np.arange(n) % period - shift) / divisor, dtype=jnp.float32).reshape(shape)


W = pattern(D * F, 7, 3, 4, (D, F))
X = pattern(B * D, 5, 2, 2, (B, D))
T = pattern(B * F, 3, 1, 2, (B, F))
mesh = jax.make_mesh((N,), ('data',), axis_types=(jax.sharding.AxisType.Auto,), devices=jax.devices()[:N])
print("mesh ('data': 4)")
for name, a, spec in [("W", W, P()), ("X", X, P('data')), ("T", T, P('data'))]:
    s = jax.device_put(a, NamedSharding(mesh, spec))
    print(name, s.dtype, s.shape, s.sharding.spec, "each device holds", s.addressable_shards[0].data.shape)


def local_grad(w, x, t):
    """Σ over the rows of x of the gradient of ½‖relu(x·w) − t‖², w f32[D, F]."""
    y = jax.nn.relu(x @ w)
    return x.T @ jnp.where(y > 0, y - t, 0.0)


def accumulate(w, x, t):
    r = x.shape[0] // M
    g = jnp.zeros_like(w)
    for m in range(M):
        g = g + local_grad(w, x[m * r:(m + 1) * r], t[m * r:(m + 1) * r])
    return jax.lax.psum(g, 'data') / B, g[None]


acc = jax.shard_map(accumulate, mesh=mesh, in_specs=(P(), P('data'), P('data')), out_specs=(P(), P('data')))


def zero_step(w, x, t):
    g = jax.lax.psum_scatter(local_grad(w, x, t), 'data', scatter_dimension=0, tiled=True) / B
    rows = g.shape[0]
    own = jax.lax.dynamic_slice_in_dim(w, jax.lax.axis_index('data') * rows, rows)
    opt = optax.adam(LR)
    updates, (state, _) = opt.update(g, opt.init(own))
    new = optax.apply_updates(own, updates)
    return all_gather_invariant(new, 'data', axis=0, tiled=True), g, state.mu, state.nu


zero = jax.shard_map(zero_step, mesh=mesh, in_specs=(P(), P('data'), P('data')),
                     out_specs=(P(), P('data'), P('data'), P('data')))

NAMES = {'all_gather': 'all_gather', 'all_gather_invariant': 'all_gather_invariant', 'reduce_scatter': 'psum_scatter',
         'psum_invariant': 'psum'}
BYTES = {'all_gather': lambda b, n: (n - 1) * b, 'all_gather_invariant': lambda b, n: (n - 1) * b,
         'reduce_scatter': lambda b, n: (n - 1) * b // n, 'psum_invariant': lambda b, n: 2 * (n - 1) * b // n}


def typ(aval):
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


def whole_grad(w):
    return jnp.sum(0.5 * (jax.nn.relu(X @ w) - T) ** 2) / B


print(f"gradient accumulation, {M} microbatches of {B // N // M} rows per device; collectives on device 0:")
for line in collectives(jax.make_jaxpr(acc)(W, X, T).jaxpr):
    print(line)
dw, sums = acc(W, X, T)
print("device 0's sum of its microbatch gradients:")
print(sums[0])
print("dW = psum(sums) / B, laid out", dw.sharding.spec)
print(dw)
print("equal to the big-batch gradient:", bool(jnp.allclose(dw, jax.grad(whole_grad)(W))))

print(f"ZeRO-1: one optax.adam({LR}) step; collectives on device 0:")
for line in collectives(jax.make_jaxpr(zero)(W, X, T).jaxpr):
    print(line)
w_new, g, mu, nu = zero(W, X, T)
for name, a in [("gradient shard", g), ("mu", mu), ("nu", nu)]:
    print(name, a.sharding.spec, "on each device:")
    for s in a.addressable_shards:
        print(f"  device {s.device.id}:", s.data)
# XLA fuses the jitted update, so its last bit can differ from the framework's op-by-op float32: 6 decimals
print("W after the step, all-gathered,", str(w_new.sharding.spec) + ", W · 10^6 rounded to integers:")
print(jnp.round(w_new * 1e6).astype(jnp.int32))
opt = optax.adam(LR)
updates, (state, _) = opt.update(jax.grad(whole_grad)(W), opt.init(W))
print("equal to optax on the whole arrays: W", bool(jnp.allclose(optax.apply_updates(W, updates), w_new)), "mu",
      bool(jnp.allclose(state.mu, mu)), "nu", bool(jnp.allclose(state.nu, nu, rtol=1e-6, atol=0)))
