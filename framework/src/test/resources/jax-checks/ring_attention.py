# Part 7.3's attention as JAX computes it (JAX 0.10.2 on CPU): jax.nn.dot_product_attention (one head, with and
# without is_causal) beside softmax(Q·Kᵀ/√D)·V written out, on Q, K, V f32[8, 2] at scale 1 and at scale 40, where
# exp of the scores overflows float32. RingAttentionOracleTest pins the printed outputs. (The script stays free of
# a ring: this folder ships to students.) Run with
#   /work/jaxvenv/bin/python ring_attention.py
import jax
import jax.numpy as jnp
import numpy as np

S, D = 8, 2


def values(a, b, scale):
    # multiples of 1/16 in [-1/2, 1/2] times scale, the same formula as the Java test
    return np.array([[((a * i + b * j) % 17 - 8) / 16 * scale for j in range(D)] for i in range(S)], np.float32)


for scale in (1, 40):
  q, k, v = values(7, 3, scale), values(5, 11, scale), values(3, 13, 1)
  for causal in (False, True):
    full = jax.nn.dot_product_attention(q[None, :, None, :], k[None, :, None, :], v[None, :, None, :],
                                        is_causal=causal)[0, :, 0, :]
    naive = jax.nn.softmax(jnp.where(jnp.tril(jnp.ones((S, S), bool)) | (not causal), q @ k.T / np.sqrt(D),
                                     -jnp.inf), axis=1) @ v
    print('scale', scale, 'causal' if causal else 'plain', 'softmax - full', float(jnp.max(jnp.abs(naive - full))),
          'exp(scores) overflows:', bool(jnp.isinf(jnp.exp(q @ k.T / np.sqrt(D))).any()))
    print('  ' + ', '.join(repr(float(x)) for x in np.asarray(full).ravel()))
