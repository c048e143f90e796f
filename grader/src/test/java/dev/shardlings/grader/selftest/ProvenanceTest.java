package dev.shardlings.grader.selftest;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.host.Sandbox;
import dev.shardlings.grader.grade.SubmissionGrading;
import dev.shardlings.grader.sandbox.Wire;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The provenance check, alone: an array a call returns must have been made during that call. A course method that
 * computes its first answer honestly and then returns that same array for every later call with the same input —
 * right values, and a trace of a real shardMap each time as a decoy — is refused at the second call; an argument
 * returned unchanged is not refused.
 */
class ProvenanceTest {

    private static final Path STUBS = Path.of("..", "exercises", "src", "main", "java", "dev", "shardlings", "course")
            .toAbsolutePath().normalize();

    @Test
    void anArrayKeptFromAnEarlierCallIsRefusedAndAnArgumentPassedThroughIsNot(@TempDir Path dir) throws Exception {
        Path src = dir.resolve("src/dev/shardlings/course");
        Files.createDirectories(src);
        Files.writeString(src.resolve("Problem1.java"), """
                package dev.shardlings.course;

                import dev.shardlings.spmd.ShardedArray;
                import static dev.shardlings.sharding.PartitionSpec.P;
                import static dev.shardlings.spmd.ShardMap.shardMap;

                public final class Problem1 {
                    private static ShardedArray kept;

                    public static ShardedArray perShardMean(ShardedArray a) {
                        ShardedArray fresh = shardMap(b -> b.mean(dev.shardlings.array.KeepDims.KEEP), a.mesh(), P("X", "Y"), P("X", "Y")).apply(a);
                        if (kept == null) {
                            kept = fresh;
                        }
                        return kept; // the same values for the same input; made by the first call
                    }

                    public static ShardedArray perShardMeanGlobal(ShardedArray a) {
                        return a; // the argument itself
                    }

                    public static ShardedArray rollWithinShards(ShardedArray a, int shift) {
                        return a;
                    }

                    public static ShardedArray rollWithinShardsGlobal(ShardedArray a, int shift) {
                        return a;
                    }
                }
                """);
        for (String f : dev.shardlings.grader.sandbox.CourseClasses.FILES) {
            if (!Files.exists(src.resolve(f))) {
                Files.copy(STUBS.resolve(f), src.resolve(f)); // the other files as their stubs
            }
        }
        Path classes = dir.resolve("classes");
        Map<String, String> errors = SubmissionGrading.compile(dir.resolve("src"), classes, STUBS, "");
        assertEquals(Map.of(), errors);
        Mesh mesh = Mesh.makeMesh(new int[]{2, 2}, "X", "Y");
        ShardedArray a = ShardedArray.devicePut(NDArray.arange(16, dev.shardlings.array.DType.FLOAT32).reshape(4, 4),
                mesh, P("X", "Y"));
        try (Sandbox s = new Sandbox(new Sandbox.Config(classes, "256m", Duration.ofSeconds(120), false))) {
            s.beginPart();
            Wire.Reply first = s.call(request(1, "perShardMean", a), Duration.ofSeconds(60));
            assertNull(first.thrown(), "the first call made its answer");
            Sandbox.SandboxFailure f = assertThrows(Sandbox.SandboxFailure.class,
                    () -> s.call(request(2, "perShardMean", a), Duration.ofSeconds(60)));
            assertEquals(Sandbox.FailureKind.UNTRACED_RESULT, f.kind());
            assertTrue(f.getMessage().contains("it was made before the call"), f.getMessage());
            s.endPart();

            s.beginPart();
            Wire.Reply through = s.call(request(3, "perShardMeanGlobal", a), Duration.ofSeconds(60));
            assertNull(through.thrown(), "an argument returned as it came is the call's own");
            s.endPart();
        }
    }

    private static Wire.Request request(long id, String method, ShardedArray a) {
        return new Wire.Request(id, "Problem1", method, List.of("ShardedArray"), List.of(a));
    }
}
