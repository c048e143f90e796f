package dev.shardlings.jit;

import dev.shardlings.primitive.DotGeneral;
import dev.shardlings.primitive.Primitive;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * One step of a traced program: {@code outputs = primitive(inputs)}; every primitive has one output except a
 * shardMap region ({@link dev.shardlings.primitive.ManualRegion}), which has one per out spec.
 *
 * @param primitive the operation, with its parameters
 * @param inputs    its operands
 * @param outputs   the variables it defines (at least one)
 */
public record Equation(Primitive primitive, List<Atom> inputs, List<Var> outputs) {
    /**
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if there is no output
     */
    public Equation {
        Objects.requireNonNull(primitive, "primitive");
        inputs = List.copyOf(inputs);
        outputs = List.copyOf(outputs);
        if (outputs.isEmpty()) {
            throw new IllegalArgumentException(primitive.name() + ": an equation defines at least one variable");
        }
    }

    /** An equation of one output. @throws NullPointerException if an argument is null */
    public Equation(Primitive primitive, List<Atom> inputs, Var output) {
        this(primitive, inputs, List.of(Objects.requireNonNull(output, "output")));
    }

    /** The (first) variable defined: the only one for every primitive but a shardMap region of several results. */
    public Var output() {
        return outputs.get(0);
    }

    /**
     * {@code c:f32[8@X,4@Y] = sin a}, as a jaxpr prints an equation; parameters are left out, except a
     * dot_general's {@code preferred_element_type}, printed with its dimension numbers in JAX 0.10.2's layout (one
     * per line, the equation continuing over the following lines as a jaxpr indents them).
     */
    @Override
    public String toString() {
        return outputs.stream().map(Var::toString).collect(Collectors.joining(" ")) + " = " + primitive.name()
                + params() + " " + inputs.stream().map(a -> a instanceof Var v ? v.name() : a.toString())
                .collect(Collectors.joining(" "));
    }

    /** JAX's {@code _dot_general_pp_rule}: dimension numbers as lists, None parameters and out_sharding left out. */
    private String params() {
        if (!(primitive instanceof DotGeneral d) || d.preferredElementType() == null) {
            return "";
        }
        return "[\n      dimension_numbers=((" + d.lhsContracting() + ", " + d.rhsContracting() + "), ("
                + d.lhsBatch() + ", " + d.rhsBatch() + "))\n      preferred_element_type="
                + d.preferredElementType().jaxName() + "\n    ]";
    }
}
