# The JAX side of Tour10RingAttention (docs/src/main/java/dev/shardlings/tours/Tour10RingAttention.java): ring
# attention on ('seq': 4) as a shard_map of ppermutes with an online softmax, printed as JAX 0.10.2 prints it on CPU;
# its output is the tour's golden, docs/src/test/resources/tours/Tour10RingAttention.txt.
# Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python tour10_ring_attention.py
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

N, S, D = 4, 8, 4
BLOCK = S // N
ROW = 5
UP = [(i, (i + 1) % N) for i in range(N)]


def pattern(n, period, shift, divisor, shape):
    return jnp.asarray((np.arange(n) % period - shift) / divisor, dtype=jnp.float32).reshape(shape)


Q = pattern(S * D, 7, 3, 2, (S, D))
K = pattern(S * D, 5, 2, 2, (S, D))
V = pattern(S * D, 3, 1, 2, (S, D))
mesh = jax.make_mesh((N,), ('seq',), axis_types=(jax.sharding.AxisType.Auto,), devices=jax.devices()[:N])
print("mesh ('seq': 4)")
for name, a in [("Q", Q), ("K", K), ("V", V)]:
    s = jax.device_put(a, NamedSharding(mesh, P('seq')))
    print(name, s.dtype, s.shape, s.sharding.spec, "each device holds", s.addressable_shards[0].data.shape)

print("rows of K and V on devices 0, 1, 2, 3 after t shifts up the ring, ppermute pairs (i, i + 1 mod 4):")
rows = jnp.arange(S, dtype=jnp.int32)
shift = jax.shard_map(lambda a: jax.lax.ppermute(a, 'seq', UP), mesh=mesh, in_specs=P('seq'), out_specs=P('seq'))
for t in range(N):
    print(f"  t = {t}:", rows)
    rows = shift(rows)

print(f"online softmax of query row {ROW} (device {ROW // BLOCK}), after each block it folds in:")
me = ROW // BLOCK
m = jnp.float32(-jnp.inf)
l = jnp.float32(0)
for t in range(N):
    src = (me - t) % N
    s = Q[ROW] @ K[src * BLOCK:(src + 1) * BLOCK].T / jnp.sqrt(jnp.float32(D))
    m_new = jnp.maximum(m, jnp.max(s))
    l = l * jnp.exp(m - m_new) + jnp.sum(jnp.exp(s - m_new))
    m = m_new
    print(f"  t = {t}, keys {src * BLOCK}-{src * BLOCK + BLOCK - 1}: m =", m, "l =", l)
s = Q[ROW] @ K.T / jnp.sqrt(jnp.float32(D))
print("  the row's max and sum over all keys at once: m =", jnp.max(s), "l =", jnp.sum(jnp.exp(s - jnp.max(s))))


def ring(causal):
    def block(q, k, v):
        me = jax.lax.axis_index('seq')
        qpos = me * BLOCK + jnp.arange(BLOCK)[:, None]
        m = jnp.full((BLOCK, 1), -jnp.inf, jnp.float32)
        l = jnp.zeros((BLOCK, 1), jnp.float32)
        acc = jnp.zeros_like(q)
        for t in range(N):
            if t > 0:
                k = jax.lax.ppermute(k, 'seq', UP)
                v = jax.lax.ppermute(v, 'seq', UP)
            s = q @ k.T / jnp.sqrt(jnp.float32(D))
            if causal:
                kpos = ((me - t) % N) * BLOCK + jnp.arange(BLOCK)[None, :]
                s = jnp.where(kpos <= qpos, s, -jnp.inf)
            m_new = jnp.maximum(m, jnp.max(s, axis=1, keepdims=True))
            p = jnp.exp(s - m_new)
            rescale = jnp.exp(m - m_new)
            l = l * rescale + jnp.sum(p, axis=1, keepdims=True)
            acc = acc * rescale + p @ v
            m = m_new
        return acc / l

    return jax.jit(jax.shard_map(block, mesh=mesh, in_specs=(P('seq'),) * 3, out_specs=P('seq')))


for causal in (False, True):
    o = ring(causal)(Q, K, V)
    ref = jax.nn.dot_product_attention(Q[None, :, None, :], K[None, :, None, :], V[None, :, None, :],
                                       is_causal=causal)[0, :, 0, :]
    print("causal ring attention" if causal else "ring attention",
          str(o.sharding.spec) + ", O · 10^5 rounded to integers:")
    # the last bit of exp differs between XLA's CPU kernel and the framework's: 5 decimals, as integers
    print(jnp.round(o * 1e5).astype(jnp.int32))
    print("equal to jax.nn.dot_product_attention" + (" with is_causal=True" if causal else "") + ":",
          bool(jnp.allclose(o, ref, rtol=1e-6, atol=1e-6)))
