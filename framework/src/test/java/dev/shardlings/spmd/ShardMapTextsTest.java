package dev.shardlings.spmd;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.sharding.PartitionSpec.tuple;
import static dev.shardlings.spmd.ShardMap.shardMap;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * shardMap's error texts against the texts JAX 0.10.2 printed for the same programs ({@code jax.jit(jax.shard_map(f,
 * mesh=Mesh(devices.reshape(...), names), in_specs=..., out_specs=...))(...)}, 8 CPU devices,
 * {@code PYTHONHASHSEED=0}). A Java lambda has no parameter names, so f is a Python callable whose parameters JAX
 * cannot bind by name ({@code __signature__ = inspect.Signature([])}, {@code __name__ = '<lambda>'}): JAX then
 * leaves out its ", where args[0] is bound to <lambda>'s parameter 'b'," clause, as the framework always does.
 * In JAX a single spec is written {@code in_specs=P(...)} and several {@code in_specs=(P(...), P(...))}; the
 * second prints keys ({@code in_specs[1]}), as a Java list of specs does here.
 */
class ShardMapTextsTest {

    static final Mesh I4 = Mesh.makeMesh(new int[]{4}, "i");
    static final Mesh XY = Mesh.makeMesh(new int[]{4, 2}, "x", "y");
    static final Mesh XYZ = Mesh.makeMesh(new int[]{2, 2, 2}, "x", "y", "z");

    static void assertJaxText(String jax, Executable call) {
        assertEquals(JaxText.java(jax), assertThrows(IllegalArgumentException.class, call).getMessage());
    }

    static ShardMap map(ShardMap.DeviceFunction f, Mesh mesh, List<PartitionSpec> in, List<PartitionSpec> out) {
        return shardMap(f, mesh, in, out);
    }

    static final String INDIVISIBLE = "shard_map applied to the function '<lambda>' was given argument arrays with"
            + " axis sizes that are not evenly divisible by the corresponding mesh axis sizes:\n\n";
    static final String INDIVISIBLE_END = "\n\nArray arguments' axis sizes must be evenly divisible by the mesh axis or"
            + " axes indicated by the corresponding elements of the argument's in_specs entry. Consider checking that"
            + " in_specs are correct, and if so consider changing the mesh axis sizes or else padding the input and"
            + " adapting '<lambda>' appropriately.";

    @Test
    void indivisibleArguments() {
        assertJaxText(INDIVISIBLE + "The mesh given has shape (4,) with corresponding axis names ('i',).\n\nthe passed"
                + " args[0] of shape int32[6] corresponds to in_specs of value P('i',), which maps array axis 0 (of size"
                + " 6) to mesh axis 'i' (of size 4), but 4 does not evenly divide 6" + INDIVISIBLE_END,
                () -> shardMap(b -> b, I4, P("i"), P("i")).apply(NDArray.arange(6)));
        assertJaxText(INDIVISIBLE + "The mesh given has shape (4, 2) with corresponding axis names ('x', 'y').\n\nthe"
                + " passed args[0] of shape int32[12] corresponds to in_specs of value P(('x', 'y'),), which maps array"
                + " axis 0 (of size 12) to mesh axes ('x', 'y') (of total size 8), but 8 does not evenly divide 12"
                + INDIVISIBLE_END,
                () -> shardMap(b -> b, XY, P(tuple("x", "y")), P(tuple("x", "y"))).apply(NDArray.arange(12)));
        // Several specs: keys. A sharded argument is checked the same way as a whole one.
        assertJaxText(INDIVISIBLE + "The mesh given has shape (4,) with corresponding axis names ('i',).\n\nthe passed"
                + " args[1] of shape int32[2,6] corresponds to in_specs[1] of value P(None, 'i'), which maps array axis"
                + " 1 (of size 6) to mesh axis 'i' (of size 4), but 4 does not evenly divide 6" + INDIVISIBLE_END,
                () -> map(b -> List.of(b.get(0)), I4, List.of(P("i"), P(null, "i")), List.of(P("i")))
                        .call(ShardedArray.devicePut(NDArray.arange(8), I4, P("i")),
                                ShardedArray.devicePut(NDArray.arange(12).reshape(2, 6), I4, P())));
    }

