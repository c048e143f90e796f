package dev.shardlings.jit;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The partitioner as a whole, on Auto meshes of 1–16 devices with 1–3 axes: a matmul followed by a chain of
 * elementwise operations, transposes and reductions, with random operand layouts and a random out sharding (or
 * none). Whatever layouts propagation chooses and whatever collectives it inserts, the values equal the program
 * on whole arrays and the result has the out sharding asked for.
 */
class JitProperties {

    private static final String[] NAMES = {"a", "b", "c"};

    /** One step of the chain after the matmul. */
    enum Step {
        SIN, TIMES_TWO, EXP_OF_TANH, TRANSPOSE, ADD_SELF, SUM_ROWS_KEEP, RELU_BY_WHERE, LEAKY_BY_WHERE;

        ShardedArray apply(ShardedArray x) {
            return switch (this) {
                case SIN -> x.sin();
                case TIMES_TWO -> x.mul(2.0);
                case EXP_OF_TANH -> x.tanh().exp();
                case TRANSPOSE -> x.transpose(1, 0);
                case ADD_SELF -> x.add(x.sin());
                case SUM_ROWS_KEEP -> x.sum(0).reshape(1, x.shape()[1]).broadcastTo(x.shape());
                case RELU_BY_WHERE -> ShardedArray.where(x.greater(0.0), x, 0.0);
                case LEAKY_BY_WHERE -> ShardedArray.where(x.lessEqual(0.0), x.mul(0.5), x);
            };
        }

        NDArray apply(NDArray x) {
            return switch (this) {
                case SIN -> x.sin();
                case TIMES_TWO -> x.mul(2f);
                case EXP_OF_TANH -> x.tanh().exp();
                case TRANSPOSE -> x.transpose(1, 0);
                case ADD_SELF -> x.add(x.sin());
                case SUM_ROWS_KEEP -> x.sum(0).reshape(1, x.shape()[1]).broadcastTo(x.shape());
                case RELU_BY_WHERE -> NDArray.where(x.greater(0.0), x, 0.0);
                case LEAKY_BY_WHERE -> NDArray.where(x.lessEqual(0.0), x.mul(0.5f), x);
            };
        }
    }

    /**
     * @param sizes mesh axis sizes
     * @param specs layouts of A and B and the out sharding (null: none), each a list of per-dimension axis lists
     * @param steps the chain after A @ B
     * @param seed  values
     */
    record Setup(List<Integer> sizes, List<List<List<String>>> specs, List<Step> steps, long seed) {
        Mesh mesh() {
            AxisType[] types = new AxisType[sizes.size()];
            Arrays.fill(types, AxisType.AUTO);
            return Mesh.makeMesh(sizes.stream().mapToInt(Integer::intValue).toArray(),
                    Arrays.copyOf(NAMES, sizes.size()), types);
        }

        static PartitionSpec spec(List<List<String>> dims) {
            Object[] entries = new Object[dims.size()];
            for (int d = 0; d < dims.size(); d++) {
                List<String> e = dims.get(d);
                entries[d] = e.isEmpty() ? null : e.size() == 1 ? e.get(0) : PartitionSpec.tuple(e.toArray(String[]::new));
            }
            return PartitionSpec.P(entries);
        }
    }

    /** A layout of a rank-2 array: each axis on dimension 0, dimension 1 or neither, in a random order. */
    private static Arbitrary<List<List<String>>> layouts(int axes) {
        return Arbitraries.integers().between(0, 2).list().ofSize(axes)
                .flatMap(where -> Arbitraries.shuffle(Arrays.asList(NAMES).subList(0, axes)).map(order -> {
                    List<List<String>> dims = List.of(new ArrayList<>(), new ArrayList<>());
                    for (String name : order) {
                        int w = where.get(Arrays.asList(NAMES).indexOf(name));
                        if (w < 2) {
                            dims.get(w).add(name);
                        }
                    }
                    return dims.stream().map(List::copyOf).toList();
                }));
    }

    @Provide
    Arbitrary<Setup> setups() {
        Arbitrary<List<Integer>> sizes = Arbitraries.integers().between(1, 3).flatMap(rank ->
                Arbitraries.of(1, 2, 2, 4).list().ofSize(rank).filter(l -> l.stream().reduce(1, (x, y) -> x * y) <= 16));
        return sizes.flatMap(sz -> {
            Arbitrary<List<List<String>>> layout = layouts(sz.size());
            Arbitrary<List<List<String>>> out = Arbitraries.oneOf(layout, Arbitraries.just(null));
            Arbitrary<List<List<List<String>>>> specs = Combinators.combine(layout, layout, out)
                    .as((a, b, o) -> Collections.unmodifiableList(Arrays.asList(a, b, o)));
            Arbitrary<List<Step>> steps = Arbitraries.of(Step.class).list().ofMaxSize(3);
            return Combinators.combine(specs, steps, Arbitraries.longs()).as((s, st, seed) -> new Setup(sz, s, st, seed));
        });
    }

    private static NDArray values(Random r, int... shape) {
        float[] v = new float[shape[0] * shape[1]];
        for (int i = 0; i < v.length; i++) {
            v[i] = (r.nextInt(17) - 8) / 8f;
        }
        return NDArray.fromFloats(v, shape);
    }

    @Property(tries = 300, seed = "1313", edgeCases = EdgeCasesMode.NONE)
    void jittedChainsEqualTheWholeArrayProgramAndHonourTheOutSharding(@ForAll("setups") Setup s) {
        Mesh mesh = s.mesh();
        Random r = new Random(s.seed());
        // 16 divides every dimension, so any layout of axes whose sizes multiply to at most 16 divides
        NDArray a = values(r, 16, 32);
        NDArray b = values(r, 32, 16);
        ShardedArray as = ShardedArray.devicePut(a, new NamedSharding(mesh, Setup.spec(s.specs().get(0))));
        ShardedArray bs = ShardedArray.devicePut(b, new NamedSharding(mesh, Setup.spec(s.specs().get(1))));
        Jitted chain = Jit.jit((x, y) -> {
            ShardedArray v = x.matmul(y);
            for (Step st : s.steps()) {
                v = st.apply(v);
            }
            return v;
        });
        List<List<String>> out = s.specs().get(2);
        Jitted f = out == null ? chain : chain.outShardings(Setup.spec(out));
        NDArray expected = a.matmul(b);
        for (Step st : s.steps()) {
            expected = st.apply(expected);
        }
        ShardedArray got = f.call(as, bs).get(0);
        NDArray whole = got.gather();
        NDArray want = expected;
        assertTrue(whole.allclose(want, 1e-4, 1e-3), () -> s + "\n" + f.lower(as, bs).asText()
                + "\nexpected " + want + "\ngot " + whole);
        if (out != null) {
            assertEquals(Setup.spec(out), got.spec(), s::toString);
        }
    }
}
