package dev.shardlings.primitive;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;

import java.util.List;
import java.util.Objects;

/**
 * {@code jnp.full(shape, value, dtype, out_sharding=…)} (and {@code zeros}, {@code ones}): a new array, created
 * directly in its layout — each device fills its own block, nothing moves.
 *
 * @param shape       global shape
 * @param dtype       element type
 * @param value       the fill value (converted to dtype)
 * @param mesh        the mesh it is created on, or null for an array on no mesh
 * @param outSharding its layout on that mesh (ignored without one)
 */
public record Full(List<Integer> shape, DType dtype, double value, Mesh mesh, PartitionSpec outSharding)
        implements Primitive {

    /** @throws NullPointerException if shape, dtype or outSharding is null */
    public Full {
        shape = List.copyOf(shape);
        Objects.requireNonNull(dtype, "dtype");
        Objects.requireNonNull(outSharding, "outSharding");
    }

    /**
     * What JAX checks when an array is created eagerly with a {@code NamedSharding} out_sharding
     * ({@code jnp.zeros(shape, out_sharding=NamedSharding(mesh, spec))}): in a mesh context ({@code jax.set_mesh})
     * the context's mesh must be the sharding's (as abstract meshes: axis names, sizes and types); with none, a
     * mesh of several devices with Explicit axes is refused, because the creation then runs on one device and its
     * type names the mesh. (On a mesh of Auto axes alone, where JAX places the result on a single device, the
     * framework creates it replicated on the mesh as asked.)
     *
     * @param api     the function as JAX names it in its text: {@code jnp.zeros}, {@code full}
     * @param context the mesh in context, if any
     * @throws IllegalArgumentException with JAX's text: "Context mesh AbstractMesh(…) should match the mesh of
     *                                  sharding AbstractMesh(…) passed to jnp.zeros." or "Length of device assignment
     *                                  1 is not equal to the size of the mesh 4 of aval f32[8@X,4]({Explicit: ('X',
     *                                  'Y')}). Please enter your `jit` into a mesh context via `jax.set_mesh`."
     */
    public static void checkCreationContext(DType dtype, int[] shape, NamedSharding sharding,
                                            java.util.Optional<Mesh> context, String api) {
        Mesh mesh = sharding.mesh();
        if (context.isPresent()) {
            Mesh c = context.get();
            if (!c.axisNames().equals(mesh.axisNames()) || !c.axisSizes().equals(mesh.axisSizes())
                    || !c.axisTypes().equals(mesh.axisTypes())) {
                throw new IllegalArgumentException("Context mesh " + Specs.abstractMesh(c) + " should match the mesh"
                        + " of sharding " + Specs.abstractMesh(mesh) + " passed to " + api + ".");
            }
            return;
        }
        List<String> explicit = new java.util.ArrayList<>();
        for (int i = 0; i < mesh.rank(); i++) {
            if (mesh.axisTypes().get(i) == AxisType.EXPLICIT) {
                explicit.add("'" + mesh.axisNames().get(i) + "'");
            }
        }
        if (mesh.size() > 1 && !explicit.isEmpty()) {
            throw new IllegalArgumentException("Length of device assignment 1 is not equal to the size of the mesh "
                    + mesh.size() + " of aval " + ArrayType.of(dtype, shape, sharding).shortString() + "({Explicit: ("
                    + String.join(", ", explicit) + (explicit.size() == 1 ? ",)" : ")") + "}). Please enter your"
                    + " `jit` into a mesh context via `jax.set_mesh`.");
        }
    }

    @Override
    public String name() {
        return "broadcast_in_dim";
    }

    @Override
    public Shaped abstractEval(List<ArrayType> operands) {
        Typing.arity(this, operands, 0);
        for (int s : shape) {
            if (s < 0) {
                throw new IllegalArgumentException("negative dimensions are not allowed, got shape "
                        + Specs.ints(shape));
            }
        }
        return new Shaped(dtype, shape);
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh m) {
        outSharding.validate(m);
        return Specs.typed(outSharding, shape.size(), m);
    }

    @Override
    public List<List<String>> autoRule(List<ArrayType> operands, Shaped out, Mesh m) {
        outSharding.validate(m);
        return Specs.typed(outSharding, shape.size(), null);
    }

    /** A constant: no operands. */
    @Override
    public <T> List<T> vjp(Vjp<T> v) {
        return Vjp.cotangents(0);
    }

    @Override
    public NDArray apply(List<NDArray> operands) {
        int[] s = shape.stream().mapToInt(Integer::intValue).toArray();
        if (dtype == DType.BFLOAT16) {
            return NDArray.full((float) value, s).astype(dtype); // the fill rounded as jnp.full rounds it
        }
        return dtype == DType.FLOAT32 ? NDArray.full((float) value, s) : NDArray.full((int) value, s);
    }

    @Override
    public Partitioning partition(List<ArrayType> operands, ArrayType out) {
        int[] local = Typing.localShape(shape, out.dims(), out.mesh());
        return Partitioning.local(List.of(), new Full(ArrayType.boxed(local), dtype, value, null, PartitionSpec.P()),
                out.dims());
    }
}
