# bfloat16 as JAX 0.10.2 computes it on CPU: conversions (bits), promotion, rounding after each op, reductions,
# matmul with preferred_element_type, collectives inside shard_map, printing.
# Pinned by framework/src/test/java/dev/shardlings/array/BFloat16Test.java (and spmd/BFloat16CollectivesTest.java).
# Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python bfloat16.py
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

bf = jnp.bfloat16


def bits(x):
    return [hex(int(b)) for b in np.asarray(jax.device_get(x)).view(np.uint16).ravel()]


print('== f32 -> bf16 bits')
f32_bits = [0x3f808000, 0x3f818000, 0x3f808001, 0x3f80ffff, 0x7f7fffff, 0x7f7f7fff, 0x7f7f8000, 0xff7f8000,
            0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x7fa00000, 0x00000001, 0x00008000,
            0x00018000, 0x00400000, 0x807fffff, 0x80000000, 0x00000000, 0x3dcccccd]
xs = jnp.asarray(np.array(f32_bits, dtype=np.uint32).view(np.float32))
print(bits(xs.astype(bf)))
print('== bf16 -> f32 values')
print(np.asarray(xs.astype(bf).astype(jnp.float32)).view(np.uint32).tolist())
print('== i32 -> bf16 bits')
ints = jnp.array([0, 1, -1, 257, 259, 16842753, -16842753, 2147483647, -2147483648, 16777217, 33554435], jnp.int32)
print(bits(ints.astype(bf)))
print('== bf16 -> i32')
fs = jnp.array([1.5, -1.5, 2.5, 3.9, -3.9, 1e10, -1e10, float('nan'), float('inf'), float('-inf')], jnp.float32)
print(fs.astype(bf).astype(jnp.int32).tolist())
print('== bool <-> bf16')
print(jnp.array([True, False]).astype(bf).tolist(), jnp.array([0.0, 0.5, -0.0, float('nan')], bf).astype(bool).tolist())

print('== promotion')
a = jnp.array([1.0, 2.0], bf)
f = jnp.array([1.0, 2.0], jnp.float32)
i = jnp.array([1, 2], jnp.int32)
print((a + a).dtype, (a * f).dtype, (a + 2.0).dtype, (a + 1).dtype, (a + i).dtype, (i + a).dtype, (a / a).dtype,
      jnp.square(a).dtype, jnp.exp(a).dtype, (a > 1).dtype, jnp.where(a > 1, a, 0.0).dtype,
      jnp.where(a > 1, a, f).dtype, jnp.maximum(a, 0.0).dtype, (2 * a).dtype, (a * 0.1).dtype)
print('== python scalar rounding: bf16 + 0.1 (0.1 rounded to bf16 first?)')
one = jnp.array([1.0], bf)
print(bits(one * 0.1), bits(one * jnp.float32(0.1)), (one * jnp.float32(0.1)).dtype, bits(one + 1e-3))
print('== rounding after each op: x*y+z eager and jit')
x = jnp.array([1.0 + 3 * 2 ** -7], bf)
y = jnp.array([1.0 + 3 * 2 ** -7], bf)
z = jnp.array([-1.0], bf)
print(bits(x * y), bits(x * y + z), bits(jax.jit(lambda x, y, z: x * y + z)(x, y, z)))
print(bits(x / jnp.array([3.0], bf)), bits(jnp.exp(x)), bits(jnp.sqrt(jnp.array([2.0], bf))),
      bits(jnp.square(jnp.array([1.0 + 2 ** -7 * 3], bf))))

print('== sum / mean')
v = jnp.full((1000,), 0.01, bf)
s = jnp.sum(v)
print(s.dtype, bits(s), float(s), float(jnp.asarray(0.01, bf).astype(jnp.float32)) * 1000)
w = jnp.array([1.0] + [2 ** -8] * 7, bf)
print(bits(jnp.sum(w)), bits(jnp.mean(w)), jnp.mean(w).dtype, bits(jnp.max(w)), jnp.max(w).dtype)
m2 = jnp.arange(12, dtype=jnp.float32).reshape(3, 4).astype(bf) * jnp.array(1.0 + 2 ** -7, bf)
print(bits(jnp.sum(m2, axis=0)), bits(jnp.sum(m2, axis=1)), bits(jnp.mean(m2, axis=1)))

