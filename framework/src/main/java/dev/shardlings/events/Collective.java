package dev.shardlings.events;

/**
 * The kinds of communication a device can perform inside {@code shardMap}, named after the JAX primitives
 * they mirror ({@code jax.lax.psum}, {@code all_gather}, {@code psum_scatter}, {@code all_to_all},
 * {@code ppermute}).
 */
public enum Collective {
    /** {@code jax.lax.psum}: all-reduce with a sum. */
    PSUM("psum"),
    /** {@code jax.lax.pmean}: all-reduce with a sum, then true division by the group size. */
    PMEAN("pmean"),
    /** {@code jax.lax.pmax}: all-reduce with an elementwise maximum. */
    PMAX("pmax"),
    /** {@code jax.lax.pmin}: all-reduce with an elementwise minimum. */
    PMIN("pmin"),
    /** {@code jax.lax.all_gather}. */
    ALL_GATHER("all_gather"),
    /** {@code jax.lax.psum_scatter}: reduce-scatter. */
    PSUM_SCATTER("psum_scatter"),
    /** {@code jax.lax.all_to_all}. */
    ALL_TO_ALL("all_to_all"),
    /** {@code jax.lax.ppermute}: point-to-point sends along a permutation. */
    PPERMUTE("ppermute");

    private final String jaxName;

    Collective(String jaxName) {
        this.jaxName = jaxName;
    }

    /** The name of the JAX primitive, e.g. {@code "all_gather"}. */
    public String jaxName() {
        return jaxName;
    }
}
