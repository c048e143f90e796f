package dev.shardlings.nn;

import dev.shardlings.array.NDArray;
import dev.shardlings.random.PRNG;
import dev.shardlings.spmd.ShardedArray;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Seed 001's neural network: a multi-layer perceptron with ReLU between layers and a squared-error loss, the
 * program the JAX notebook "Distributed arrays and automatic parallelization" trains with data and tensor
 * parallelism. Parameters are a flat list {@code [W1, b1, W2, b2, …]}: W_l f32[n_l, n_{l+1}], b_l f32[n_{l+1}].
 * Initialised with JAX's PRNG, so parameters and batch equal JAX's bit for bit for the same key.
 *
 * <pre>{@code
 * predict: for each layer, outputs = inputs @ W + b; inputs = max(outputs, 0); return the last outputs
 * loss:    mean over the batch of Σ_j (predict(inputs)_j − targets_j)²
 * }</pre>
 */
public final class Mlp {
    private Mlp() {
    }

    /**
     * What {@code init_model} returns.
     *
     * @param params  [W1, b1, …] (float32)
     * @param inputs  f32[batch, sizes[0]]
     * @param targets f32[batch, sizes[last]]
     */
    public record Model(List<NDArray> params, NDArray inputs, NDArray targets) {
        /** @throws NullPointerException if an argument is null */
        public Model {
            params = List.copyOf(params);
            Objects.requireNonNull(inputs, "inputs");
            Objects.requireNonNull(targets, "targets");
        }
    }

    /**
     * {@code init_model(key, layer_sizes, batch_size)}: W ~ normal / sqrt(n_in), b ~ normal, inputs and targets ~
     * normal, with the notebook's splits of the key.
     *
     * @param sizes layer sizes, at least two, each positive
     * @throws IllegalArgumentException for fewer than two sizes or a size or batch below 1
     * @throws NullPointerException     if key or sizes is null
     */
    public static Model init(PRNG.Key key, int[] sizes, int batch) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(sizes, "sizes");
        if (sizes.length < 2 || batch < 1) {
            throw new IllegalArgumentException("an MLP needs at least two layer sizes and a batch of at least 1, got "
                    + java.util.Arrays.toString(sizes) + " and batch " + batch);
        }
        for (int s : sizes) {
            if (s < 1) {
                throw new IllegalArgumentException("layer sizes must be positive, got " + java.util.Arrays.toString(sizes));
            }
        }
        // key, *keys = split(key, len(sizes)); one key per layer
        PRNG.Key[] ks = PRNG.split(key, sizes.length);
        List<NDArray> params = new ArrayList<>();
        for (int l = 0; l < sizes.length - 1; l++) {
            PRNG.Key[] wb = PRNG.split(ks[l + 1]);
            params.add(PRNG.normal(wb[0], sizes[l], sizes[l + 1]).div((float) Math.sqrt(sizes[l])));
            params.add(PRNG.normal(wb[1], sizes[l + 1]));
        }
        // key, *keys = split(key, 3): the batch from keys[0] and keys[1]
        PRNG.Key[] kb = PRNG.split(ks[0], 3);
        return new Model(params, PRNG.normal(kb[1], batch, sizes[0]), PRNG.normal(kb[2], batch, sizes[sizes.length - 1]));
    }

    /**
     * The network's outputs f32[B, n_last] for inputs f32[B, n_0], on global arrays (traced inside jit and grad).
     *
     * @throws IllegalArgumentException if params is empty or of odd length, or the shapes do not chain
     */
    public static ShardedArray predict(List<ShardedArray> params, ShardedArray inputs) {
        checkParams(params);
        ShardedArray x = inputs;
        ShardedArray outputs = null;
        for (int l = 0; l < params.size(); l += 2) {
            outputs = x.matmul(params.get(l)).add(params.get(l + 1));
            x = outputs.maximum(0);
        }
        return outputs;
    }

    /** The scalar loss f32[] on global arrays. @throws IllegalArgumentException as {@link #predict} */
    public static ShardedArray loss(List<ShardedArray> params, ShardedArray inputs, ShardedArray targets) {
        return predict(params, inputs).sub(targets).square().sum(-1).mean();
    }

    /** {@link #predict} on one device's blocks (inside a shardMap body, or on whole arrays). */
    public static NDArray predictLocal(List<NDArray> params, NDArray inputs) {
        checkParams(params);
        NDArray x = inputs;
        NDArray outputs = null;
        for (int l = 0; l < params.size(); l += 2) {
            outputs = x.matmul(params.get(l)).add(params.get(l + 1));
            x = outputs.maximum(0);
        }
        return outputs;
    }

    /** {@link #loss} on one device's blocks: the mean over the rows it holds. */
    public static NDArray lossLocal(List<NDArray> params, NDArray inputs, NDArray targets) {
        return predictLocal(params, inputs).sub(targets).square().sum(-1).mean();
    }

    /**
     * One SGD step: {@code p − lr·g} for each parameter and its gradient.
     *
     * @throws IllegalArgumentException if the lists differ in length
     */
    public static List<ShardedArray> sgd(List<ShardedArray> params, List<ShardedArray> grads, float lr) {
        if (params.size() != grads.size()) {
            throw new IllegalArgumentException(params.size() + " parameters but " + grads.size() + " gradients");
        }
        List<ShardedArray> out = new ArrayList<>(params.size());
        for (int k = 0; k < params.size(); k++) {
            out.add(params.get(k).sub(grads.get(k).mul(lr)));
        }
        return out;
    }

    private static void checkParams(List<?> params) {
        Objects.requireNonNull(params, "params");
        if (params.isEmpty() || params.size() % 2 != 0) {
            throw new IllegalArgumentException("params must be [W1, b1, W2, b2, …], got " + params.size() + " arrays");
        }
    }
}
