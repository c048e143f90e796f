#!/usr/bin/env python3
"""Golden values for dev.shardlings.random.PRNG, from real JAX on CPU.

Writes framework/src/test/resources/dev/shardlings/random/prng-golden.txt, which PRNGGoldenTest reads (the Java
test needs no Python). Regenerate, from the repository root, with

    python3 -m venv /tmp/jaxvenv && /tmp/jaxvenv/bin/pip install jax==0.10.2 jaxlib==0.10.2
    JAX_PLATFORMS=cpu /tmp/jaxvenv/bin/python framework/src/test/python/prng_golden.py

on an x86-64 machine with AVX2 and FMA (XLA compiles for the host CPU: what it fuses, and so the bits of uniform with
bounds and of normal, can differ on other CPUs). The script refuses other versions of jax.

Every value is computed three ways and the script stops if two differ:
  eager     jax.random.f(key, shape, ...) called directly (each f is a jitted function in JAX);
  jit       the same call inside jax.jit, with the key (and the bounds) as arguments;
  jit-const the same call inside jax.jit with the key and the bounds as constants of the program.

Format, one record a line ('#' starts a comment):
  key SEED K0 K1                                  jax.random.key(SEED), as its two uint32 words
  fold_in K0 K1 DATA R0 R1                        jax.random.fold_in(key, uint32 DATA)
  split K0 K1 N B64                               jax.random.split(key, N): N keys, 2N words
  bits K0 K1 SHAPE B64                            jax.random.bits(key, SHAPE), uint32
  uniform K0 K1 SHAPE MINBITS MAXBITS B64         jax.random.uniform(key, SHAPE, float32, minval, maxval)
  normal K0 K1 SHAPE B64                          jax.random.normal(key, SHAPE, float32)
  erf_inv XBITS_B64 YBITS_B64                     jax.lax.erf_inv on float32 inputs (jitted)
  f32 OP ABITS BBITS [CBITS] RBITS                one float32 operation (add sub mul div max, fma = a * b + c)
  sweep_normal SHA256                             normal for each of the 2^23 mantissas m (random bits m << 9)
  sweep_uniform MINBITS MAXBITS SHA256            the same for uniform with the bounds
K0, K1, DATA and seeds are decimal (unsigned words), SHAPE is dims joined by 'x' ('-' for a scalar), MINBITS and
MAXBITS are the float32 bits in hex, B64 is base64 of the values as little-endian uint32 ('' when empty; float32 as
their bits), SHA256 is the hex digest of all 2^23 values as little-endian uint32 in mantissa order.
"""
import base64
import hashlib
import math
import os
import platform
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

JAX_VERSION = "0.10.2"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "resources", "dev", "shardlings", "random",
                   "prng-golden.txt")

if jax.__version__ != JAX_VERSION:
    sys.exit(f"this script describes jax {JAX_VERSION}, found jax {jax.__version__}")
if jax.default_backend() != "cpu":
    sys.exit("run with JAX_PLATFORMS=cpu")
if platform.machine() not in ("x86_64", "AMD64"):
    sys.exit("the golden values are those of XLA on x86-64")

lines = []


def f32(x):
    return np.float32(x)


def fbits(x):
    return format(int(np.asarray(f32(x)).view(np.uint32)), "08x")


def b64(arr):
    a = np.ascontiguousarray(np.asarray(arr).reshape(-1))
    if a.dtype == np.float32:
        a = a.view(np.uint32)
    assert a.dtype == np.uint32, a.dtype
    return base64.b64encode(a.astype("<u4").tobytes()).decode("ascii")


def shape_str(shape):
    return "x".join(str(d) for d in shape) if shape else "-"


def wrap(k0, k1):
    return jax.random.wrap_key_data(jnp.array([k0, k1], dtype=jnp.uint32))


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype == np.float32:
        a, b = a.view(np.uint32), b.view(np.uint32)
    return a.shape == b.shape and np.array_equal(a, b)


