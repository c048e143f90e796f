package dev.shardlings.primitive;

import dev.shardlings.sharding.Mesh;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** The checks JAX makes around every typing rule, with their texts. Package-private. */
final class Typing {
    private Typing() {
    }

    /**
     * The mesh of the operands (null when none is on a mesh). Operands on other devices never get here: eager
     * calls are refused before typing with JAX's "Received incompatible devices" (spmd's DeviceAssignment), and a
     * jitted function's arguments by jit. What remains is the same devices under other axis names, sizes or types.
     *
     * @throws ShardingTypeError when two operands live on different meshes: JAX's text, the meshes printed as
     *                           JAX prints an {@code AbstractMesh}
     */
    static Mesh meshOf(Primitive p, List<ArrayType> operands) {
        Mesh mesh = p instanceof Full f ? f.mesh() : null;
        for (ArrayType t : operands) {
            if (t.mesh() == null) {
                continue;
            }
            if (mesh != null && !mesh.equals(t.mesh())) {
                throw new ShardingTypeError("Mesh for all inputs should be equal. Got one mesh: "
                        + Specs.abstractMesh(mesh) + " and another mesh: " + Specs.abstractMesh(t.mesh()));
            }
            mesh = t.mesh();
        }
        return mesh;
    }

    /** JAX's DuplicateSpecError, as {@code standard_abstract_eval} reports it. */
    static void checkNoDuplicate(Primitive p, List<ArrayType> operands, Primitive.Shaped out,
                                 List<List<String>> dims) {
        if (Specs.duplicate(dims) == null) {
            return;
        }
        String ins = operands.stream().map(ArrayType::shortString).collect(Collectors.joining(", "));
        String res = new ArrayType(out.dtype(), out.shape(), dims, null).shortString();
        throw new ShardingTypeError(p.name() + " operation with inputs: " + ins + " produces an illegally sharded"
                + " result: " + res);
    }

    /** Keeps each mesh axis on the first dimension that names it (Auto layouts are never illegal). */
    static List<List<String>> dropRepeatedAxes(List<List<String>> dims) {
        Set<String> seen = new HashSet<>();
        List<List<String>> out = new ArrayList<>(dims.size());
        for (List<String> e : dims) {
            List<String> kept = new ArrayList<>();
            for (String a : e) {
                if (seen.add(a)) {
                    kept.add(a);
                }
            }
            out.add(List.copyOf(kept));
        }
        return List.copyOf(out);
    }

    /** The block shape of a global shape under a layout. */
    static int[] localShape(List<Integer> shape, List<List<String>> dims, Mesh mesh) {
        int[] out = new int[shape.size()];
        for (int d = 0; d < out.length; d++) {
            int parts = mesh == null ? 1 : Specs.parts(mesh, dims.get(d));
            out[d] = shape.get(d) / parts;
        }
        return out;
    }

    static void arity(Primitive p, List<ArrayType> operands, int n) {
        if (operands.size() != n) {
            throw new IllegalArgumentException(p.name() + " takes " + n + " operand" + (n == 1 ? "" : "s") + ", got "
                    + operands.size());
        }
    }
}
