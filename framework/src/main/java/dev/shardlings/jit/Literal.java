package dev.shardlings.jit;

import dev.shardlings.array.NDArray;
import dev.shardlings.primitive.ArrayType;
import dev.shardlings.spmd.ShardedArray;

import java.util.Objects;

/**
 * A constant of a traced program: a concrete array the function captured (a placed {@link ShardedArray}, which
 * keeps its layout, or an uncommitted {@link NDArray}, placed replicated), as JAX embeds captured arrays.
 *
 * @param value a {@link ShardedArray} or an {@link NDArray}
 * @param type  its type
 */
public record Literal(Object value, ArrayType type) implements Atom {
    /** @throws NullPointerException if an argument is null; IllegalArgumentException for another value class */
    public Literal {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(type, "type");
        if (!(value instanceof ShardedArray) && !(value instanceof NDArray)) {
            throw new IllegalArgumentException("a literal is a ShardedArray or an NDArray, got " + value.getClass());
        }
    }

    @Override
    public String toString() {
        return "const:" + type.shortString();
    }
}