    @Test
    void everyIndivisibleDimensionIsABullet() {
        assertJaxText(INDIVISIBLE + "The mesh given has shape (4,) with corresponding axis names ('i',).\n\n* the"
                + " passed args[0] of shape int32[6] corresponds to in_specs[0] of value P('i',), which maps array axis"
                + " 0 (of size 6) to mesh axis 'i' (of size 4), but 4 does not evenly divide 6\n\n* the passed args[1]"
                + " of shape int32[6] corresponds to in_specs[1] of value P('i',), which maps array axis 0 (of size 6)"
                + " to mesh axis 'i' (of size 4), but 4 does not evenly divide 6" + INDIVISIBLE_END,
                () -> shardMap((a, b) -> a, I4, P("i"), P("i"), P("i"))
                        .apply(ShardedArray.devicePut(NDArray.arange(6), I4, P()),
                                ShardedArray.devicePut(NDArray.arange(6), I4, P())));
        assertJaxText(INDIVISIBLE + "The mesh given has shape (4, 2) with corresponding axis names ('x', 'y').\n\n* the"
                + " passed args[0] of shape int32[5,3] corresponds to in_specs of value P('x', 'y'), which maps array"
                + " axis 0 (of size 5) to mesh axis 'x' (of size 4), but 4 does not evenly divide 5\n\n* the passed"
                + " args[0] of shape int32[5,3] corresponds to in_specs of value P('x', 'y'), which maps array axis 1"
                + " (of size 3) to mesh axis 'y' (of size 2), but 2 does not evenly divide 3" + INDIVISIBLE_END,
                () -> shardMap(b -> b, XY, P("x", "y"), P("x", "y")).apply(NDArray.arange(15).reshape(5, 3)));
    }

    static final String IN_TOO_LONG = "shard_map applied to the function '<lambda>' was given an in_specs entry which"
            + " is too long to be compatible with the corresponding input value from the function:\n\n";
    static final String IN_TOO_LONG_END = "\n\nEntries in in_specs must be of length no greater than the number of"
            + " axes in the corresponding input value.\n\nEither revise the spec to be shorter, or modify '<lambda>' so"
            + " that its inputs have sufficient rank.";

    @Test
    void inSpecsLongerThanTheArgument() {
        assertJaxText(IN_TOO_LONG + "in_specs is P('i', None) which has length 2, but the passed args[0] has shape"
                + " int32[8], which has rank 1 (and 1 < 2)" + IN_TOO_LONG_END,
                () -> shardMap(b -> b, I4, P("i", null), P("i")).apply(NDArray.arange(8)));
        assertJaxText(IN_TOO_LONG + "in_specs is P('i',) which has length 1, but the passed args[0] has shape int32[],"
                + " which has rank 0 (and 0 < 1)" + IN_TOO_LONG_END + "\n\nFor scalar values (rank 0), consider using"
                + " an in_specs entry of `P()`, where `P = jax.sharding.PartitionSpec`.",
                () -> shardMap(b -> b, I4, P("i"), P()).apply(NDArray.scalar(3)));
        // The rank check covers every argument before any divisibility check (args[0] does not divide by 4).
        assertJaxText(IN_TOO_LONG + "in_specs[1] is P('i', None) which has length 2, but the passed args[1] has shape"
                + " int32[8], which has rank 1 (and 1 < 2)" + IN_TOO_LONG_END,
                () -> shardMap((a, b) -> a, I4, P("i"), P("i", null), P("i"))
                        .apply(ShardedArray.devicePut(NDArray.arange(6), I4, P()),
                                ShardedArray.devicePut(NDArray.arange(8), I4, P())));
    }

    static final String OUT_TOO_LONG = "shard_map applied to the function '<lambda>' was given an out_specs entry"
            + " which is too long to be compatible with the corresponding output value from the function:\n\n";
    static final String OUT_TOO_LONG_END = "\n\nEntries in out_specs must be of length no greater than the number of"
            + " axes in the corresponding output value.\n\nEither revise the spec to be shorter, or modify '<lambda>'"
            + " so that its outputs have sufficient rank.";
    static final String SCALAR_OUT = "\n\nFor scalar values (rank 0), consider using an out_specs entry of `P()`,"
            + " where `P = jax.sharding.PartitionSpec`. In particular, for rank 0 outputs which are not constant over"
            + " the mesh, add at least one (singleton) axis to them so that they can be concatenated using out_specs.";

