package dev.shardlings.grader.grade;

import dev.shardlings.grader.parts.Part;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.EngineFilter;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherConfig;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Runs one part's {@link Part.Property} on jqwik's engine, in a launch of its own, so that a part declared as a
 * row keeps jqwik's generation, edge cases and shrinking exactly: the cases a seed draws and the case a failure
 * shrinks to are those a {@code @Property(seed = …)} method drew. The property's failure is rethrown as jqwik
 * reported it.
 */
final class PropertyRun {

    /** jqwik's settings for grading: no run database, fixed seeds, failures only, reports to the listener. */
    private static final Map<String, String> JQWIK = Map.of("jqwik.database", "", "jqwik.failures.runfirst", "false",
            "jqwik.failures.after", "PREVIOUS_SEED", "jqwik.reporting.onlyfailures", "true",
            "jqwik.seeds.whenfixed", "ALLOW", "jqwik.reporting.usejunitplatform", "true");

    private static final Launcher LAUNCHER = LauncherFactory.create(LauncherConfig.builder()
            .enableTestExecutionListenerAutoRegistration(false).build());

    /** The property {@link Container} runs now (one at a time: the judge grades one part after another). */
    private static Running running;

    private record Running(Part.Property<?> property, Consumer<Object> check) {
    }

    private PropertyRun() {
    }

    /**
     * Runs {@code property}, checking every case with {@code check}.
     *
     * @throws Throwable what the failing case threw, after shrinking
     */
    @SuppressWarnings("unchecked")
    static synchronized <C> void run(Part.Property<C> property, Consumer<C> check) throws Throwable {
        running = new Running(property, (Consumer<Object>) check);
        AtomicReference<TestExecutionResult> result = new AtomicReference<>();
        try {
            LAUNCHER.execute(LauncherDiscoveryRequestBuilder.request()
                    .selectors(DiscoverySelectors.selectMethod(Container.class, "cases", Object.class.getName()))
                    .filters(EngineFilter.includeEngines("jqwik")).configurationParameters(JQWIK).build(),
                    new TestExecutionListener() {
                        @Override
                        public void executionFinished(TestIdentifier id, TestExecutionResult r) {
                            if (id.isTest()) {
                                result.set(r);
                            }
                        }
                    });
        } finally {
            running = null;
        }
        TestExecutionResult r = result.get();
        if (r == null) {
            throw new IllegalStateException("jqwik did not run the property " + property.name());
        }
        if (r.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
            throw r.getThrowable().orElseGet(() -> new AssertionError("the property " + property.name()
                    + " was " + r.getStatus()));
        }
    }

    /** The property jqwik runs: the running row's cases, tries and seed. */
    static final class Container {
        @Property
        @AddLifecycleHook(Seeded.class)
        void cases(@ForAll("cases") Object c) {
            running.check().accept(c);
        }

        @Provide
        @SuppressWarnings("unchecked")
        Arbitrary<Object> cases() {
            return (Arbitrary<Object>) running.property().cases().get();
        }
    }

    /** Gives the property the running row's tries and seed, as {@code @Property(tries = …, seed = …)} would. */
    public static final class Seeded implements AroundPropertyHook {
        @Override
        public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
            context.attributes().setTries(running.property().tries());
            context.attributes().setSeed(running.property().seed());
            return property.execute();
        }
    }
}
