package dev.shardlings.jit;

import dev.shardlings.array.DType;
import dev.shardlings.primitive.ArrayType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.DataMovement;
import dev.shardlings.spmd.DeviceProgram;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The dtype and local (per-device) shape of every register of a {@link DeviceProgram}. Immutable once made. */
final class LocalTypes {
    private final Map<Integer, int[]> shapes = new HashMap<>();
    private final Map<Integer, DType> dtypes = new HashMap<>();

    private LocalTypes() {
    }

    /**
     * @param args      the arguments' layouts (registers 0, 1, …)
     * @param argShapes their local shapes
     */
    static LocalTypes of(DeviceProgram program, List<ArrayType> args, List<int[]> argShapes, Mesh mesh) {
        LocalTypes t = new LocalTypes();
        for (int k = 0; k < args.size(); k++) {
            t.put(k, args.get(k).dtype(), argShapes.get(k));
        }
        for (DeviceProgram.Instruction ins : program.instructions()) {
            if (ins instanceof DeviceProgram.Apply a) {
                t.put(a.output(), a.localType().dtype(), a.localType().shapeArray());
            } else if (ins instanceof DeviceProgram.Region g) {
                for (int j = 0; j < g.outputs().size(); j++) {
                    ArrayType l = g.localTypes().get(j);
                    t.put(g.outputs().get(j), l.dtype(), l.shapeArray());
                }
            } else {
                DeviceProgram.Move m = (DeviceProgram.Move) ins;
                int[] s = t.shape(m.input());
                for (DataMovement step : m.steps()) {
                    s = step.outShape(s, mesh);
                }
                t.put(m.output(), t.dtype(m.input()), s);
            }
        }
        return t;
    }

    private void put(int register, DType dtype, int[] shape) {
        dtypes.put(register, dtype);
        shapes.put(register, shape);
    }

    /** The register's local shape (a copy). */
    int[] shape(int register) {
        return shapes.get(register).clone();
    }

    DType dtype(int register) {
        return dtypes.get(register);
    }
}
