package dev.shardlings.grader.sandboxboot;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReader;
import java.lang.module.ModuleReference;
import java.lang.reflect.Method;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Permission;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * The sandbox JVM's first class: it builds the module layer that graded code runs in, closes what the JDK would
 * otherwise leave open to it, and hands over to the sandbox's loop ({@code dev.shardlings.grader.sandbox.SandboxMain}).
 * It holds no state of the grade: course code that reaches it (it sits in the unnamed module, which is open to all)
 * finds nothing to change.
 *
 * <p>The layer has two modules, with descriptors written here (no {@code module-info} in the build: the framework
 * is a plain class-path library everywhere else):
 * <ul>
 *   <li>{@value #FRAMEWORK}: the framework and the sandbox's own package. It exports the packages of the
 *   framework's public API and nothing else (not the trace, the cost model, the framework's internals or the
 *   sandbox's loop) and opens none: course code can call the API but cannot reflect into any field, so the
 *   recorder, the device event lists and the FLOP counts are out of its reach. The methods that install observers
 *   or record traces are public for the framework's own packages and refuse any caller outside this module
 *   ({@code dev.shardlings.internal.Callers}).</li>
 *   <li>{@value #COURSE}: the course classes, reading the framework only.</li>
 * </ul>
 * The JVM runs with {@code --limit-modules java.base,java.management,jdk.incubator.vector}, so
 * {@code sun.misc.Unsafe} (module {@code jdk.unsupported}), the attach API and the incubating foreign-memory API do
 * not exist; it gets no {@code --add-opens}.
 *
 * <p>Native code: on JDK 24 and later the JVM runs with {@code --illegal-native-access=deny}, which makes
 * {@code System.load}, {@code System.loadLibrary} and the foreign-function API throw for every module but the JDK's.
 * Before JDK 24 a security manager ({@link Guard}) refuses to link a library, to be replaced or to stop a thread;
 * it allows everything else.
 *
 * <p>Finalizers: the JVM's one finalizer thread is given a finalizer of this class that never returns, before any
 * course class is loaded, so no finalizer of course code ever runs (it would run on a thread that is neither the
 * caller's nor a device's, where no trace sees it). A second finalizer thread
 * ({@code Runtime.runFinalization}) is a new thread, which the sandbox counts against the call.
 *
 * <p>Arguments: the framework's folder, the sandbox package's folder, the course classes' folder.
 */
public final class SandboxBoot {

    /** The module of the framework and the sandbox's loop. */
    public static final String FRAMEWORK = "dev.shardlings.framework";
    /** The module of the course classes. */
    public static final String COURSE = "dev.shardlings.course";
    /** The line the boot prints on standard error when it hands over: what came before is not course output. */
    public static final String READY = "shardlings-sandbox: boot done";

    /** The sandbox's loop, in {@link #FRAMEWORK}. */
    static final String MAIN = "dev.shardlings.grader.sandbox.SandboxMain";

    /**
     * The framework packages course code may use: the public API. Not exported: {@code dev.shardlings.internal}
     * (the caller guard, the id source), {@code dev.shardlings.events} (the recorder), {@code dev.shardlings.cost}
     * (the judge models time; its JSON library is not in the sandbox) and the sandbox's own package.
     */
    public static final Set<String> API = Set.of("dev.shardlings", "dev.shardlings.array", "dev.shardlings.autodiff",
            "dev.shardlings.jit", "dev.shardlings.nn", "dev.shardlings.primitive", "dev.shardlings.random",
            "dev.shardlings.sharding", "dev.shardlings.spmd");

    private SandboxBoot() {
    }

    public static void main(String[] args) throws Throwable {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: SandboxBoot FRAMEWORK_DIR SANDBOX_DIR COURSE_DIR");
        }
        Path framework = Path.of(args[0]);
        Path sandbox = Path.of(args[1]);
        Path course = Path.of(args[2]);
        holdTheFinalizerThread();
        ModuleLayer layer = layer(List.of(framework, sandbox), course);
        if (Runtime.version().feature() < 24) {
            installGuard();
        }
        // Everything on standard error so far is the JVM's or this class's (no course class has run): the judge
        // drops it up to this line.
        System.err.println(READY);
        System.err.flush();
        Class<?> main = layer.findLoader(FRAMEWORK).loadClass(MAIN);
        Method m = main.getMethod("main", String[].class);
        try {
            m.invoke(null, (Object) new String[0]);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /**
     * The layer of {@link #FRAMEWORK} (the classes under {@code frameworkRoots}) and {@link #COURSE} (those under
     * {@code course}), over the platform class loader: nothing of the application class path (this class) is
     * visible from it by delegation.
     */
    public static ModuleLayer layer(List<Path> frameworkRoots, Path course) throws IOException {
        Set<String> frameworkPackages = packages(frameworkRoots);
        ModuleDescriptor.Builder fw = ModuleDescriptor.newModule(FRAMEWORK)
                .requires("jdk.incubator.vector").requires("java.management").packages(frameworkPackages);
        for (String p : API) {
            if (frameworkPackages.contains(p)) {
                fw.exports(p);
            }
        }
        ModuleDescriptor courseDescriptor = ModuleDescriptor.newModule(COURSE).requires(FRAMEWORK)
                .exports("dev.shardlings.course").packages(Set.of("dev.shardlings.course")).build();
        Map<String, ModuleReference> refs = new HashMap<>();
        refs.put(FRAMEWORK, new DirectoryModule(fw.build(), frameworkRoots));
        refs.put(COURSE, new DirectoryModule(courseDescriptor, List.of(course)));
        ModuleFinder finder = new ModuleFinder() {
            @Override
            public Optional<ModuleReference> find(String name) {
                return Optional.ofNullable(refs.get(name));
            }

            @Override
            public Set<ModuleReference> findAll() {
                return Set.copyOf(refs.values());
            }
        };
        ModuleLayer boot = ModuleLayer.boot();
        Configuration cf = boot.configuration().resolve(finder, ModuleFinder.of(), Set.of(FRAMEWORK, COURSE));
        ModuleLayer.Controller controller = ModuleLayer.defineModulesWithOneLoader(cf, List.of(boot),
                ClassLoader.getPlatformClassLoader());
        ModuleLayer layer = controller.layer();
        // This class (unnamed module) must call the loop's main; no one else is given the package.
        controller.addExports(layer.findModule(FRAMEWORK).orElseThrow(), "dev.shardlings.grader.sandbox",
                SandboxBoot.class.getModule());
        return layer;
    }

    /** The packages that hold a class or a resource under the roots. */
    static Set<String> packages(List<Path> roots) throws IOException {
        Set<String> out = new TreeSet<>();
        for (Path root : roots) {
            try (Stream<Path> files = Files.walk(root)) {
                files.filter(Files::isRegularFile).map(f -> root.relativize(f).getParent()).filter(p -> p != null)
                        .map(p -> p.toString().replace(java.io.File.separatorChar, '.'))
                        .filter(p -> !p.startsWith("META-INF")).forEach(out::add);
            }
        }
        return out;
    }

    /** A module whose classes and resources are files under one or more folders. */
    private static final class DirectoryModule extends ModuleReference {
        private final List<Path> roots;

        DirectoryModule(ModuleDescriptor descriptor, List<Path> roots) {
            super(descriptor, roots.get(0).toUri());
            this.roots = List.copyOf(roots);
        }

        @Override
        public ModuleReader open() {
            return new ModuleReader() {
                @Override
                public Optional<URI> find(String name) {
                    for (Path root : roots) {
                        Path p = root.resolve(name).normalize();
                        if (p.startsWith(root) && Files.isRegularFile(p)) {
                            return Optional.of(p.toUri());
                        }
                    }
                    return Optional.empty();
                }

                @Override
                public Optional<InputStream> open(String name) throws IOException {
                    Optional<URI> uri = find(name);
                    return uri.isPresent() ? Optional.of(Files.newInputStream(Path.of(uri.get()))) : Optional.empty();
                }

                @Override
                public Stream<String> list() throws IOException {
                    List<String> names = new ArrayList<>();
                    for (Path root : roots) {
                        try (Stream<Path> files = Files.walk(root)) {
                            files.filter(Files::isRegularFile).map(f -> root.relativize(f).toString()
                                    .replace(java.io.File.separatorChar, '/')).forEach(names::add);
                        }
                    }
                    return names.stream();
                }

                @Override
                public void close() {
                }
            };
        }
    }

    // ------------------------------------------------------------------------------------------ finalizers

    private static final CountDownLatch HELD = new CountDownLatch(1);

    /** An object whose finalizer takes the finalizer thread and keeps it. */
    private static final class Holder {
        @Override
        @SuppressWarnings({"deprecation", "removal"}) // the point: finalization, while the JDK still has it
        protected void finalize() {
            HELD.countDown();
            while (true) {
                LockSupport.park(); // an interrupt or a spurious wake-up only parks it again
            }
        }
    }

    /** Makes the finalizer thread run {@link Holder#finalize()} for ever; waits until it does (at most 5 s). */
    static void holdTheFinalizerThread() throws InterruptedException {
        makeHolder();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!HELD.await(10, TimeUnit.MILLISECONDS)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the finalizer thread did not take the sandbox's finalizer in 5 s");
            }
            System.gc();
        }
    }

    private static void makeHolder() {
        new Holder(); // unreachable at once: the next collection queues it for finalization
    }

    // ------------------------------------------------------------------------------------ JDK 17 to 23

    /**
     * Installs {@link Guard}. The JDK prints a warning on its own standard error stream when a security manager is
     * installed; the judge drops it with everything before {@link #READY}.
     */
    @SuppressWarnings("removal")
    private static void installGuard() {
        System.setSecurityManager(new Guard());
    }

    /**
     * The security manager of JDK 17 to 23: it refuses what would put code outside the JVM's reach (a native
     * library from a file: {@code System.load}), its own replacement, and stopping a thread (which would free the finalizer thread), and allows
     * everything else (the sandbox's other barriers are the module layer, the sandbox user and the judge).
     */
    @SuppressWarnings("removal")
    static final class Guard extends SecurityManager {
        @Override
        public void checkPermission(Permission p) {
            if (p instanceof RuntimePermission) {
                String name = p.getName();
                // System.load names a file; System.loadLibrary a name, looked up in the JDK's own folder (which no
                // one but root can write) and in java.library.path, which the sandbox sets empty. The JDK loads
                // its own libraries by name, lazily (java.management's on first use), so names pass.
                if (name.startsWith("loadLibrary.") && (name.indexOf('/') >= 0 || name.indexOf('\\') >= 0)) {
                    throw new SecurityException("native code is not allowed in the grader's sandbox: "
                            + name.substring("loadLibrary.".length()));
                }
                if (name.equals("setSecurityManager") || name.equals("stopThread")) {
                    throw new SecurityException(name + " is not allowed in the grader's sandbox");
                }
            }
        }

        @Override
        public void checkPermission(Permission p, Object context) {
            checkPermission(p);
        }
    }
}
