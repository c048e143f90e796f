package dev.shardlings.spmd;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import org.junit.jupiter.api.Test;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.sharding.PartitionSpec.tuple;
import static dev.shardlings.spmd.ShardMap.shardMap;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * check_vma's error for an out spec that leaves out axes the output varies over, against the texts real JAX 0.10.2
 * printed for the same programs ({@code jax.jit(jax.shard_map(ident, mesh=Mesh(devices.reshape(...), names),
 * in_specs=..., out_specs=...))(x)} with {@code def ident(b): return b}, 8 CPU devices). With two or more axes
 * left out, JAX lists after "and not" only the left-out axes the value varies over, and "possibly varying over" also
 * holds the axes the out spec mentions; every set is in mesh order.
 */
class CheckVmaTextTest {

    static final Mesh XYZ = Mesh.makeMesh(new int[]{2, 2, 2}, "x", "y", "z");
    static final Mesh YXZ = Mesh.makeMesh(new int[]{2, 2, 2}, "y", "x", "z");
    static final Mesh ABCD = Mesh.makeMesh(new int[]{2, 2, 2, 1}, "a", "b", "c", "d");
    static final NDArray X3 = NDArray.arange(8).reshape(2, 2, 2);

    /** JAX's text up to the paragraph that differs per case; the mesh is the (2, 2, 2) one named as given. */
    static String head(String names) {
        return "shard_map applied to the function 'ident' was given out_specs which require replication which can't be"
                + " statically inferred given the mesh:\n\nThe mesh given has shape (2, 2, 2) with corresponding axis"
                + " names " + names + ".\n\n";
    }

    /** JAX's closing paragraph, verbatim. */
    static final String TAIL = "\n\nCheck if these output values are meant to be replicated over those mesh axes. If"
            + " not, consider revising the corresponding out_specs entries. If so, consider disabling the check by"
            + " passing the check_vma=False argument to `jax.shard_map`.";

    /** Asserts that the framework raises the JAX text {@code jax}, with the deliberate differences applied. */
    static void assertError(String jax, Mesh mesh, PartitionSpec in, PartitionSpec out, NDArray x) {
        assertEquals(JaxText.java(jax), assertThrows(IllegalArgumentException.class,
                () -> shardMap(b -> b, mesh, in, out).named("ident").apply(x)).getMessage());
    }

    @Test
    void varyingOverOneOfTwoLeftOutAxes() {
        assertError(head("('x', 'y', 'z')") + "out_specs is P('x',) which implies that the corresponding output value"
                + " is only varying across mesh axes {x} and not {y}, but it was inferred to be possibly varying over"
                + " {x,y}" + TAIL, XYZ, P(null, "y"), P("x"), X3);
        assertError(head("('x', 'y', 'z')") + "out_specs is P('x',) which implies that the corresponding output value"
                + " is only varying across mesh axes {x} and not {y}, but it was inferred to be possibly varying over"
                + " {x,y}" + TAIL, XYZ, P("x", "y"), P("x"), X3);
        assertError(head("('x', 'y', 'z')") + "out_specs is P() which implies that the corresponding output value is"
                + " only varying across mesh axes {} and not {x}, but it was inferred to be possibly varying over {x}"
                + TAIL, XYZ, P("x"), P(), X3);
    }

    @Test
    void varyingOverBothLeftOutAxes() {
        assertError(head("('x', 'y', 'z')") + "out_specs is P('x',) which implies that the corresponding output value"
                + " is only varying across mesh axes {x} and not {y,z}, but it was inferred to be possibly varying over"
                + " {x,y,z}" + TAIL, XYZ, P("x", "y", "z"), P("x"), X3);
        assertError(head("('x', 'y', 'z')") + "out_specs is P('x',) which implies that the corresponding output value"
                + " is only varying across mesh axes {x} and not {y,z}, but it was inferred to be possibly varying over"
                + " {x,y,z}" + TAIL, XYZ, P(null, "y", "z"), P("x"), X3);
        assertError(head("('x', 'y', 'z')") + "out_specs is P() which implies that the corresponding output value is"
                + " only varying across mesh axes {} and not {y,z}, but it was inferred to be possibly varying over"
                + " {y,z}" + TAIL, XYZ, P(null, "y", "z"), P(), X3);
        assertError(head("('x', 'y', 'z')") + "out_specs is P('y',) which implies that the corresponding output value"
                + " is only varying across mesh axes {y} and not {x,z}, but it was inferred to be possibly varying over"
                + " {x,y,z}" + TAIL, XYZ, P("x", "z"), P("y"), X3);
    }

    @Test
    void setsAreInMeshOrder() {
        assertError(head("('y', 'x', 'z')") + "out_specs is P('y',) which implies that the corresponding output value"
                + " is only varying across mesh axes {y} and not {x,z}, but it was inferred to be possibly varying over"
                + " {y,x,z}" + TAIL, YXZ, P("z", null, "x"), P("y"), X3);
        assertError(head("('y', 'x', 'z')") + "out_specs is P() which implies that the corresponding output value is"
                + " only varying across mesh axes {} and not {x,z}, but it was inferred to be possibly varying over"
                + " {x,z}" + TAIL, YXZ, P("z", null, "x"), P(), X3);
        assertError(head("('y', 'x', 'z')") + "out_specs is P(None, 'x') which implies that the corresponding output"
                + " value is only varying across mesh axes {x} and not {z}, but it was inferred to be possibly varying"
                + " over {x,z}" + TAIL, YXZ, P("z", null, null), P(null, "x"), X3);
    }

    @Test
    void oneLeftOutAxisUsesTheReplicatedForm() {
        assertError(head("('y', 'x', 'z')") + "out_specs is P(('z', 'y'),) which implies that the corresponding"
                + " output value is replicated across mesh axis 'x', but could not infer replication over any axes"
                + TAIL, YXZ, P("z", null, "x"), P(tuple("z", "y")), X3);
        assertError(head("('y', 'x', 'z')") + "out_specs is P('z', 'y') which implies that the corresponding output"
                + " value is replicated across mesh axis 'x', but could not infer replication over any axes" + TAIL, YXZ, P("z", null, "x"), P("z", "y"), X3);
        // Mentioning exactly the axes the value varies over is fine.
        assertEquals(8, shardMap(b -> b, YXZ, P("z", null, "x"), P("z", "x")).apply(X3).gather().size());
    }

    @Test
    void aSizeOneAxisCountsAsLeftOut() {
        String text = "shard_map applied to the function 'ident' was given out_specs which require replication which"
                + " can't be statically inferred given the mesh:\n\nThe mesh given has shape (2, 2, 2, 1) with"
                + " corresponding axis names ('a', 'b', 'c', 'd').\n\n";
        NDArray x = NDArray.arange(8).reshape(2, 4);
        assertError(text + "out_specs is P('a',) which implies that the corresponding output value is only varying"
                + " across mesh axes {a} and not {c}, but it was inferred to be possibly varying over {a,c}" + TAIL, ABCD, P("c", null), P("a"), x);
        assertError(text + "out_specs is P(('b', 'a'),) which implies that the corresponding output value is only"
                + " varying across mesh axes {a,b} and not {c}, but it was inferred to be possibly varying over {a,b,c}"
                + TAIL, ABCD, P("c", "b"), P(tuple("b", "a")), x);
    }
}
