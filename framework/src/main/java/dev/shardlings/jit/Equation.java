package dev.shardlings.jit;

import dev.shardlings.primitive.Primitive;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * One step of a traced program: {@code output = primitive(inputs)}.
 *
 * @param primitive the operation, with its parameters
 * @param inputs    its operands
 * @param output    the variable it defines
 */
public record Equation(Primitive primitive, List<Atom> inputs, Var output) {
    /** @throws NullPointerException if an argument is null */
    public Equation {
        Objects.requireNonNull(primitive, "primitive");
        inputs = List.copyOf(inputs);
        Objects.requireNonNull(output, "output");
    }

    /** {@code c:f32[8@X,4@Y] = sin a}, as a jaxpr prints an equation. */
    @Override
    public String toString() {
        return output + " = " + primitive.name() + " " + inputs.stream()
                .map(a -> a instanceof Var v ? v.name() : a.toString()).collect(Collectors.joining(" "));
    }
}
