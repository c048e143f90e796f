package dev.shardlings.jit;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A traced program (JAX's jaxpr): typed input variables, equations in order, and the outputs. Printed as
 * {@code { lambda ; a:f32[8@X,4@Y]. let b:f32[8@X,4@Y] = sin a in (b) }}.
 *
 * @param inputs    the function's arguments
 * @param equations the operations, in the order the function ran them
 * @param outputs   what the function returned
 */
public record Jaxpr(List<Var> inputs, List<Equation> equations, List<Atom> outputs) {
    /** @throws NullPointerException if an argument is null */
    public Jaxpr {
        inputs = List.copyOf(Objects.requireNonNull(inputs, "inputs"));
        equations = List.copyOf(Objects.requireNonNull(equations, "equations"));
        outputs = List.copyOf(Objects.requireNonNull(outputs, "outputs"));
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{ lambda ; ");
        sb.append(inputs.stream().map(Var::toString).collect(Collectors.joining(" "))).append(". let\n");
        for (Equation e : equations) {
            sb.append("    ").append(e).append('\n');
        }
        sb.append("  in (").append(outputs.stream().map(a -> a instanceof Var v ? v.name() : a.toString())
                .collect(Collectors.joining(", "))).append(") }");
        return sb.toString();
    }

    /**
     * This program without the equations none of whose results reach an output (JAX's {@code dce_jaxpr}): a
     * value computed but never used — the last layer's activation in a loss, the loss itself in its gradient —
     * is neither computed nor communicated. Every primitive is pure, so nothing else is lost.
     */
    public Jaxpr withoutDeadCode() {
        java.util.Set<Var> used = new java.util.HashSet<>();
        for (Atom a : outputs) {
            if (a instanceof Var v) {
                used.add(v);
            }
        }
        boolean[] keep = new boolean[equations.size()];
        for (int k = equations.size() - 1; k >= 0; k--) {
            Equation e = equations.get(k);
            for (Var o : e.outputs()) {
                keep[k] |= used.contains(o);
            }
            if (keep[k]) {
                for (Atom a : e.inputs()) {
                    if (a instanceof Var v) {
                        used.add(v);
                    }
                }
            }
        }
        java.util.List<Equation> live = new java.util.ArrayList<>();
        for (int k = 0; k < keep.length; k++) {
            if (keep[k]) {
                live.add(equations.get(k));
            }
        }
        return live.size() == equations.size() ? this : new Jaxpr(inputs, live, outputs);
    }
}