print('== matmul / einsum')
rng = np.random.default_rng(0)
A = jnp.asarray(rng.standard_normal((4, 64)), jnp.float32).astype(bf)
B = jnp.asarray(rng.standard_normal((64, 3)), jnp.float32).astype(bf)
print((A @ B).dtype, bits(A @ B))
exact = (np.asarray(A.astype(jnp.float32), np.float64) @ np.asarray(B.astype(jnp.float32), np.float64))
print('f64 exact rounded to bf16', bits(jnp.asarray(exact.astype(np.float32)).astype(bf)))
pf = jnp.matmul(A, B, preferred_element_type=jnp.float32)
print(pf.dtype, np.asarray(pf).view(np.uint32).ravel().tolist())
print('f64 exact as f32', exact.astype(np.float32).view(np.uint32).ravel().tolist())
ef = jnp.einsum('bd,df->bf', A, B, preferred_element_type=jnp.float32)
print(ef.dtype, bool((ef == pf).all()), jnp.einsum('bd,df->bf', A, B).dtype)
print((A @ B.astype(jnp.float32)).dtype)
print('== seed 002 matmul_square in bf16')
In = jnp.asarray(rng.standard_normal((8, 16)), jnp.float32).astype(bf)
W = jnp.asarray(rng.standard_normal((16, 8)), jnp.float32).astype(bf)
ms = jnp.einsum('bd,df->bf', jnp.square(In), W)
print(ms.dtype, bits(ms))
print('In', bits(In))
print('W', bits(W))
msf = jnp.einsum('bd,df->bf', jnp.square(In), W, preferred_element_type=jnp.float32)
print(msf.dtype, np.asarray(msf).view(np.uint32).ravel().tolist())
mesh22 = jax.make_mesh((2, 2), ('X', 'Y'), axis_types=(jax.sharding.AxisType.Auto,) * 2)
jm = jax.jit(lambda a, b: jnp.einsum('bd,df->bf', jnp.square(a), b), out_shardings=NamedSharding(mesh22, P('X', None)))
Ins = jax.device_put(In, NamedSharding(mesh22, P('X', 'Y')))
Ws = jax.device_put(W, NamedSharding(mesh22, P('Y', None)))
print('sharded', bits(jm(Ins, Ws)))
print([l.strip().split(', metadata')[0] for l in jm.lower(Ins, Ws).compile().as_text().splitlines() if 'all-reduce(' in l])

print('== collectives')
mesh = jax.make_mesh((8,), ('x',))
vals = jnp.array([1.0] + [2 ** -8] * 7, bf)


def put(v):
    return jax.device_put(v, NamedSharding(mesh, P('x')))



def coll(x):
    return jax.lax.psum(x, 'x'), jax.lax.all_gather(x, 'x', tiled=True), jax.lax.psum_scatter(
        jnp.tile(x, 8), 'x', tiled=True), jax.lax.pmean(x, 'x')


ps, ag, rs, pm = jax.jit(jax.shard_map(coll, mesh=mesh, in_specs=P('x'), out_specs=(P(), P(), P('x'), P()), check_vma=False))(put(vals))
print(ps.dtype, bits(ps), ag.dtype, bits(ag), bits(rs), bits(pm))
vals2 = jnp.array([2 ** -8] * 7 + [1.0], bf)
ps2 = jax.jit(jax.shard_map(lambda x: jax.lax.psum(x, 'x'), mesh=mesh, in_specs=P('x'), out_specs=P()))(put(vals2))
print(bits(ps2))
vals3 = jnp.array([1.0, 2 ** -8, 2 ** -8, 2 ** -7, 1.0, 2 ** -6, -1.0, 3.0], bf)
ps3 = jax.jit(jax.shard_map(lambda x: jax.lax.psum(x, 'x'), mesh=mesh, in_specs=P('x'), out_specs=P()))(put(vals3))
print(bits(ps3))

print('== printing')
p = jnp.array([1.0, 2.5, 0.1, -3.0, 1e-3, 300.0], bf)
print(p)
print(repr(p))
print(jnp.array([[1.0, 2.0], [3.0, 4.0]], bf))
print(repr(jnp.array([[1.0, 2.0], [3.0, 4.0]], bf)))
print(jnp.array([1e10, 1.0], bf))
print(jnp.array([float('nan'), float('inf'), -float('inf'), 0.0], bf))
print(jnp.array(1.5, bf), repr(jnp.array(1.5, bf)))
print(jnp.array([0.1, 0.2, 0.3], bf), jnp.array([1 / 3, 2 / 3], bf), jnp.array([123456.0], bf))
print(jnp.zeros((2, 3), bf).nbytes, jax.ShapeDtypeStruct((2, 3), bf))