    @Test
    void outSpecsLongerThanTheOutput() {
        assertJaxText(OUT_TOO_LONG + "out_specs is P('i',) which has length 1, but <lambda>(*args) has shape"
                + " int32[]{V:i}, which has rank 0 (and 0 < 1)" + OUT_TOO_LONG_END + SCALAR_OUT,
                () -> shardMap(b -> b.sum(), I4, P("i"), P("i")).apply(NDArray.arange(8)));
        assertJaxText(OUT_TOO_LONG + "out_specs is P('i', None) which has length 2, but <lambda>(*args) has shape"
                + " int32[2]{V:i}, which has rank 1 (and 1 < 2)" + OUT_TOO_LONG_END,
                () -> shardMap(b -> b, I4, P("i"), P("i", null)).apply(NDArray.arange(8)));
        // A constant varies over the spec's axes once JAX has cast it to them.
        NDArray seven = NDArray.scalar(7);
        assertJaxText(OUT_TOO_LONG + "out_specs is P('i',) which has length 1, but <lambda>(*args) has shape"
                + " int32[]{V:i}, which has rank 0 (and 0 < 1)" + OUT_TOO_LONG_END + SCALAR_OUT,
                () -> shardMap(b -> seven, I4, P("i"), P("i")).apply(NDArray.arange(8)));
        assertJaxText(OUT_TOO_LONG + "out_specs is P('y',) which has length 1, but <lambda>(*args) has shape"
                + " int32[]{V:(x,y)}, which has rank 0 (and 0 < 1)" + OUT_TOO_LONG_END + SCALAR_OUT,
                () -> shardMap(b -> b.sum(), XY, P("x"), P("y")).apply(NDArray.arange(8)));
        // Without check_vma values carry no varying axes.
        assertJaxText(OUT_TOO_LONG + "out_specs is P('i',) which has length 1, but <lambda>(*args) has shape int32[],"
                + " which has rank 0 (and 0 < 1)" + OUT_TOO_LONG_END + SCALAR_OUT,
                () -> shardMap(b -> b.sum(), I4, P("i"), P("i")).checkVma(false).apply(NDArray.arange(8)));
        // Several out specs: keys on the spec and on the output; the rank check comes before check_vma.
        assertJaxText(OUT_TOO_LONG + "out_specs[1] is P('i',) which has length 1, but <lambda>(*args)[1] has shape"
                + " int32[]{V:i}, which has rank 0 (and 0 < 1)" + OUT_TOO_LONG_END + SCALAR_OUT,
                () -> map(b -> List.of(b.get(0), b.get(0).sum()), I4, List.of(P("i")), List.of(P("i"), P("i")))
                        .callOnWhole(NDArray.arange(8)));
        assertJaxText(OUT_TOO_LONG + "out_specs[0] is P('i',) which has length 1, but <lambda>(*args)[0] has shape"
                + " int32[]{V:i}, which has rank 0 (and 0 < 1)" + OUT_TOO_LONG_END + SCALAR_OUT,
                () -> map(b -> List.of(b.get(0).sum(), b.get(0)), I4, List.of(P("i")), List.of(P("i"), P()))
                        .callOnWhole(NDArray.arange(8)));
    }

    static final String VMA = "shard_map applied to the function '<lambda>' was given out_specs which require"
            + " replication which can't be statically inferred given the mesh:\n\n";
    static final String VMA_END = "\n\nCheck if these output values are meant to be replicated over those mesh axes."
            + " If not, consider revising the corresponding out_specs entries. If so, consider disabling the check by"
            + " passing the check_vma=False argument to `jax.shard_map`.";

