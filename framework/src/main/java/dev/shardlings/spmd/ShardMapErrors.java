package dev.shardlings.spmd;

import dev.shardlings.array.DType;
import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
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

    /**
     * JAX's pytree prefix error when the number of arguments (or outputs) differs from the number of specs; the
     * specs are a Python tuple in JAX and a list here, and the text keeps JAX's words.
     *
     * @param which "in_specs" or "out_specs"
     * @throws IllegalArgumentException when {@code values != specs}
     */
    static void checkCount(String which, int specs, int values) {
        if (values != specs) {
            throw new IllegalArgumentException("pytree structure error: different lengths of tuple at key path\n"
                    + "    shard_map " + which + "\nAt that key path, the prefix pytree shard_map " + which + " has a"
                    + " subtree of type tuple of length " + specs + ", but the full pytree has a subtree of the same"
                    + " type but of length " + values + ".");
        }
    }

    /**
     * JAX's {@code _check_specs_vs_args}: first every argument whose spec is longer than its rank, then every
     * dimension a spec splits into a number of parts that does not divide it; each failure is one paragraph (a
     * bullet when there are several). JAX adds ", where args[0] is bound to f's parameter 'b'," when it can bind
     * the arguments to the function's parameter names, and leaves it out when it cannot; a Java lambda has no
     * parameter names at run time, so it is always left out here.
     *
     * @param specsAsList whether the in specs were given as a list (JAX: a tuple, so keys print as
     *                    {@code in_specs[1]}) rather than as one spec
     * @throws IllegalArgumentException with JAX's texts
     */
    static void checkArguments(String name, Mesh mesh, List<PartitionSpec> inSpecs, boolean specsAsList,
                               List<DType> dtypes, List<int[]> shapes) {
        List<String> tooLong = new ArrayList<>();
        boolean scalar = false;
        for (int i = 0; i < inSpecs.size(); i++) {
            PartitionSpec spec = inSpecs.get(i);
            int[] shape = shapes.get(i);
            if (spec.length() > shape.length) {
                scalar |= shape.length == 0;
                tooLong.add("in_specs" + key(specsAsList, i) + " is " + spec + " which has length " + spec.length()
                        + ", but the passed args[" + i + "] has shape " + typeString(dtypes.get(i), shape)
                        + ", which has rank " + shape.length + " (and " + shape.length + " < " + spec.length() + ")");
            }
        }
        if (!tooLong.isEmpty()) {
            throw new IllegalArgumentException("shard_map applied to the function '" + name + "' was given an in_specs"
                    + " entry which is too long to be compatible with the corresponding input value from the"
                    + " function:\n\n" + paragraphs(tooLong) + "\n\nEntries in in_specs must be of length no greater"
                    + " than the number of axes in the corresponding input value.\n\nEither revise the spec to be"
                    + " shorter, or modify '" + name + "' so that its inputs have sufficient rank."
                    + (scalar ? "\n\nFor scalar values (rank 0), consider using an in_specs entry of `P()`, where"
                    + " " + P_IS : ""));
        }
        List<String> indivisible = new ArrayList<>();
        for (int i = 0; i < inSpecs.size(); i++) {
            PartitionSpec spec = inSpecs.get(i);
            int[] shape = shapes.get(i);
            for (int dim = 0; dim < spec.length(); dim++) {
                List<String> axes = spec.axesAt(dim);
                int parts = axes.isEmpty() ? 1 : mesh.axisSize(axes);
                if (shape[dim] % parts != 0) {
                    String target = axes.size() == 1
                            ? "mesh axis '" + axes.get(0) + "' (of size " + parts + ")"
                            : "mesh axes " + tupleRepr(axes) + " (of total size " + parts + ")";
                    indivisible.add("the passed args[" + i + "] of shape " + typeString(dtypes.get(i), shape)
                            + " corresponds to in_specs" + key(specsAsList, i) + " of value " + spec + ", which maps"
                            + " array axis " + dim + " (of size " + shape[dim] + ") to " + target + ", but " + parts
                            + " does not evenly divide " + shape[dim]);
                }
            }
        }
        if (!indivisible.isEmpty()) {
            throw new IllegalArgumentException("shard_map applied to the function '" + name + "' was given argument"
                    + " arrays with axis sizes that are not evenly divisible by the corresponding mesh axis sizes:\n\n"
                    + "The mesh given has shape " + intTupleRepr(mesh.axisSizes()) + " with corresponding axis names "
                    + tupleRepr(mesh.axisNames()) + ".\n\n" + paragraphs(indivisible) + "\n\nArray arguments' axis"
                    + " sizes must be evenly divisible by the mesh axis or axes indicated by the corresponding elements"
                    + " of the argument's in_specs entry. Consider checking that in_specs are correct, and if so"
                    + " consider changing the mesh axis sizes or else padding the input and adapting '" + name
                    + "' appropriately.");
        }
    }

    /** JAX's {@code where `P = jax.sharding.PartitionSpec`.}, with this framework's P. */
    private static final String P_IS = "`P = dev.shardlings.sharding.PartitionSpec.P`.";

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
                dev, cause);
    }

    /**
     * Every device must return as many outputs as device 0 (Java lets devices differ; a JAX function is traced
     * once), and device 0 as many as there are out specs (JAX's pytree prefix error).
     *
     * @throws IllegalStateException    when a device returned another number of outputs than device 0
     * @throws IllegalArgumentException with JAX's text when device 0 returned another number than there are specs
     */
    static void checkOutputCount(Mesh mesh, List<? extends List<?>> outputs, int outSpecs) {
        int count = outputs.get(0).size();
        for (int d = 1; d < outputs.size(); d++) {
            if (outputs.get(d).size() != count) {
                Device d0 = mesh.devices().get(0);
                Device dev = mesh.devices().get(d);
                throw new IllegalStateException("the function passed to shardMap returned " + count + " output(s) on"
                        + " device " + d0.id() + " " + Exchange.coordsText(mesh, d0) + " but "
                        + outputs.get(d).size() + " on device " + dev.id() + " " + Exchange.coordsText(mesh, dev)
                        + "; every device must return one block per out spec");
            }
        }
        checkCount("out_specs", outSpecs, count);
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

    /**
     * JAX's {@code _check_names}: every output whose out spec is longer than its rank, one paragraph each. The type
     * is printed with the axes the output may vary over, as JAX prints it after making the output vary over its
     * spec's axes ({@code int32[]{V:i}}); with check_vma off values carry no axes and none are printed.
     *
     * @param specsAsList whether the out specs were given as a list (JAX: a tuple: {@code out_specs[1]},
     *                    {@code f(*args)[1]}) rather than as one spec
     * @param varying     per output, the union over the devices of its varying axes
     * @throws IllegalArgumentException with JAX's text
     */
    static void checkOutputRanks(String name, Mesh mesh, List<PartitionSpec> outSpecs, boolean specsAsList,
                                 boolean checkVma, List<DType> dtypes, List<int[]> shapes, List<Set<String>> varying) {
        List<String> tooLong = new ArrayList<>();
        boolean scalar = false;
        for (int j = 0; j < outSpecs.size(); j++) {
            PartitionSpec spec = outSpecs.get(j);
            int[] local = shapes.get(j);
            if (spec.length() > local.length) {
                scalar |= local.length == 0;
                Set<String> vma = new HashSet<>(varying.get(j));
                vma.addAll(spec.mentionedAxes());
                tooLong.add("out_specs" + key(specsAsList, j) + " is " + spec + " which has length " + spec.length()
                        + ", but " + name + "(*args)" + key(specsAsList, j) + " has shape "
                        + typeString(dtypes.get(j), local) + (checkVma ? vmaSuffix(mesh, vma) : "") + ", which has"
                        + " rank " + local.length + " (and " + local.length + " < " + spec.length() + ")");
            }
        }
        if (!tooLong.isEmpty()) {
            throw new IllegalArgumentException("shard_map applied to the function '" + name + "' was given an"
                    + " out_specs entry which is too long to be compatible with the corresponding output value from the"
                    + " function:\n\n" + paragraphs(tooLong) + "\n\nEntries in out_specs must be of length no greater"
                    + " than the number of axes in the corresponding output value.\n\nEither revise the spec to be"
                    + " shorter, or modify '" + name + "' so that its outputs have sufficient rank."
                    + (scalar ? "\n\nFor scalar values (rank 0), consider using an out_specs entry of `P()`, where "
                    + P_IS + " In particular, for rank 0 outputs which are not constant over the mesh, add at least"
                    + " one (singleton) axis to them so that they can be concatenated using out_specs." : ""));
        }
    }

    /**
     * check_vma (JAX's {@code _check_mats} and {@code _inout_vma_error}): an output may vary only over the axes its
     * out spec mentions; every output that does not is one paragraph. With two or more axes left out of the spec,
     * the three sets are, each in mesh order, the axes the spec mentions; the left-out axes the value varies over;
     * and the axes the value may vary over once JAX has made it vary over the spec's own axes (its varying axes
     * plus the mentioned ones). With one axis left out, JAX names that axis.
     *
     * @param specsAsList as {@link #checkOutputRanks}
     * @param varying     per output, the union over the devices of its varying axes
     * @throws IllegalArgumentException with JAX's text when an output varies over an axis its spec leaves out
     */
    static void checkReplication(String name, Mesh mesh, List<PartitionSpec> outSpecs, boolean specsAsList,
                                 List<Set<String>> varying) {
        List<String> failures = new ArrayList<>();
        for (int j = 0; j < outSpecs.size(); j++) {
            PartitionSpec spec = outSpecs.get(j);
            Set<String> vma = varying.get(j);
            Set<String> mentioned = spec.mentionedAxes();
            List<String> unmentioned = mesh.axisNames().stream().filter(a -> !mentioned.contains(a)).toList();
            List<String> bad = unmentioned.stream().filter(vma::contains).toList();
            if (bad.isEmpty()) {
                continue;
            }
            String which = "out_specs" + key(specsAsList, j) + " is " + spec + " which implies that the corresponding"
                    + " output value is ";
            if (unmentioned.size() == 1) {
                failures.add(which + "replicated across mesh axis '" + unmentioned.get(0) + "', but could not infer"
                        + " replication over any axes");
            } else {
                List<String> need = mesh.axisNames().stream().filter(mentioned::contains).toList();
                List<String> got = mesh.axisNames().stream().filter(a -> mentioned.contains(a) || vma.contains(a))
                        .toList();
                failures.add(which + "only varying across mesh axes " + braces(need) + " and not " + braces(bad)
                        + ", but it was inferred to be possibly varying over " + braces(got));
            }
        }
        if (!failures.isEmpty()) {
            throw new IllegalArgumentException("shard_map applied to the function '" + name + "' was given out_specs"
                    + " which require replication which can't be statically inferred given the mesh:\n\nThe mesh"
                    + " given has shape " + intTupleRepr(mesh.axisSizes()) + " with corresponding axis names "
                    + tupleRepr(mesh.axisNames()) + ".\n\n" + paragraphs(failures) + "\n\nCheck if these output"
                    + " values are meant to be replicated over those mesh axes. If not, consider revising the"
                    + " corresponding out_specs entries. If so, consider disabling the check by calling"
                    + " checkVma(false) on `shardMap`.");
        }
    }

    /** JAX's paragraphs of failures: one as is, several as bullets ({@code * }), separated by a blank line. */
    private static String paragraphs(List<String> failures) {
        return failures.size() == 1 ? failures.get(0)
                : failures.stream().map(f -> "* " + f).collect(Collectors.joining("\n\n"));
    }

    /** JAX's key path of entry i: {@code [i]} when the specs are a tuple (here a list), nothing for one spec. */
    private static String key(boolean asList, int i) {
        return asList ? "[" + i + "]" : "";
    }

    // ---------------------------------------------------------------------------------- Python's spellings

    /**
     * JAX's suffix of a type string for the axes a value varies over: {@code {V:x}}, {@code {V:(y,x)}} (mesh
     * order); nothing when there are none.
     */
    static String vmaSuffix(Mesh mesh, Set<String> vma) {
        List<String> inMeshOrder = mesh.axisNames().stream().filter(vma::contains).toList();
        if (inMeshOrder.isEmpty()) {
            return "";
        }
        return "{V:" + (inMeshOrder.size() == 1 ? inMeshOrder.get(0) : "(" + String.join(",", inMeshOrder) + ")")
                + "}";
    }

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
