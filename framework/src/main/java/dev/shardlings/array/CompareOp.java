package dev.shardlings.array;

/**
 * The comparisons of two arrays, with numpy broadcasting, giving a {@link DType#BOOL} array ({@code jnp.greater},
 * …; in a jaxpr {@code lax.gt}, …). Operands of different dtypes are compared as float32; NaN compares false
 * except under {@link #NE}, as IEEE 754 and numpy have it.
 */
public enum CompareOp implements LocalOp {
    /** {@code x > y}: {@code jnp.greater} / {@code lax.gt}. */
    GT("greater", "gt"),
    /** {@code x >= y}: {@code jnp.greater_equal} / {@code lax.ge}. */
    GE("greater_equal", "ge"),
    /** {@code x < y}: {@code jnp.less} / {@code lax.lt}. */
    LT("less", "lt"),
    /** {@code x <= y}: {@code jnp.less_equal} / {@code lax.le}. */
    LE("less_equal", "le"),
    /** {@code x == y}: {@code jnp.equal} / {@code lax.eq}. */
    EQ("equal", "eq"),
    /** {@code x != y}: {@code jnp.not_equal} / {@code lax.ne}. */
    NE("not_equal", "ne");

    private final String jaxName;
    private final String laxName;

    CompareOp(String jaxName, String laxName) {
        this.jaxName = jaxName;
        this.laxName = laxName;
    }

    /** The {@code jax.numpy} name traces show, e.g. {@code "greater"}. */
    @Override
    public String jaxName() {
        return jaxName;
    }

    /** The {@code jax.lax} primitive's name, as a jaxpr prints it, e.g. {@code "gt"}. */
    public String laxName() {
        return laxName;
    }

    /** One comparison per element. */
    @Override
    public OpKind kind() {
        return OpKind.ELEMENTWISE;
    }

    /** The comparison of two values; double holds every int32 and float32 exactly, and keeps NaN's rules. */
    boolean test(double a, double b) {
        switch (this) {
            case GT: return a > b;
            case GE: return a >= b;
            case LT: return a < b;
            case LE: return a <= b;
            case EQ: return a == b;
            default: return a != b;
        }
    }
}