def three_ways(name, eager, jitted, jit_const):
    """Returns the eager value after checking it against the two jitted ones."""
    e = eager()
    if not same_bits(e, jitted()):
        sys.exit(f"{name}: eager and jit differ")
    if not same_bits(e, jit_const()):
        sys.exit(f"{name}: eager and jit with constant operands differ")
    return e


# Keys used for sampling: seeds, a folded and a split key (first word not zero) and raw words at the edges.
def key_words(k):
    d = np.asarray(jax.random.key_data(k))
    return int(d[0]), int(d[1])


SAMPLE_KEYS = [key_words(jax.random.key(s)) for s in (0, 1, 42, -1, 2**31 - 1, -2**31, 123456789)]
SAMPLE_KEYS.append(key_words(jax.random.fold_in(jax.random.key(7), 3)))
SAMPLE_KEYS.append(key_words(jax.random.split(jax.random.key(2024), 5)[4]))
SAMPLE_KEYS += [(0xFFFFFFFF, 0x80000000), (0xDEADBEEF, 0x12345678)]


# --- keys from seeds
for seed in (0, 1, 42, 7, -1, 2**31 - 1, -2**31, 123456789, 2**31, 2**32, 2**33 + 5, -2**31 - 1, 2**63 - 1,
             -2**63):
    e = jax.random.key_data(jax.random.key(seed))
    p = jax.random.key_data(jax.random.PRNGKey(seed))
    if not same_bits(e, p):
        sys.exit(f"key({seed}) and PRNGKey({seed}) differ")
    if -2**31 <= seed < 2**31:  # a Python int outside int32 is wrapped before tracing: not jit invariant
        j = jax.jit(lambda s: jax.random.key_data(jax.random.key(s)))(jnp.int32(seed))
        if not same_bits(e, j):
            sys.exit(f"key({seed}): eager and jit differ")
    w = np.asarray(e)
    lines.append(f"key {seed} {int(w[0])} {int(w[1])}")

# --- fold_in
for (k0, k1) in SAMPLE_KEYS[:4] + SAMPLE_KEYS[-3:]:
    for data in (0, 1, 2, 3, 12345, 2**31 - 1, 2**31, 2**32 - 1):
        d = np.uint32(data)
        r = three_ways(
            f"fold_in({k0},{k1},{data})",
            lambda: jax.random.key_data(jax.random.fold_in(wrap(k0, k1), d)),
            lambda: jax.jit(lambda k, x: jax.random.key_data(jax.random.fold_in(k, x)))(wrap(k0, k1), d),
            lambda: jax.jit(lambda: jax.random.key_data(jax.random.fold_in(wrap(k0, k1), d)))())
        r = np.asarray(r)
        lines.append(f"fold_in {k0} {k1} {data} {int(r[0])} {int(r[1])}")

# --- split
for (k0, k1) in SAMPLE_KEYS[:3] + SAMPLE_KEYS[-3:]:
    for n in (0, 1, 2, 3, 7, 100):
        r = three_ways(
            f"split({k0},{k1},{n})",
            lambda: jax.random.key_data(jax.random.split(wrap(k0, k1), n)),
            lambda: jax.jit(lambda k: jax.random.key_data(jax.random.split(k, n)))(wrap(k0, k1)),
            lambda: jax.jit(lambda: jax.random.key_data(jax.random.split(wrap(k0, k1), n)))())
        lines.append(f"split {k0} {k1} {n} {b64(r)}")

# --- bits
BITS_SHAPES = [(), (1,), (2,), (5,), (3, 4), (2, 3, 5), (2, 0, 3), (1001,)]
for i, (k0, k1) in enumerate(SAMPLE_KEYS):
    for shape in BITS_SHAPES if i < 3 else BITS_SHAPES[:6]:
        r = three_ways(
            f"bits({k0},{k1},{shape})",
            lambda: jax.random.bits(wrap(k0, k1), shape),
            lambda: jax.jit(lambda k: jax.random.bits(k, shape))(wrap(k0, k1)),
            lambda: jax.jit(lambda: jax.random.bits(wrap(k0, k1), shape))())
        lines.append(f"bits {k0} {k1} {shape_str(shape)} {b64(r)}")


