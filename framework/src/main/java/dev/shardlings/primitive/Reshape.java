package dev.shardlings.primitive;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code lax.reshape(x, newSizes, out_sharding=…)}: the same elements in row-major order under a new shape.
 *
 * <p>Typing (JAX's {@code _reshape_sharding_rule}): with {@code outSharding} the result has it; a replicated
 * operand gives a replicated result; inserting or removing size-1 dimensions keeps the shardings; splitting one
 * dimension puts its mesh axes on the leading new dimensions, as far as they divide them (8@X → 4@X,2); merging
 * dimensions gives the merged one the axes of the merged dimensions in order (8@X,4@Y → 32@(X,Y)), provided no
 * replicated dimension comes before a sharded one. Anything else — several splits or merges at once, axes that do
 * not divide — is a {@link ShardingTypeError} asking for {@code outSharding}.
 *
 * <p>Partitioning: a reshape whose result blocks are the operand blocks reshaped (size-1 changes, splits, and
 * merges where only the first merged dimension is sharded) runs locally. Other layouts (e.g. 8@X,4@Y → 32@(X,Y),
 * where each device's elements are not contiguous in the result) gather the operand to every device, reshape it
 * whole and keep each device's block — correct, though it moves more bytes than XLA's all-to-all.
 *
 * @param newSizes    the result's global shape
 * @param outSharding the result's sharding, or null to let the typing rule decide
 */
public record Reshape(List<Integer> newSizes, PartitionSpec outSharding) implements Primitive {

    /** @throws NullPointerException if newSizes is null */
    public Reshape {
        newSizes = List.copyOf(newSizes);
    }

    @Override
    public String name() {
        return "reshape";
    }

    @Override
    public Shaped abstractEval(List<ArrayType> operands) {
        Typing.arity(this, operands, 1);
        ArrayType a = operands.get(0);
        long n = 1;
        for (int s : newSizes) {
            if (s < 0) {
                throw new IllegalArgumentException("reshape new_sizes must all be non-negative, got "
                        + Specs.ints(newSizes) + ".");
            }
            n *= s;
        }
        if (n != a.size()) {
            throw new IllegalArgumentException("reshape total size must be unchanged, got new_sizes "
                    + Specs.ints(newSizes) + " (of total size " + n + ") for shape " + Specs.ints(a.shape())
                    + " (of total size " + a.size() + ").");
        }
        return new Shaped(a.dtype(), newSizes);
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        if (outSharding != null) {
            return Specs.typed(outSharding, newSizes.size(), mesh);
        }
        return rule(operands.get(0), mesh).dims;
    }

    /** The rule's result and whether each device's result block is its operand block reshaped. */
    private record Ruled(List<List<String>> dims, boolean local) {
    }

    private static final class NotSupported extends Exception {
        private static final long serialVersionUID = 1L;

        NotSupported() {
            super(null, null, false, false);
        }
    }

    private ShardingTypeError error(ArrayType a) {
        return new ShardingTypeError("This reshape is not supported. Please specify the sharding of the output via"
                + " the `out_sharding` argument of jax.lax.reshape. Got operand type: " + a + ", new sizes: "
                + Specs.ints(newSizes));
    }

    private Ruled rule(ArrayType a, Mesh mesh) {
        if (a.isReplicated()) {
            return new Ruled(Specs.replicated(newSizes.size()), true);
        }
        List<Integer> op = a.shape();
        if (op.stream().filter(s -> s != 1).toList().equals(newSizes.stream().filter(s -> s != 1).toList())) {
            List<List<String>> dims = new ArrayList<>();
            int k = 0;
            List<List<String>> filtered = new ArrayList<>();
            for (int d = 0; d < op.size(); d++) {
                if (op.get(d) != 1) {
                    filtered.add(a.dims().get(d));
                }
            }
            for (int s : newSizes) {
                dims.add(s == 1 ? Specs.NONE : filtered.get(k++));
            }
            return new Ruled(dims, true);
        }
        try {
            List<Object> split = splitOnOneAxis(op, newSizes);
            if (split != null) {
                List<List<String>> dims = new ArrayList<>();
                for (int d = 0; d < split.size(); d++) {
                    List<String> sp = a.dims().get(d);
                    if (split.get(d) instanceof List<?> group) {
                        List<Integer> sizes = ints(group);
                        if (sp.isEmpty()) {
                            sizes.forEach(s -> dims.add(Specs.NONE));
                        } else {
                            dims.addAll(splitPartitions(mesh, sp, sizes, a));
                        }
                    } else {
                        dims.add(sp);
                    }
                }
                return new Ruled(dims, true);
            }
            List<Object> merge = newSizes.size() < op.size() ? splitOnOneAxis(newSizes, op) : null;
            if (merge != null) {
                List<List<String>> dims = new ArrayList<>();
                boolean local = true;
                int k = 0;
                for (int d = 0; d < newSizes.size(); d++) {
                    if (merge.get(d) instanceof List<?> group) {
                        List<List<String>> tup = new ArrayList<>(a.dims().subList(k, k + group.size()));
                        k += group.size();
                        if (tup.stream().allMatch(List::isEmpty)) {
                            dims.add(Specs.NONE);
                            continue;
                        }
                        while (tup.get(tup.size() - 1).isEmpty()) {
                            tup.remove(tup.size() - 1);
                        }
                        if (tup.stream().anyMatch(List::isEmpty)) {
                            throw error(a);
                        }
                        local &= tup.size() == 1; // only the leading merged dimension is split
                        List<String> flat = tup.stream().flatMap(List::stream).toList();
                        dims.addAll(splitPartitions(mesh, flat, List.of(newSizes.get(d)), a));
                    } else {
                        dims.add(a.dims().get(k++));
                    }
                }
                return new Ruled(dims, local);
            }
        } catch (NotSupported e) {
            throw error(a);
        }
        throw error(a);
    }

    private static List<Integer> ints(List<?> xs) {
        return xs.stream().map(x -> (Integer) x).toList();
    }

    /** JAX's {@code split_partitions}: hands the axes to the sizes in order while they divide them. */
    private List<List<String>> splitPartitions(Mesh mesh, List<String> axes, List<Integer> sizes, ArrayType a) {
        int next = 0;
        List<List<String>> out = new ArrayList<>();
        for (int o : sizes) {
            List<String> part = new ArrayList<>();
            while (o > 1 && next < axes.size()) {
                String ax = axes.get(next++);
                int size = mesh.axisSize(ax);
                if (o % size != 0) {
                    throw error(a);
                }
                o /= size;
                part.add(ax);
            }
            out.add(List.copyOf(part));
        }
        if (next < axes.size()) {
            throw error(a);
        }
        return out;
    }

    /**
     * JAX's {@code _split_on_one_axis}: null when {@code to} is not {@code from} with exactly one dimension split
     * into several; otherwise, per dimension of {@code from}, its size or the list of sizes it splits into.
     */
    private static List<Object> splitOnOneAxis(List<Integer> from, List<Integer> to) throws NotSupported {
        if (to.size() <= from.size()) {
            return null;
        }
        int origRank = from.size();
        List<Integer> op = new ArrayList<>(from);
        List<Integer> ns = new ArrayList<>(to);
        int ones = 0;
        while (!op.isEmpty() && !ns.isEmpty() && op.get(op.size() - 1) == 1 && ns.get(ns.size() - 1) == 1) {
            ones++;
            op.remove(op.size() - 1);
            ns.remove(ns.size() - 1);
        }
        int i = 0;
        int j = 0;
        int count = 0;
        List<Object> out = new ArrayList<>();
        while (j < ns.size()) {
            if (i >= op.size()) {
                return null;
            }
            if (op.get(i).equals(ns.get(j))) {
                out.add(op.get(i));
            } else {
                if (++count > 1) {
                    throw new NotSupported();
                }
                List<Integer> temp = new ArrayList<>(List.of(ns.get(j)));
                int nextJ = j + 1;
                int nextI = i + 1;
                while (prod(temp) != op.get(i) || (nextJ < ns.size() && ns.get(nextJ) == 1)) {
                    if (prod(temp) > op.get(i)) {
                        return null;
                    }
                    if (prod(temp) == op.get(i) && nextI < op.size() && ns.get(nextJ).equals(op.get(nextI))) {
                        break;
                    }
                    j++;
                    if (j >= ns.size()) {
                        return null;
                    }
                    temp.add(ns.get(j));
                    nextJ++;
                }
                out.add(temp);
            }
            i++;
            j++;
        }
        for (int k = 0; k < ones; k++) {
            out.add(1);
        }
        return out.size() == origRank ? out : null;
    }

    private static long prod(List<Integer> xs) {
        long p = 1;
        for (int x : xs) {
            p *= x;
        }
        return p;
    }

    /**
     * On Auto axes: the dimensions are matched in groups of equal size (one dimension split into several, several
     * merged into one, or a group of each), and each group maps its shardings as the Explicit rule maps a single
     * split or merge; a group that cannot keep its sharding is replicated. (So (512@X, 8@Y) → (4, 128, 2, 4),
     * two splits at once, keeps both axes: (4@X, 128, 2@Y, 4).)
     */
    @Override
    public List<List<String>> autoFallback(List<ArrayType> operands, Shaped out, Mesh mesh) {
        return grouped(operands.get(0), mesh).dims;
    }

    private Ruled grouped(ArrayType a, Mesh mesh) {
        List<Integer> in = a.shape();
        List<List<String>> dims = new ArrayList<>();
        boolean local = true;
        for (Group g : groups(in)) {
            List<List<String>> gin = a.dims().subList(g.i0(), g.i1());
            List<Integer> gout = newSizes.subList(g.j0(), g.j1());
            List<List<String>> mapped = null;
            if (gin.stream().allMatch(List::isEmpty)) {
                mapped = Specs.replicated(gout.size());
            } else if (gin.size() == 1) {
                mapped = tryPartitions(mesh, gin.get(0), gout);
            } else if (gout.size() == 1) {
                List<List<String>> tup = new ArrayList<>(gin);
                while (tup.get(tup.size() - 1).isEmpty()) {
                    tup.remove(tup.size() - 1);
                }
                if (tup.stream().noneMatch(List::isEmpty)) {
                    mapped = tryPartitions(mesh, tup.stream().flatMap(List::stream).toList(), gout);
                    local &= tup.size() == 1;
                }
            }
            if (mapped == null) {
                mapped = Specs.replicated(gout.size());
                local = false;
            }
            dims.addAll(mapped);
        }
        return new Ruled(dims, local);
    }

    private static List<List<String>> tryPartitions(Mesh mesh, List<String> axes, List<Integer> sizes) {
        int next = 0;
        List<List<String>> out = new ArrayList<>();
        for (int o : sizes) {
            List<String> part = new ArrayList<>();
            while (o > 1 && next < axes.size()) {
                int size = mesh.axisSize(axes.get(next));
                if (o % size != 0) {
                    return null;
                }
                o /= size;
                part.add(axes.get(next++));
            }
            out.add(List.copyOf(part));
        }
        return next < axes.size() ? null : out;
    }

    /** The cotangent reshaped back to the operand's shape. */
    @Override
    public <T> List<T> vjp(Vjp<T> v) {
        List<T> out = Vjp.cotangents(1);
        if (v.needs(0) && v.operandType(0).dtype().isFloating()) {
            out.set(0, v.reshape(v.ct(), v.operandType(0).shape()));
        }
        return out;
    }

    @Override
    public NDArray apply(List<NDArray> operands) {
        return operands.get(0).reshape(newSizes.stream().mapToInt(Integer::intValue).toArray());
    }

    @Override
    public Partitioning partition(List<ArrayType> operands, ArrayType out) {
        ArrayType a = operands.get(0);
        Ruled ruled;
        try {
            ruled = rule(a, out.mesh());
        } catch (ShardingTypeError e) {
            ruled = grouped(a, out.mesh());
        }
        // axes of size 1 split nothing: layouts that differ only by them are the same blocks
        Mesh mesh = out.mesh();
        List<List<String>> want = nonTrivial(out.dims(), mesh);
        if (!nonTrivial(ruled.dims, mesh).equals(want)) {
            Ruled g = grouped(a, mesh);
            ruled = nonTrivial(g.dims, mesh).equals(want) ? g : ruled;
        }
        if (ruled.local && nonTrivial(ruled.dims, mesh).equals(want)) {
            int[] local = Typing.localShape(newSizes, out.dims(), out.mesh());
            return Partitioning.local(List.of(a.dims()), new Reshape(ArrayType.boxed(local), null), out.dims());
        }
        // Lay the operand out so that the reshape is local for the result's layout (a merge such as
        // 8@X,4@Y -> 32@(X,Y) then needs one all-to-all of Y into dimension 0, as in XLA); only where that fails,
        // gather the operand whole.
        List<List<String>> wanted = operandFor(a, out.dims(), out.mesh());
        if (wanted != null) {
            ArrayType laid = new ArrayType(a.dtype(), a.shape(), wanted, out.mesh());
            Ruled r = grouped(laid, out.mesh());
            if (r.local && nonTrivial(r.dims, mesh).equals(want)) {
                int[] local = Typing.localShape(newSizes, out.dims(), out.mesh());
                return Partitioning.local(List.of(wanted), new Reshape(ArrayType.boxed(local), null), out.dims());
            }
        }
        return Partitioning.local(List.of(Specs.replicated(a.rank())), new Reshape(newSizes, null),
                Specs.replicated(newSizes.size()));
    }

    private static List<List<String>> nonTrivial(List<List<String>> dims, Mesh mesh) {
        return dims.stream().map(e -> e.stream().filter(x -> mesh.axisSize(x) > 1).toList()).toList();
    }

    /**
     * On Auto axes a merged dimension keeps only the axes of the group's major operand dimension, as XLA's
     * propagation does (JAX 0.10.2: f32[8@X,4@Y] → f32[32] comes out P('X') after an all-gather over Y, and
     * f32[8@Y,8@X] → f32[64] comes out P('Y')); the Explicit rule would keep them all ({@code 32@(X,Y)}).
     */
    @Override
    public List<List<String>> autoRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        List<List<String>> dims = new ArrayList<>(Primitive.super.autoRule(operands, out, mesh));
        ArrayType a = operands.get(0);
        List<Integer> in = a.shape();
        List<Group> groups = groups(in);
        if (groups.stream().anyMatch(g -> !g.matched())) {
            return dims;
        }
        for (Group g : groups) {
            int major = firstNonTrivial(in, g.i0(), g.i1());
            if (g.j1() - g.j0() == 1 && g.i1() - g.i0() > 1 && major >= 0) {
                dims.set(g.j0(), a.dims().get(major));
            }
        }
        return Typing.dropRepeatedAxes(dims);
    }

    /**
     * Operand dimensions [i0, i1) and result dimensions [j0, j1) whose sizes multiply to the same product, in order;
     * {@code matched} is false for a group where they cannot be made equal (the walk then goes on after it).
     */
    private record Group(int i0, int i1, int j0, int j1, boolean matched) {
    }

    /** The groups of this reshape of an operand of shape {@code in}, walking both shapes from the left. */
    private List<Group> groups(List<Integer> in) {
        List<Group> out = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < in.size() || j < newSizes.size()) {
            int i0 = i;
            int j0 = j;
            long pi = i < in.size() ? in.get(i++) : 1;
            long pj = j < newSizes.size() ? newSizes.get(j++) : 1;
            boolean matched = true;
            while (pi != pj) {
                if (pi < pj && i < in.size()) {
                    pi *= in.get(i++);
                } else if (pj < pi && j < newSizes.size()) {
                    pj *= newSizes.get(j++);
                } else {
                    matched = false;
                    break;
                }
            }
            out.add(new Group(i0, i, j0, j, matched));
        }
        return out;
    }

    /** The first dimension in [from, to) of size other than 1 (the group's major one), or −1. */
    private static int firstNonTrivial(List<Integer> shape, int from, int to) {
        for (int d = from; d < to; d++) {
            if (shape.get(d) != 1) {
                return d;
            }
        }
        return -1;
    }

    /**
     * The operand layout under which this reshape produces {@code outDims} without moving data, group by group of
     * dimensions whose sizes multiply to the same product: a merged dimension's axes go on the group's first
     * operand dimension of size other than 1; a split dimension's axes, when only the group's first result dimension is split, go on
     * the operand dimension. {@code null} when a group fits neither.
     */
    private List<List<String>> operandFor(ArrayType a, List<List<String>> outDims, Mesh mesh) {
        List<Integer> in = a.shape();
        List<List<String>> dims = new ArrayList<>();
        for (Group g : groups(in)) {
            if (!g.matched()) {
                return null;
            }
            int i0 = g.i0();
            int i = g.i1();
            List<List<String>> gout = outDims.subList(g.j0(), g.j1());
            int width = i - i0;
            if (gout.stream().allMatch(List::isEmpty)) {
                for (int k = 0; k < width; k++) {
                    dims.add(Specs.NONE);
                }
            } else if (gout.stream().skip(1).allMatch(List::isEmpty) && firstNonTrivial(in, i0, i) >= 0
                    && in.get(firstNonTrivial(in, i0, i)) % mesh.axisSize(gout.get(0)) == 0) {
                int major = firstNonTrivial(in, i0, i);
                for (int k = i0; k < i; k++) {
                    dims.add(k == major ? gout.get(0) : Specs.NONE);
                }
            } else {
                return null;
            }
        }
        return dims.size() == in.size() ? dims : null;
    }
}
