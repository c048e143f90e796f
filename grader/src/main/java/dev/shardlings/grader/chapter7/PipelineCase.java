package dev.shardlings.grader.chapter7;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.checks.Generators;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

import java.util.Random;

/**
 * One case of part 7.2: a stack of {@code stages · layersPerStage} layers relu(x · W[l]) of width {@code width}, split
 * over a mesh ('stage': stages), and {@code micro} microbatches of {@code rows} rows each.
 *
 * @param stages         devices along 'stage' (p)
 * @param layersPerStage layers each stage holds (k = L / p)
 * @param micro          microbatches (M)
 * @param rows           rows per microbatch (b); never equal to width, so that a weight gradient's matmul (which
 *                       contracts b) is told apart from a forward matmul (which contracts D) by its shape
 * @param width          D
 * @param seed           the seed of the values
 */
public record PipelineCase(int stages, int layersPerStage, int micro, int rows, int width, long seed) {

    /** @throws IllegalArgumentException if rows equals width (the schedule could not be read from the trace) */
    public PipelineCase {
        if (rows == width) {
            throw new IllegalArgumentException("rows must differ from width: " + rows);
        }
    }

    /** L, the number of layers. */
    public int layers() {
        return stages * layersPerStage;
    }

    /** The mesh ('stage': stages), Auto axis. */
    public Mesh mesh() {
        return Mesh.makeMesh(new int[]{stages}, new String[]{"stage"}, AxisType.AUTO);
    }

    /**
     * W f32[L, D, D]: the identity plus multiples of 1/16 scaled by 1/√D. Random weights alone shrink or kill the
     * activations of a narrow stack (a relu layer of width 4 zeroes a whole row now and then), so that deep in a
     * stack of 32 layers every dW was below the tolerance and zeros passed; around the identity the activations
     * keep their size through all 32 layers and every layer's dW is far above the tolerance, while the noise still
     * turns some units off, so that a wrong relu mask shows.
     */
    public NDArray weights() {
        NDArray noise = Generators.sixteenths(seed, (float) (1 / Math.sqrt(width)), layers(), width, width);
        float[] v = new float[layers() * width * width];
        for (int l = 0; l < layers(); l++) {
            for (int i = 0; i < width; i++) {
                for (int j = 0; j < width; j++) {
                    v[(l * width + i) * width + j] = noise.floatAt(l, i, j) + (i == j ? 1f : 0f);
                }
            }
        }
        return NDArray.fromFloats(v, layers(), width, width);
    }

    /**
     * X f32[M, b, D]: multiples of 1/16 in (0, 1], as a relu before the stack would leave them; never a row that the
     * first layer's relu turns to zeros (its dW would be zeros, whatever a program does with it).
     */
    public NDArray inputs() {
        Random r = new Random(seed ^ 0x5eed_7002L);
        float[] v = new float[micro * rows * width];
        for (int i = 0; i < v.length; i++) {
            v[i] = (r.nextInt(16) + 1) / 16f;
        }
        return NDArray.fromFloats(v, micro, rows, width);
    }

    /** T f32[M, b, D]. */
    public NDArray targets() {
        return Generators.sixteenths(seed ^ 0x7a12_9e75L, 1f, micro, rows, width);
    }

    /** The case in words, for reports. */
    public String describe() {
        return "Case: mesh ('stage': " + stages + "), Auto axis; L = " + layers() + " layers (" + layersPerStage
                + " per stage), D = " + width + ", M = " + micro + " microbatches of b = " + rows + " rows; W f32["
                + layers() + ", " + width + ", " + width + "] P('stage'), X and T f32[" + micro + ", " + rows + ", "
                + width + "] P() (value seed " + seed + ")";
    }

    /**
     * The cases: 1–16 stages, 1–2 layers each, M from 1 to p + 3 microbatches (fewer than the stages too, where the
     * pipeline never fills; more, where GPipe keeps more activations than 1F1B may), 1–3 rows, width 4–6, any value
     * seed.
     */
    public static Arbitrary<PipelineCase> cases() {
        return Arbitraries.integers().between(1, Generators.MAX_DEVICES).flatMap(p -> Combinators.combine(
                Arbitraries.integers().between(1, 2), Arbitraries.integers().between(1, p + 3),
                Arbitraries.integers().between(1, 3), Arbitraries.integers().between(4, 6), Arbitraries.longs())
                .as((k, m, b, d, seed) -> new PipelineCase(p, k, m, b, d, seed)));
    }
}