# --- uniform
def uniform_case(k0, k1, shape, lo, hi):
    lo, hi = f32(lo), f32(hi)
    r = three_ways(
        f"uniform({k0},{k1},{shape},{lo!r},{hi!r})",
        lambda: jax.random.uniform(wrap(k0, k1), shape, jnp.float32, lo, hi),
        lambda: jax.jit(lambda k, a, b: jax.random.uniform(k, shape, jnp.float32, a, b))(wrap(k0, k1), lo, hi),
        lambda: jax.jit(lambda: jax.random.uniform(wrap(k0, k1), shape, jnp.float32, lo, hi))())
    lines.append(f"uniform {k0} {k1} {shape_str(shape)} {fbits(lo)} {fbits(hi)} {b64(r)}")
    return int(np.asarray(r).size)


# the default [0, 1) on every key and several shapes
n_uniform = 0
for i, (k0, k1) in enumerate(SAMPLE_KEYS):
    for shape in [(), (1,), (7,), (3, 5), (2, 3, 4)] + ([(1000,)] if i == 0 else []):
        n_uniform += uniform_case(k0, k1, shape, 0.0, 1.0)

MAX = float(np.finfo(np.float32).max)
TINY = float(np.finfo(np.float32).tiny)
BOUNDS = [
    (-3.0, 5.0), (-1.0, 1.0), (0.1, 0.7), (-123.456, 789.012), (1e-3, 1e3), (3.0, 1e7), (-5.0, -2.0),
    (-1e-3, -0.999999e-3),                             # negative, tiny range
    (1.0, 1.0000001), (100.0, 100.00001), (1e-6, 1.0000001e-6), (0.0, 1e-30), (-1e-30, 1e-30),
    (2.5, 2.5), (0.0, 0.0), (-7.0, -7.0),              # minval == maxval
    (5.0, -3.0), (0.0, -1.0),                          # maxval < minval: every sample is minval
    (-3e38, 3e38), (-MAX, MAX), (-1e38, 1e38), (0.0, MAX), (-MAX, 0.0), (1e30, 2e30),  # huge; inf range
    (0.0, 2e-37), (TINY, 2 * TINY), (-TINY, TINY),     # products and sums near the subnormal range (flushed)
    (0.0, 1e-38), (-1e-39, 1e-39), (1e-39, -1.0), (-1e-39, -1.0), (1e-39, 1.0), (1e-45, 3e-45),  # subnormal bounds
    (-0.0, 1.0), (-0.0, -1.0), (0.0, -0.0),            # signed zeros
]
for j, (lo, hi) in enumerate(BOUNDS):
    k0, k1 = SAMPLE_KEYS[j % len(SAMPLE_KEYS)]
    for shape in [(1,), (7,), (3, 5)]:
        n_uniform += uniform_case(k0, k1, shape, lo, hi)
    n_uniform += uniform_case(k0, k1, (257,) if j % 2 else (2, 129), lo, hi)
n_uniform += uniform_case(*SAMPLE_KEYS[1], (2049,), -3.0, 5.0)

# --- normal
n_normal = 0
for i, (k0, k1) in enumerate(SAMPLE_KEYS):
    for shape in [(), (1,), (2,), (7,), (3, 5), (2, 3, 4)] + ([(1000,)] if i % 2 == 0 else [(1001,)]):
        r = three_ways(
            f"normal({k0},{k1},{shape})",
            lambda: jax.random.normal(wrap(k0, k1), shape, jnp.float32),
            lambda: jax.jit(lambda k: jax.random.normal(k, shape, jnp.float32))(wrap(k0, k1)),
            lambda: jax.jit(lambda: jax.random.normal(wrap(k0, k1), shape, jnp.float32))())
        lines.append(f"normal {k0} {k1} {shape_str(shape)} {b64(r)}")
        n_normal += int(np.asarray(r).size)
