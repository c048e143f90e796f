# Part 7.3's attention as JAX computes it (JAX 0.10.2 on 4 simulated CPU devices): jax.nn.dot_product_attention
# (one head, with and without is_causal) beside a ring of ppermutes in shard_map with an online softmax, on
# Q, K, V f32[8, 2] with scores of a few hundred. RingAttentionOracleTest pins the printed outputs. Run with
#   XLA_FLAGS=--xla_force_host_platform_device_count=4 /work/jaxvenv/bin/python ring_attention.py
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, PartitionSpec as P

S, D, N = 8, 2, 4


def values(a, b, scale):
    # multiples of 1/16 in [-1/2, 1/2] times scale, the same formula as the Java test
    return np.array([[((a * i + b * j) % 17 - 8) / 16 * scale for j in range(D)] for i in range(S)], np.float32)


mesh = Mesh(np.array(jax.devices()[:N]), ('seq',))


def ring(q, k, v, causal):
    def block(qb, kb, vb):
        me = jax.lax.axis_index('seq')
        b = qb.shape[0]
        m = jnp.full((b, 1), -jnp.inf, jnp.float32)
        l = jnp.zeros((b, 1), jnp.float32)
        acc = jnp.zeros_like(qb)
        for t in range(N):
            if t > 0:
                perm = [(s, (s + 1) % N) for s in range(N)]
                kb = jax.lax.ppermute(kb, 'seq', perm)
                vb = jax.lax.ppermute(vb, 'seq', perm)
            src = (me - t) % N
            s = qb @ kb.T / jnp.sqrt(jnp.float32(D))
            if causal:
                rows = me * b + jnp.arange(b)[:, None]
                cols = src * b + jnp.arange(b)[None, :]
                s = jnp.where(cols <= rows, s, -jnp.inf)
            m_new = jnp.maximum(m, s.max(axis=1, keepdims=True))
            p = jnp.exp(s - m_new)
            r = jnp.exp(m - m_new)
            l = l * r + p.sum(axis=1, keepdims=True)
            acc = acc * r + p @ vb
            m = m_new
        return acc / l
    return jax.shard_map(block, mesh=mesh, in_specs=(P('seq'),) * 3, out_specs=P('seq'))(q, k, v)


for scale in (1, 40):
  q, k, v = values(7, 3, scale), values(5, 11, scale), values(3, 13, 1)
  for causal in (False, True):
    full = jax.nn.dot_product_attention(q[None, :, None, :], k[None, :, None, :], v[None, :, None, :],
                                        is_causal=causal)[0, :, 0, :]
    naive = jax.nn.softmax(jnp.where(jnp.tril(jnp.ones((S, S), bool)) | (not causal), q @ k.T / np.sqrt(D),
                                     -jnp.inf), axis=1) @ v
    r = ring(q, k, v, causal)
    print('scale', scale, 'causal' if causal else 'plain', 'ring - full max abs', float(jnp.max(jnp.abs(r - full))),
          'softmax - full', float(jnp.max(jnp.abs(naive - full))),
          'exp(scores) overflows:', bool(jnp.isinf(jnp.exp(q @ k.T / np.sqrt(D))).any()))
    print('  ' + ', '.join(repr(float(x)) for x in np.asarray(full).ravel()))
