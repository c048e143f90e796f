package dev.shardlings.jit;

import dev.shardlings.primitive.ArrayType;

import java.util.Objects;

/**
 * A variable of a traced program: an argument or the result of one equation, with its type.
 *
 * @param id   its number in the program (0, 1, …), printed as a, b, …, z, ba, bb, … as jaxprs name them
 * @param type its type (sharding included on Explicit axes)
 */
public record Var(int id, ArrayType type) implements Atom {
    /** @throws NullPointerException if type is null */
    public Var {
        Objects.requireNonNull(type, "type");
    }

    /** The printed name: a, b, …, z, ba, bb, …. */
    public String name() {
        StringBuilder sb = new StringBuilder();
        int n = id;
        do {
            sb.insert(0, (char) ('a' + n % 26));
            n = n / 26;
        } while (n > 0);
        return sb.toString();
    }

    @Override
    public String toString() {
        return name() + ":" + type.shortString();
    }
}