k0, k1 = SAMPLE_KEYS[0]
r = jax.random.normal(wrap(k0, k1), (50, 41), jnp.float32)
if not same_bits(r, jax.jit(lambda k: jax.random.normal(k, (50, 41), jnp.float32))(wrap(k0, k1))):
    sys.exit("normal (50, 41): eager and jit differ")
lines.append(f"normal {k0} {k1} 50x41 {b64(r)}")
n_normal += int(np.asarray(r).size)

# --- erf_inv at the edges: next to +-1 (the w >= 5 branch), tiny, zero, +-1, outside [-1, 1]
xs = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1e-30, 2.0 ** -24, 0.9, 0.99, 0.996, 0.9966, 0.997, 1.5, -2.0, np.inf, -np.inf]
for k in range(1, 65):
    xs += [1 - k * 2.0 ** -24, -(1 - k * 2.0 ** -24)]
for k in range(0, 130, 3):
    xs += [2.0 ** -k, -(2.0 ** -k) * 1.5]
x = np.array(xs, dtype=np.float32)
x = np.concatenate([x, np.asarray(jax.random.uniform(jax.random.key(5), (500,), jnp.float32, -1.0, 1.0))])
y = jax.jit(lax.erf_inv)(x)
lines.append(f"erf_inv {b64(x)} {b64(y)}")


# --- single float32 operations at the edges of the subnormal range, compiled alone: XLA:CPU runs with FTZ and DAZ,
# and x86 decides tininess after rounding. a * b + c is contracted into one fused multiply-add, as in uniform.
TINY_F = np.finfo(np.float32).tiny


def fb(bits):
    return np.array(bits, dtype=np.uint32).view(np.float32)


OPS = {
    "add": (2, lambda a, b: a + b),
    "sub": (2, lambda a, b: a - b),
    "mul": (2, lambda a, b: a * b),
    "div": (2, lambda a, b: a / b),
    "fma": (3, lambda a, b, c: a * b + c),
    "max": (2, lambda a, b: jnp.maximum(a, b)),
}
SUB = fb(0x000AE398)  # 1e-39, subnormal
OPERANDS = {
    "add": [(SUB, 0.0), (-SUB, 1.0), (1.5 * TINY_F, -TINY_F), (-1.5 * TINY_F, TINY_F), (TINY_F, TINY_F), (1.0, 2.0),
            (np.inf, -np.inf)],
    "sub": [(1.5 * TINY_F, TINY_F), (TINY_F, SUB), (3.0, 0.5)],
    "mul": [(fb(0x3F7FFFFF), TINY_F),                      # (1 - 2^-24) 2^-126: tiny after rounding, flushed
            (np.float32(31 / 32), np.float32(1082401 * 2.0 ** -146)),  # (2^25 - 1) 2^-151 rounds up to 2^-126: kept
            (0.5, TINY_F), (-0.5, TINY_F), (SUB, 2.0), (1e20, 1e20), (0.0, np.inf), (3.0, 5.0)],
    "div": [(TINY_F, 2.0), (TINY_F, fb(0x3F800001)), (-TINY_F, 1.5), (SUB, 1.0), (1.0, 3.0), (0.0, 0.0), (1.0, 0.0)],
    "fma": [(0.5, TINY_F, 0.0), (fb(0x3F7FFFFF), TINY_F, 0.0), (np.float32(31 / 32), np.float32(1082401 * 2.0 ** -146), 0.0),
            (fb(0x3F7FFFFF), TINY_F, -0.0), (2.0 ** -70, 2.0 ** -70, -TINY_F), (TINY_F, 1.0, SUB), (0.0, np.inf, 1.0),
            (0.0, np.inf, -3e38), (1.0, 1.0, SUB)],
    "max": [(SUB, -1.0), (-SUB, -1.0), (0.0, -0.0), (-0.0, 0.0), (-0.0, -0.0), (SUB, 0.0), (-SUB, 0.0), (2.0, 3.0)],
}
rng = np.random.default_rng(0)
triples = rng.standard_normal((64, 3)).astype(np.float32)
OPERANDS["fma"] += [tuple(t) for t in triples]
for op, (arity, fn) in OPS.items():
    args = [np.array([float(np.float32(t[i])) for t in OPERANDS[op]], dtype=np.float32) for i in range(arity)]
    r = np.asarray(jax.jit(fn)(*args))
    if op == "fma":  # the contraction happened: on the random triples the results are the correctly rounded fma
        for k in range(len(r) - len(triples), len(r)):
            # x87 long double: a * b is exact; the sum is rounded to 64 bits, then to 24 (fine for these triples)
            a, b, c = (np.longdouble(args[i][k]) for i in range(3))
            if np.float32(a * b + c) != r[k]:
                sys.exit(f"a * b + c was not fused into one rounding for {args[0][k]}, {args[1][k]}, {args[2][k]}")
    for k in range(len(r)):
        operands = " ".join(format(int(np.asarray(args[i][k]).view(np.uint32)), "08x") for i in range(arity))
        lines.append(f"f32 {op} {operands} {format(int(r[k:k + 1].view(np.uint32)[0]), '08x')}")

