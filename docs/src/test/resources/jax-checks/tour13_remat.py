# The JAX side of Tour13Remat (docs/src/main/java/dev/shardlings/tours/Tour13Remat.java): part 7.6's step on
# ('data': 4), L = 3 layers h_l = relu(h_{l-1}·W_l), W_l f32[4, 4] replicated, X and T f32[8, 4] split by rows, as a
# shard_map differentiated with and without jax.checkpoint around each layer, printed as JAX 0.10.2 prints it on CPU;
# its output is the tour's golden, docs/src/test/resources/tours/Tour13Remat.txt.
# The matmul FLOPs are JAX's: every dot_general of the differentiated program's jaxpr (a checkpoint's recomputation
# is a second copy of the layer's dot inside the backward), 2·m·k·n each; the recomputed ones are what the
# checkpointed program runs beyond the plain one, and the vjp rules' are the dots after the forward's L less those.
# The peak residual bytes are the framework's alone, computed here by its formula: a tape holds every array a
# recorded operation read or made (f32 Z_l and h_l per layer, the loss's h_L - T and its square, three scalars),
# a checkpointed layer only its output, plus one layer's Z_l and h_l while it is recomputed. JAX decides its
# residuals by partial evaluation instead (relu keeps a bool mask and a zeros operand, the dot its left operand), and
# XLA's buffer assignment decides the real peak, so no JAX figure is the same quantity; what JAX does keep is checked
# below with what jax.ad_checkpoint.print_saved_residuals prints: with checkpoint, only the layers' inputs and the
# loss's residual besides the arguments and constants.
# Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python tour13_remat.py
import contextlib
import io
from decimal import Decimal, ROUND_HALF_EVEN

import numpy as np
import jax
import jax.extend
import jax.numpy as jnp
from jax.ad_checkpoint import print_saved_residuals
from jax.sharding import NamedSharding, PartitionSpec as P

N, L, B, D = 4, 3, 8, 4
R = B // N


def sixteenths(n, a, b, shape):
    return jnp.asarray([((a * i + b) % 17 - 8) / 16 for i in range(n)], dtype=jnp.float32).reshape(shape)


WS = [sixteenths(D * D, 3 + 2 * l, 13 + l, (D, D)) for l in range(L)]
X = sixteenths(B * D, 7, 3, (B, D))
T = sixteenths(B * D, 5, 11, (B, D))
mesh = jax.make_mesh((N,), ('data',), axis_types=(jax.sharding.AxisType.Auto,), devices=jax.devices()[:N])
print(f"mesh ('data': 4), L = {L} layers")
for name, a, spec in [("W_l", WS[0], P()), ("X", X, P('data')), ("T", T, P('data'))]:
    s = jax.device_put(a, NamedSharding(mesh, spec))
    print(name, s.dtype, s.shape, s.sharding.spec, "each device holds", s.addressable_shards[0].data.shape)


def layer(h, w):
    return jax.nn.relu(h @ w)


def loss(ws, x, t, remat):
    f = jax.checkpoint(layer) if remat else layer
    h = x
    for w in ws:
        h = f(h, w)
    return jnp.sum(jnp.square(h - t)) * (0.5 / B)


def step(remat):
    def body(ws, x, t):
        # ws are invariant over 'data': the transpose of their implicit pvary psums their cotangents
        value, grads = jax.value_and_grad(loss)(ws, x, t, remat)
        return jax.lax.psum(value, 'data'), grads
    return jax.shard_map(body, mesh=mesh, in_specs=([P()] * L, P('data'), P('data')), out_specs=(P(), [P()] * L))


def dots(jaxpr):
    """The FLOPs of every dot_general of a jaxpr, in program order, looking into its sub-jaxprs."""
    for e in jaxpr.eqns:
        for sub in jax.extend.core.jaxprs_in_params(e.params):
            yield from dots(sub)
        if e.primitive.name == 'dot_general':
            (contract, _), _ = e.params['dimension_numbers']
            a, out = e.invars[0].aval, e.outvars[0].aval
            yield 2 * out.size * int(np.prod([a.shape[d] for d in contract]))


def fixed(v):
    return str(Decimal(float(v)).quantize(Decimal('0.000001'), rounding=ROUND_HALF_EVEN))


a = 4 * R * D
plain_flops = sum(dots(jax.make_jaxpr(step(False))(WS, X, T).jaxpr))
results = {}
for remat in (False, True):
    flops = list(dots(jax.make_jaxpr(step(remat))(WS, X, T).jaxpr))
    # the forward's L dots come first; the rest are the backward pass's (and, with checkpoint, its recomputation)
    recomputed = sum(flops) - plain_flops
    peak = ((L + 4) if remat else (2 * L + 2)) * a + 3 * 4
    print("with jax.checkpoint around each layer:" if remat else "without checkpoint:")
    print("  peak bytes held by device 0's tapes:", peak)
    print("  matmul FLOPs on device 0:", sum(flops), "of which the backward pass's vjp rules",
          sum(flops[L:]) - recomputed, "and recomputed", recomputed)
    results[remat] = step(remat)(WS, X, T)

listing = io.StringIO()
with contextlib.redirect_stdout(listing):
    print_saved_residuals(lambda ws: loss(ws, X[:R], T[:R], True), WS)
# the arguments, and the loss's constant 0.5 / B, are no activations
saved = [line for line in listing.getvalue().splitlines()
         if 'from the argument' not in line and 'from a literal' not in line]
assert len(saved) == L + 1 and all(line.startswith(f'f32[{R},{D}] ') for line in saved), saved

(lp, gp), (lr, gr) = results[False], results[True]
print("loss", fixed(lr), "laid out", lr.sharding.spec)
print("dW_L with checkpoint, laid out", gr[-1].sharding.spec)
for r in np.asarray(gr[-1]):
    print("  [" + ", ".join(fixed(v) for v in r) + "]")
print("equal without checkpoint: loss", bool(lp == lr), "gradients",
      all(bool(jnp.array_equal(p, r)) for p, r in zip(gp, gr)))