    @Test
    void checkVmaWithSeveralOutputs() {
        assertJaxText(VMA + "The mesh given has shape (4,) with corresponding axis names ('i',).\n\nout_specs[1] is P()"
                + " which implies that the corresponding output value is replicated across mesh axis 'i', but could not"
                + " infer replication over any axes" + VMA_END,
                () -> map(b -> List.of(b.get(0), b.get(0)), I4, List.of(P("i")), List.of(P("i"), P()))
                        .callOnWhole(NDArray.arange(8)));
        assertJaxText(VMA + "The mesh given has shape (2, 2, 2) with corresponding axis names ('x', 'y', 'z').\n\n"
                + "out_specs[1] is P() which implies that the corresponding output value is only varying across mesh"
                + " axes {} and not {x,y}, but it was inferred to be possibly varying over {x,y}" + VMA_END,
                () -> map(b -> List.of(b.get(0), b.get(0)), XYZ, List.of(P("x", "y")), List.of(P("x", "y"), P()))
                        .callOnWhole(NDArray.arange(8).reshape(2, 4)));
        assertJaxText(VMA + "The mesh given has shape (4,) with corresponding axis names ('i',).\n\n* out_specs[0] is"
                + " P() which implies that the corresponding output value is replicated across mesh axis 'i', but could"
                + " not infer replication over any axes\n\n* out_specs[1] is P() which implies that the corresponding"
                + " output value is replicated across mesh axis 'i', but could not infer replication over any axes"
                + VMA_END,
                () -> map(b -> List.of(b.get(0), b.get(0)), I4, List.of(P("i")), List.of(P(), P()))
                        .callOnWhole(NDArray.arange(8)));
    }

    @Test
    void countsOfArgumentsAndOutputs() {
        assertJaxText("pytree structure error: different lengths of tuple at key path\n    shard_map in_specs\nAt that"
                + " key path, the prefix pytree shard_map in_specs has a subtree of type tuple of length 1, but the full"
                + " pytree has a subtree of the same type but of length 2.",
                () -> map(b -> b, I4, List.of(P("i")), List.of(P("i"))).callOnWhole(NDArray.arange(16),
                        NDArray.arange(16)));
        assertJaxText("pytree structure error: different lengths of tuple at key path\n    shard_map in_specs\nAt that"
                + " key path, the prefix pytree shard_map in_specs has a subtree of type tuple of length 2, but the full"
                + " pytree has a subtree of the same type but of length 1.",
                () -> map(b -> List.of(b.get(0)), I4, List.of(P("i"), P("i")), List.of(P("i")))
                        .call(ShardedArray.devicePut(NDArray.arange(16), I4, P("i"))));
        assertJaxText("pytree structure error: different lengths of tuple at key path\n    shard_map out_specs\nAt that"
                + " key path, the prefix pytree shard_map out_specs has a subtree of type tuple of length 1, but the"
                + " full pytree has a subtree of the same type but of length 2.",
                () -> map(b -> List.of(b.get(0), b.get(0)), I4, List.of(P("i")), List.of(P("i")))
                        .callOnWhole(NDArray.arange(16)));
        assertJaxText("pytree structure error: different lengths of tuple at key path\n    shard_map out_specs\nAt that"
                + " key path, the prefix pytree shard_map out_specs has a subtree of type tuple of length 2, but the"
                + " full pytree has a subtree of the same type but of length 1.",
                () -> map(b -> List.of(b.get(0)), I4, List.of(P("i")), List.of(P("i"), P("i")))
                        .callOnWhole(NDArray.arange(8)));
    }

    @Test
    void anAxisTheMeshDoesNotHave() {
        assertJaxText("shard_map in_specs argument must refer to an axis marked as manual (frozenset({'i'})), but:\n\n"
                + "  in_specs refers to 'z'\n\nCheck the in_specs values passed to shard_map.",
                () -> shardMap(b -> b, I4, P("z"), P("i")));
        // JAX prints a frozenset in hash order ({'y', 'x'} with PYTHONHASHSEED=0); the framework in mesh order.
        assertJaxText("shard_map out_specs argument must refer to an axis marked as manual (frozenset({'x', 'y', 'z'})),"
                + " but:\n\n  out_specs refers to 'q'\n\nCheck the out_specs values passed to shard_map.",
                () -> shardMap(b -> b, XYZ, P("x"), P("q")));
    }
}
