# What SoftmaxTest and AdamTest pin: jax.nn.softmax / log_softmax, jax.scipy.special.logsumexp (values, -inf rows,
# keepdims, gradients) and optax.adam's first five steps.
# Run: /work/optaxvenv/bin/python framework/src/test/resources/jax-checks/softmax_adam.py
# (/work/optaxvenv holds jax 0.10.2, jaxlib 0.10.2 and optax 0.2.8; everything runs eagerly on CPU, float32.)
import numpy as np
import jax, jax.numpy as jnp, optax
from jax.scipy.special import logsumexp

np.set_printoptions(precision=9, floatmode='unique')
def show(name, a):
    a = np.asarray(a)
    print(name, a.dtype, list(a.shape), [float(v) for v in a.ravel()])

x = jnp.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 100.0]], jnp.float32)
show('softmax_axis1', jax.nn.softmax(x, axis=1))
show('softmax_axis0', jax.nn.softmax(x, axis=0))
show('log_softmax_axis1', jax.nn.log_softmax(x, axis=1))
show('logsumexp_axis1', logsumexp(x, axis=1))
show('logsumexp_keep', logsumexp(x, axis=1, keepdims=True))
show('logsumexp_all', logsumexp(x))
big = jnp.array([1000.0, 999.0, -1000.0], jnp.float32)
show('softmax_big', jax.nn.softmax(big))
show('logsumexp_big', logsumexp(big))
ninf = jnp.array([[-jnp.inf, -jnp.inf], [0.0, -jnp.inf]], jnp.float32)
show('softmax_ninf', jax.nn.softmax(ninf, axis=1))
show('log_softmax_ninf', jax.nn.log_softmax(ninf, axis=1))
show('logsumexp_ninf', logsumexp(ninf, axis=1))
pinf = jnp.array([0.0, jnp.inf], jnp.float32)
show('softmax_pinf', jax.nn.softmax(pinf))
show('logsumexp_pinf', logsumexp(pinf))
show('softmax_int', jax.nn.softmax(jnp.array([1, 2, 3], jnp.int32)))
show('logsumexp_int', logsumexp(jnp.array([1, 2, 3], jnp.int32)))
w = jnp.array([[0.5, -1.0, 2.0], [3.0, 0.0, -2.0]], jnp.float32)
show('grad_softmax', jax.grad(lambda x: jnp.sum(jax.nn.softmax(x, axis=1) * w))(x))
show('grad_log_softmax', jax.grad(lambda x: jnp.sum(jax.nn.log_softmax(x, axis=1) * w))(x))
show('grad_logsumexp', jax.grad(lambda x: jnp.sum(logsumexp(x, axis=1) * w[:, 0]))(x))
m = jnp.arange(12, dtype=jnp.float32).reshape(3, 4)
show('tril', jnp.tril(m)); show('tril_k1', jnp.tril(m, 1)); show('triu', jnp.triu(m)); show('triu_km1', jnp.triu(m, -1))
try:
    jnp.tril(jnp.arange(3.0))
except Exception as e:
    print('tril_rank1', type(e).__name__, e)

# optax.adam: five steps on two parameters, gradients of a fixed quadratic-plus-sine loss.
params = [jnp.array([[0.5, -1.5, 2.0], [0.25, 3.0, -0.75]], jnp.float32), jnp.array([1e-3, -4.0], jnp.float32)]
def loss(ps):
    return jnp.sum(ps[0] ** 2 * 0.5) + jnp.sum(jnp.sin(ps[1]) * 3.0) + jnp.sum(ps[0][:, :2] @ ps[1][:, None])
opt = optax.adam(0.1)
state = opt.init(params)
for step in range(1, 6):
    g = jax.grad(loss)(params)
    for i, gi in enumerate(g):
        show(f'adam_grad{step}_{i}', gi)
    updates, state = opt.update(g, state, params)
    params = optax.apply_updates(params, updates)
    for i, p in enumerate(params):
        show(f'adam_param{step}_{i}', p)
    show(f'adam_count{step}', state[0].count)
    for i in range(2):
        show(f'adam_mu{step}_{i}', state[0].mu[i]); show(f'adam_nu{step}_{i}', state[0].nu[i])
