package dev.shardlings.array;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * One kind of operation a device performs on its local arrays: the single object that names it everywhere. An
 * eager {@link NDArray} method reports it to the thread's {@link OpObserver}, the trace records it, the cost model
 * costs it by its {@link #kind()}, and the primitives of a jitted program ({@code Unary}, {@code Binary},
 * {@code Reduce}) are built from the same constants: {@code x.sin()}, a jitted {@code sin} and the trace event
 * either makes all name {@link UnaryOp#SIN}.
 *
 * <p>The operations come in families, one enum each: {@link UnaryOp} and {@link BinaryOp} (elementwise),
 * {@link ReduceOp} ({@code reduce_sum}, …), {@link SearchOp} ({@code argmax}, {@code sort}), {@link DataOp}
 * (creation, conversion, selection and data movement), {@link AccumulateOp} ({@code dot}, add_n) and
 * {@link CompareOp} ({@code greater}, …, giving bool).
 */
public sealed interface LocalOp permits UnaryOp, BinaryOp, ReduceOp, SearchOp, DataOp, AccumulateOp, CompareOp {

    /**
     * Every local operation: the families in the order of this interface's {@code permits} clause, each family in
     * declaration order. A position in this list names the same operation in every JVM that runs this build, so
     * it can stand for the operation where traces cross a process boundary.
     */
    List<LocalOp> ALL = Stream.<LocalOp[]>of(UnaryOp.values(), BinaryOp.values(), ReduceOp.values(),
            SearchOp.values(), DataOp.values(), AccumulateOp.values(), CompareOp.values()).flatMap(Arrays::stream).toList();

    /**
     * The name traces show, in JAX's words: the {@code jax.numpy} function or {@code jax.lax} primitive, e.g.
     * {@code "sin"}, {@code "subtract"}, {@code "reduce_sum"}, {@code "slice"}, {@code "dot"}. Not unique: add_n
     * shows as {@code "add"} like the elementwise add, from which its {@link #kind()} tells it apart.
     */
    String jaxName();

    /** What kind of work it is: how the cost model counts its FLOPs and bytes, and whether it fuses. */
    OpKind kind();
}
