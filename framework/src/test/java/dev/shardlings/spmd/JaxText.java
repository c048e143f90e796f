package dev.shardlings.spmd;

/**
 * The framework's text for a text JAX printed: JAX's words with the deliberate differences listed in
 * docs/framework.md ("Deliberate differences from JAX") applied, and nothing else. Tests paste JAX's text verbatim
 * and compare the framework's with {@code java(jaxText)}, so every difference is one of these replacements.
 */
final class JaxText {

    private JaxText() {
    }

    static String java(String jax) {
        return jax
                // check_vma is a method of the shardMap here, not a keyword argument.
                .replace("by passing the check_vma=False argument to `jax.shard_map`.",
                        "by calling checkVma(false) on `shardMap`.")
                // JAX's API names are this framework's.
                .replace("`P = jax.sharding.PartitionSpec`", "`P = dev.shardlings.sharding.PartitionSpec.P`")
                .replace("under `jax.shard_map`.", "under `shardMap`.");
    }
}
