package dev.shardlings.grader.selftest;

import dev.shardlings.grader.judge.GradingFailure;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherConfig;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.engine.TestExecutionResult;

import java.util.ArrayList;
import java.util.List;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A trace-rule failure found on a generated case is reported on the smallest case that still fails: the shrunk
 * sample, here one device, not the 12-device mesh the property first failed on.
 */
class ShrinkingTest {

    @Test
    void aTraceRuleFailureIsReportedOnTheSmallestMesh() {
        List<Throwable> failures = new ArrayList<>();
        Launcher launcher = LauncherFactory.create(LauncherConfig.builder()
                .enableTestExecutionListenerAutoRegistration(false).build());
        launcher.execute(request().selectors(selectClass(ShrinkingFixture.class))
                .configurationParameter("jqwik.reporting.usejunitplatform", "true").build(),
                new TestExecutionListener() {
                    @Override
                    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                        if (id.isTest()) {
                            result.getThrowable().ifPresent(failures::add);
                        }
                    }
                });
        assertEquals(1, failures.size(), "the property fails once: " + failures);
        Throwable t = failures.get(0);
        while (!(t instanceof GradingFailure) && t.getCause() != null) {
            t = t.getCause();
        }
        assertTrue(t instanceof GradingFailure, "the grader's own failure: " + failures.get(0));
        String report = t.getMessage();
        assertTrue(report.contains("mesh (X=1, Y=1) = 1 device(s)"), "shrunk to one device: " + report);
        assertTrue(report.contains("A f32[1,1]"), "and to the smallest shapes: " + report);
    }
}
