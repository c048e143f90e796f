package dev.shardlings.grader.selftest;

import dev.shardlings.grader.Check;
import dev.shardlings.grader.CheckLog;
import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.Part;
import dev.shardlings.grader.Requirement;
import dev.shardlings.grader.Requirements;
import net.jqwik.api.Example;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherConfig;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every requirement a stub states is enforced: each clause of each "Graded:" line has a row in {@link Requirements}
 * (and every row a clause), and grading the reference solutions runs every kind of check each row names — so a
 * requirement added to a stub without a check, or a check dropped from a part, fails the build.
 */
class RequirementsTest {

    @Test
    void everyGradedClauseHasARowAndEveryRowAClause() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (Part p : Part.values()) {
            if (p.isPerformance()) {
                continue;
            }
            for (CourseMethod m : p.methods()) {
                List<String> stated = CourseSources.gradedClauses(m);
                List<String> rows = Requirements.of(p).stream().filter(r -> r.method() == m)
                        .map(Requirement::clause).toList();
                if (stated.isEmpty()) {
                    wrong.add(m.signature() + " has no \"Graded:\" line");
                } else if (!stated.equals(rows)) {
                    wrong.add(m.signature() + ":\n    stub states " + stated + "\n    table has   " + rows);
                }
            }
        }
        assertEquals("", String.join("\n", wrong));
    }

    @Test
    void gradingTheSolutionsRunsEveryRequiredCheck() throws Exception {
        CheckLog.clear();
        Map<Part, List<Class<?>>> classes = CourseSources.gradedClasses();
        List<org.junit.platform.engine.DiscoverySelector> selectors = new ArrayList<>();
        for (List<Class<?>> cs : classes.values()) {
            for (Class<?> c : cs) {
                // The fixed examples cover every check of a part (the random properties add cases, not checks);
                // a class without examples runs whole.
                List<Method> fixed = java.util.Arrays.stream(c.getDeclaredMethods())
                        .filter(m -> m.isAnnotationPresent(Example.class) || m.isAnnotationPresent(Test.class))
                        .toList();
                if (fixed.isEmpty()) {
                    selectors.add(DiscoverySelectors.selectClass(c));
                }
                for (Method m : fixed) {
                    selectors.add(DiscoverySelectors.selectMethod(c, m));
                }
            }
        }
        Launcher launcher = LauncherFactory.create(LauncherConfig.builder()
                .enableTestExecutionListenerAutoRegistration(false).build());
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request().selectors(selectors).build();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        launcher.execute(request, summary);
        assertEquals(0, summary.getSummary().getTotalFailureCount(), () -> {
            java.io.StringWriter w = new java.io.StringWriter();
            summary.getSummary().printFailuresTo(new java.io.PrintWriter(w), 20);
            return "the solutions must pass every example:\n" + w;
        });
        List<String> wrong = new ArrayList<>();
        for (Part p : Part.values()) {
            for (CourseMethod m : p.methods()) {
                Set<Check> required = Requirements.checksOf(p, m);
                EnumSet<Check> missing = required.isEmpty() ? EnumSet.noneOf(Check.class) : EnumSet.copyOf(required);
                missing.removeAll(CheckLog.ran(p, m));
                if (!missing.isEmpty()) {
                    wrong.add(p.number() + " " + m.signature() + ": no check of kind " + missing + " ran");
                }
            }
        }
        assertEquals("", String.join("\n", wrong));
    }
}