# --- sweeps over all 2^23 mantissas: JAX's own sampler with its random bits replaced by m << 9 for each mantissa m.
# The bits are computed from the key inside the program (not a constant), so XLA compiles the same kernel as for
# real random bits.
import jax._src.random.core as random_core  # noqa: E402

real_random_bits = random_core._random_bits


def mantissa_bits(key, bit_width, shape):
    assert bit_width == 32
    start = jax.random.key_data(key)[1]
    m = lax.iota(np.uint32, math.prod(shape)) + start
    return lax.shift_left(m, np.uint32(9)).reshape(shape)


def sha(arr):
    return hashlib.sha256(np.asarray(arr).view(np.uint32).astype("<u4").tobytes()).hexdigest()


N_MANTISSAS = 1 << 23
random_core._random_bits = mantissa_bits
jax.clear_caches()
try:
    sweep_key = wrap(0, 0)
    lines.append(f"sweep_normal {sha(jax.random.normal(sweep_key, (N_MANTISSAS,), jnp.float32))}")
    SWEEP_BOUNDS = [(0.0, 1.0), (-3.0, 5.0), (1.0, 1.0000001), (-1e-3, 1e-3), (-3e38, 3e38), (0.0, 2e-37)]
    for lo, hi in SWEEP_BOUNDS:
        r = jax.random.uniform(sweep_key, (N_MANTISSAS,), jnp.float32, f32(lo), f32(hi))
        lines.append(f"sweep_uniform {fbits(lo)} {fbits(hi)} {sha(r)}")
finally:
    random_core._random_bits = real_random_bits
    jax.clear_caches()

header = [
    "# Golden values for dev.shardlings.random.PRNG (read by PRNGGoldenTest).",
    f"# Generated by framework/src/test/python/prng_golden.py with jax {jax.__version__}, jaxlib "
    f"{jax.lib.__version__ if hasattr(jax.lib, '__version__') else ''}, numpy {np.__version__}, on "
    f"{platform.machine()} CPU; see that script for the format and how to regenerate.",
    f"# {n_uniform} uniform and {n_normal} normal samples, plus exhaustive sweeps (as digests). Eager calls, jit with"
    " the key and bounds as arguments, and jit with them as constants gave the same bits for every record.",
]
os.makedirs(os.path.dirname(OUT), exist_ok=True)
with open(OUT, "w") as f:
    f.write("\n".join(header + lines) + "\n")
print(f"wrote {os.path.relpath(OUT)}: {len(lines)} records, {n_uniform} uniform, {n_normal} normal samples")
