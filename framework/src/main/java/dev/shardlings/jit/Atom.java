package dev.shardlings.jit;

import dev.shardlings.primitive.ArrayType;

/** An operand of an equation in a traced program: a variable, or a constant the function captured. */
public sealed interface Atom permits Var, Literal {
    /** Its type. */
    ArrayType type();
}
