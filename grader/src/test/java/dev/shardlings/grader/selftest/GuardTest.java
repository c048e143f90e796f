package dev.shardlings.grader.selftest;

// Time limits here guard against a hang, not for speed: 60 s holds on a machine loaded ten times over.

import dev.shardlings.grader.judge.CaseRun;
import dev.shardlings.grader.judge.Guard;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.problem1.Problem1Checks;
import dev.shardlings.grader.chapter0.Chapter0Checks;
import dev.shardlings.grader.parts.Part;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/** The guard stops student code that never returns and reports it per part. */
class GuardTest {

    @Test
    void anEndlessLoopTimesOutWithAReason() {
        GradingFailure f = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertThrows(GradingFailure.class,
                () -> Guard.run(Problem1Checks.P1_1B, "Case: test", () -> {
                    // Endless for the grader, but it stops when the Guard interrupts it after the time limit: a
                    // loop that ignored interrupts would keep one of the machine's cores busy for the rest of
                    // this test JVM and slow every later test.
                    while (!Thread.currentThread().isInterrupted()) {
                        Thread.onSpinWait();
                    }
                    return null;
                }, Duration.ofMillis(200))));
        assertEquals(GradingFailure.Kind.TIMEOUT, f.kind());
    }

    @Test
    void aValueComesBackWithItsTrace() {
        CaseRun<String> o = Guard.run(Problem1Checks.P1_1B, "Case: test", () -> "ok");
        assertEquals("ok", o.value());
        assertEquals(0, o.trace().shardMaps().size());
    }

    @Test
    void mismatchedCollectivesAreReportedWithoutHangingNamingTheDevices() {
        dev.shardlings.sharding.Mesh mesh = dev.shardlings.sharding.Mesh.makeMesh(new int[]{4}, "i");
        dev.shardlings.array.NDArray x = dev.shardlings.array.NDArray.arange(8);
        GradingFailure f = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertThrows(GradingFailure.class,
                () -> Guard.run(Chapter0Checks.P0_8, "Case: test", () -> dev.shardlings.spmd.ShardMap.shardMap(b ->
                        dev.shardlings.spmd.Collectives.axisIndex("i").intAt() == 2 ? b.add(1)
                                : dev.shardlings.spmd.Collectives.psum(b, "i"), mesh,
                        dev.shardlings.sharding.PartitionSpec.P("i"), dev.shardlings.sharding.PartitionSpec.P("i"))
                        .checkVma(false).apply(x))));
        assertEquals(GradingFailure.Kind.EXCEPTION, f.kind());
        assertEquals("devices' collectives did not match", f.reason());
        org.junit.jupiter.api.Assertions.assertTrue(f.getMessage().contains("device 2"), f.getMessage());
        org.junit.jupiter.api.Assertions.assertTrue(f.getMessage().contains("psum over ('i',)"), f.getMessage());
    }
}
