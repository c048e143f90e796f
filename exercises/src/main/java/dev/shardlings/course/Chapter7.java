package dev.shardlings.course;

// What the tasks below use; an import left unused is harmless.
import dev.shardlings.ExerciseNotDone;
import dev.shardlings.array.NDArray;
import dev.shardlings.autodiff.Autodiff;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;

import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Chapter 7 — how real language models are trained across a mesh: the layouts of large-scale training, each built
 * from the collectives of chapters 0–6.
 *
 * <p>Read {@code docs/chapter-7.md} first. Grade your work with {@code mvn test -Pgrade}.
 *
 * <p>This file stands alone: use the framework, the JDK and this class only, never another course file (copy a
 * helper you need into this file). Each course file is graded on its own, and one that does not compile is
 * graded as its stub, so a helper taken from it would break this file too.
 */
public final class Chapter7 {

    private Chapter7() {
    }

    // ---- Part 7.1: 2-D FSDP × tensor parallelism ----


    // ---- Part 7.2: pipeline parallelism ----


    // ---- Part 7.3: ring attention ----


    // ---- end of the parts ----
}
