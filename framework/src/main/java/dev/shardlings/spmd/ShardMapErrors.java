package dev.shardlings.spmd;

import dev.shardlings.array.DType;
import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The checks shardMap makes on its specs, arguments and outputs, each beside the text it raises. Texts that JAX has
 * are JAX 0.10.2's ({@code jax/_src/shard_map.py}; jax-semantics.md §5.5), with the differences listed in
 * docs/framework.md, "Deliberate differences from JAX"; the others are the framework's own, for mistakes Java allows
 * and Python does not (a null result, a different number of outputs per device).
 */
final class ShardMapErrors {

    private ShardMapErrors() {
    }

    // -------------------------------------------------------------------------------------- when it is built

    /**
     * Every axis a spec names must be a mesh axis, each named once.
     *
     * @param which "in_specs" or "out_specs"
     * @throws IllegalArgumentException JAX's text for an unknown axis; PartitionSpec's DuplicateSpecError text for
     *                                  an axis named twice
     */
    static void checkSpecAxes(Mesh mesh, PartitionSpec spec, String which) {
        for (String axis : spec.mentionedAxes()) {
            if (!mesh.hasAxis(axis)) {
                throw new IllegalArgumentException("shard_map " + which + " argument must refer to an axis marked as"
                        + " manual (" + frozenset(mesh.axisNames()) + "), but:\n\n  " + which + " refers to '" + axis
                        + "'\n\nCheck the " + which + " values passed to shard_map.");
            }
        }
        spec.validate(mesh); // duplicate axes: JAX's DuplicateSpecError text
    }

    // ------------------------------------------------------------------------------------- when it is called

    /** @throws IllegalStateException when called on a device thread (shardMap inside a shardMap function) */
    static void checkNotNested() {
        if (DeviceContext.current() != null) {
            throw new IllegalStateException("shardMap was called inside another shardMap's function. Nesting is not"
                    + " supported: use collectives inside the outer function instead.");
        }
    }

    /** @throws IllegalArgumentException when the number of arguments is not the number of in specs */
    static void checkArgumentCount(String name, int args, int inSpecs) {
        if (args != inSpecs) {
            throw new IllegalArgumentException("shard_map applied to the function '" + name + "' got " + args
                    + " argument(s) but in_specs has " + inSpecs + " entries; give one in spec per argument.");
        }
    }

    /**
     * Argument {@code i} must have at least the spec's rank, and every dimension the spec splits must divide by
     * the number of parts.
     *
     * @throws IllegalArgumentException with JAX's texts
     */
    static void checkArgument(String name, Mesh mesh, int i, PartitionSpec spec, DType dtype, int[] shape) {
        if (spec.length() > shape.length) {
            throw new IllegalArgumentException("shard_map applied to the function '" + name + "' was given an in_specs"
                    + " entry which is too long to be compatible with the corresponding input value from the"
                    + " function:\n\nin_specs is " + spec + " which has length " + spec.length() + ", but the passed"
                    + " args[" + i + "] has shape " + typeString(dtype, shape) + ", which has rank " + shape.length
                    + " (and " + shape.length + " < " + spec.length() + ")\n\nEntries in in_specs must be of length no"
                    + " greater than the number of axes in the corresponding input value.\n\nEither revise the spec"
                    + " to be shorter, or modify '" + name + "' so that its inputs have sufficient rank.");
        }
        for (int dim = 0; dim < spec.length(); dim++) {
            List<String> axes = spec.axesAt(dim);
            int parts = axes.isEmpty() ? 1 : mesh.axisSize(axes);
            if (shape[dim] % parts != 0) {
                String target = axes.size() == 1
                        ? "mesh axis '" + axes.get(0) + "' (of size " + parts + ")"
                        : "mesh axes " + tupleRepr(axes) + " (of total size " + parts + ")";
                throw new IllegalArgumentException("shard_map applied to the function '" + name + "' was given"
                        + " argument arrays with axis sizes that are not evenly divisible by the corresponding mesh"
                        + " axis sizes:\n\nThe mesh given has shape " + intTupleRepr(mesh.axisSizes())
                        + " with corresponding axis names " + tupleRepr(mesh.axisNames()) + ".\n\nthe passed args["
                        + i + "] of shape " + typeString(dtype, shape) + " corresponds to in_specs of value " + spec
                        + ", which maps array axis " + dim + " (of size " + shape[dim] + ") to " + target + ", but "
                        + parts + " does not evenly divide " + shape[dim] + "\n\nArray arguments' axis sizes must be"
                        + " evenly divisible by the mesh axis or axes indicated by the corresponding elements of the"
                        + " argument's in_specs entry. Consider checking that in_specs are correct, and if so consider"
                        + " changing the mesh axis sizes or else padding the input and adapting '" + name
                        + "' appropriately.");
            }
        }
    }

    // ------------------------------------------------------------------------------------ when it has run

    /** @throws IllegalStateException when the function returned null instead of a list */
    static <T> List<T> checkResultList(List<T> out) {
        if (out == null) {
            throw new IllegalStateException("the function passed to shardMap returned null instead of a list of output"
                    + " blocks");
        }
        for (int j = 0; j < out.size(); j++) {
            if (out.get(j) == null) {
                throw new IllegalStateException("the function passed to shardMap returned null as output " + j
                        + "; every output must be an NDArray block");
            }
        }
        return out;
    }

    /** @throws IllegalStateException when a one-output function returned null */
    static <T> T checkSingleResult(T out) {
        if (out == null) {
            throw new IllegalStateException("the function passed to shardMap returned null; it must return the"
                    + " device's output block as an NDArray");
        }
        return out;
    }

    /** The exception a device threw, reported with where it happened; {@code others} more devices threw too. */
    static DeviceFailureException deviceFailure(String name, Mesh mesh, Device dev, int others, Throwable cause) {
        String more = others > 0 ? " (and on " + others + " other device(s))" : "";
        return new DeviceFailureException("shard_map function '" + name + "' failed on device " + dev.id()
                + " at mesh coordinates " + Exchange.coordsText(mesh, dev) + more + ": "
                + cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage()),
                dev, others, cause);
    }

    /** @throws IllegalStateException when a device returned another number of outputs than there are out specs */
    static void checkOutputCount(Mesh mesh, int device, int outputs, int outSpecs) {
        if (outputs != outSpecs) {
            Device dev = mesh.devices().get(device);
            throw new IllegalStateException("the function passed to shardMap returned " + outputs + " output(s) on"
                    + " device " + dev.id() + " " + Exchange.coordsText(mesh, dev) + ", but out_specs has " + outSpecs
                    + " entries; return one block per out spec");
        }
    }

    /** @throws IllegalStateException when output j has another shape or dtype on device d than on device 0 */
    static void checkSameType(Mesh mesh, int j, DType dtype0, int[] shape0, int d, DType dtype, int[] shape) {
        if (!Arrays.equals(shape, shape0) || dtype != dtype0) {
            Device d0 = mesh.devices().get(0);
            Device dd = mesh.devices().get(d);
            throw new IllegalStateException("output " + j + " of shardMap has different types on different devices: "
                    + typeString(dtype0, shape0) + " on device " + d0.id() + " " + Exchange.coordsText(mesh, d0)
                    + " but " + typeString(dtype, shape) + " on device " + dd.id() + " "
                    + Exchange.coordsText(mesh, dd) + "; every device must return blocks of the same shape and dtype");
        }
    }

    /** @throws IllegalArgumentException with JAX's text when the out spec is longer than the output's rank */
    static void checkOutputRank(String name, PartitionSpec spec, DType dtype, int[] local) {
        if (spec.length() <= local.length) {
            return;
        }
        String scalarHint = local.length == 0 ? "\n\nFor scalar values (rank 0), consider using an out_specs"
                + " entry of P(). In particular, for rank 0 outputs which are not constant over the mesh, add"
                + " at least one (singleton) axis to them so that they can be concatenated using out_specs." : "";
        throw new IllegalArgumentException("shard_map applied to the function '" + name + "' was given an"
                + " out_specs entry which is too long to be compatible with the corresponding output value"
                + " from the function:\n\nout_specs is " + spec + " which has length " + spec.length()
                + ", but " + name + "(*args) has shape " + typeString(dtype, local) + ", which has rank "
                + local.length + " (and " + local.length + " < " + spec.length() + ")\n\nEntries in out_specs"
                + " must be of length no greater than the number of axes in the corresponding output value."
                + scalarHint);
    }

    /**
     * check_vma: an output may vary only over the axes its out spec mentions. JAX's {@code _inout_vma_error}: with
     * two or more axes left out of the spec, the three sets are, each in mesh order, the axes the spec mentions; the
     * left-out axes the value varies over; and the axes the value may vary over once JAX has made it vary over the
     * spec's own axes (its varying axes plus the mentioned ones).
     *
     * @param varying the union of the output's varying axes over the devices
     * @throws IllegalArgumentException with JAX's text when the output varies over an axis the spec leaves out
     */
    static void checkReplication(String name, Mesh mesh, PartitionSpec spec, Set<String> varying) {
        Set<String> mentioned = spec.mentionedAxes();
        List<String> unmentioned = mesh.axisNames().stream().filter(a -> !mentioned.contains(a)).toList();
        List<String> bad = unmentioned.stream().filter(varying::contains).toList();
        if (bad.isEmpty()) {
            return;
        }
        String middle;
        if (unmentioned.size() == 1) {
            middle = "out_specs is " + spec + " which implies that the corresponding output value is replicated across"
                    + " mesh axis '" + unmentioned.get(0) + "', but could not infer replication over any axes";
        } else {
            List<String> need = mesh.axisNames().stream().filter(mentioned::contains).toList();
            List<String> got = mesh.axisNames().stream().filter(a -> mentioned.contains(a) || varying.contains(a))
                    .toList();
            middle = "out_specs is " + spec + " which implies that the corresponding output value is only varying"
                    + " across mesh axes " + braces(need) + " and not " + braces(bad) + ", but it was"
                    + " inferred to be possibly varying over " + braces(got);
        }
        throw new IllegalArgumentException("shard_map applied to the function '" + name + "' was given out_specs which"
                + " require replication which can't be statically inferred given the mesh:\n\nThe mesh given has"
                + " shape " + intTupleRepr(mesh.axisSizes()) + " with corresponding axis names "
                + tupleRepr(mesh.axisNames()) + ".\n\n" + middle + "\n\nCheck if these output values are meant to"
                + " be replicated over those mesh axes. If not, consider revising the corresponding out_specs entries."
                + " If so, consider disabling the check by passing checkVma(false) to shardMap (JAX: check_vma=False)."
                + " Collectives that make a value equal along an axis (psum, pmean, pmax, pmin,"
                + " allGatherInvariant) remove that axis from the value's varying axes; allGather does not.");
    }

    // ---------------------------------------------------------------------------------- Python's spellings

    /** JAX's short type string, e.g. {@code float32[8,4]} or {@code int32[]}. */
    static String typeString(DType dtype, int[] shape) {
        return dtype.jaxName() + Arrays.stream(shape).mapToObj(Integer::toString)
                .collect(Collectors.joining(",", "[", "]"));
    }

    /** Python's repr of a tuple of strings: {@code ('x',)}, {@code ('x', 'y')}. */
    static String tupleRepr(List<String> items) {
        String body = items.stream().map(s -> "'" + s + "'").collect(Collectors.joining(", "));
        return "(" + body + (items.size() == 1 ? ",)" : ")");
    }

    private static String intTupleRepr(List<Integer> items) {
        String body = items.stream().map(String::valueOf).collect(Collectors.joining(", "));
        return "(" + body + (items.size() == 1 ? ",)" : ")");
    }

    private static String frozenset(List<String> axes) {
        return "frozenset({" + axes.stream().map(s -> "'" + s + "'").collect(Collectors.joining(", ")) + "})";
    }

    private static String braces(List<String> axes) {
        return "{" + String.join(",", axes) + "}";
    }
}
