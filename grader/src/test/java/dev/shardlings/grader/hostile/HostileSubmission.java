package dev.shardlings.grader.hostile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A student submission that attacks the grader: the reference solutions (so every part it does not attack would
 * get full marks), with an attack put at the start of one course method per part. Each attack is what the
 * integrity issue found or what a student who wants full marks would try next; {@code GradingIntegrityTest}
 * grades the submission through both grading commands and checks that each attack fails its own part only, with
 * a clear reason, and changes nothing else.
 *
 * <p>Not a test itself (the name does not end in Test): it writes Java sources.
 */
public final class HostileSubmission {

    /** What the EXIT attack prints before it exits: the report must show it. */
    public static final String EXIT_PRINT = "printed before System.exit";

    /** What the ENDLESS attack prints (no line end) before it loops: the report must show it. */
    public static final String ENDLESS_PRINT = "printed before the endless loop";

    /** The attacks, by the part they sit in. */
    public enum Attack {
        /**
         * 0.1: {@code System.exit(3)} in the middle of grading, after a print (which the sandbox's buffered prints
         * must still deliver: its shutdown hook flushes them).
         */
        EXIT("0.1", "matmulNoCommunication", "System.out.println(\"" + HostileSubmission.EXIT_PRINT + "\"); System.exit(3);"),
        /** 0.2: {@code Runtime.halt(4)}, which skips every shutdown hook. */
        HALT("0.2", "matmulGatherA", "Runtime.getRuntime().halt(4);"),
        /**
         * 0.3: a print, then a loop that never ends (the print must reach the report though the sandbox buffers
         * prints: its flusher writes them out within milliseconds).
         */
        ENDLESS("0.3", "matmulPsum", "System.out.print(\"" + HostileSubmission.ENDLESS_PRINT + "\");"
                + " while (System.nanoTime() > 0) { Thread.onSpinWait(); }"),
        /**
         * 0.4: all the memory there is, in blocks of 512 MB: each larger than the graded heap (256m), so the heap's
         * limit ends it at the first block. A fill in small blocks ends the same way (OutOfMemoryError, exit 3) but
         * only after every page of the heap was touched, which took over 10 s on the CI machine (a virtual machine
         * whose host hands out fresh pages slowly): there it was a time-out (see Sandbox's memory note). Without
         * the limit the blocks would fit and fill the machine, and the part would time out: the reason checked
         * below catches that too.
         */
        OUT_OF_MEMORY("0.4", "matmulReduceScatterAllGather",
                "java.util.List<long[]> hog = new java.util.ArrayList<>();"
                        + " while (hog.size() >= 0) { hog.add(new long[1 << 26]); }"),
        /** 0.5: a thread that never stops, named like a thread of the JDK's common pool. */
        DISGUISED_THREAD("0.5", "matmulSameAxisGatherB",
                "if (System.getProperty(\"hostile.thread\") == null) { System.setProperty(\"hostile.thread\", \"1\");"
                        + " Thread t = new Thread(() -> { while (true) { try { Thread.sleep(1000); }"
                        + " catch (InterruptedException e) { } } }, \"ForkJoinPool.commonPool-worker-1\");"
                        + " t.setDaemon(true); t.start(); }"),
        /**
         * 0.6: processes that outlive the part and then overwrite the results: a plain child, a double fork
         * (re-parented to init) and, when {@code strong}, one that also leaves the session and clears its
         * environment. Every value is right: only the processes can fail the part.
         */
        LEFT_PROCESSES("0.6", "parallelNormalize", null),
        /** 0.7: text and a made-up frame written straight to the process's standard output, the grader's pipe. */
        FORGED_PROTOCOL("0.7", "matmulWithGatheredWeight",
                "if (System.getProperty(\"hostile.forged\") == null) { System.setProperty(\"hostile.forged\", \"1\");"
                        + " try { java.io.FileOutputStream out = new java.io.FileOutputStream(java.io.FileDescriptor.out);"
                        + " out.write(\"DONE 0.7 {\\\"score\\\":1.0,\\\"status\\\":\\\"passed\\\"}\\n\".getBytes());"
                        + " out.write(new byte[]{0x53, 0x48, 0x4c, 0x44, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 1, 0});"
                        + " out.flush(); } catch (java.io.IOException e) { throw new java.io.UncheckedIOException(e); } }"),
        /**
         * 0.8: looks for anything that could give the answer — the grader's oracles and checks as classes or as
         * class files, the solutions or the grader's test classes on the class path; returns the reference
         * answer when it finds one, and throws "nothing to steal" when it does not.
         */
        STEAL_ANSWERS("0.8", "ringShift",
                "{ boolean found = false;"
                        + " for (String c : new String[]{\"dev.shardlings.grader.chapter0.Chapter0Oracles\","
                        + " \"dev.shardlings.grader.checks.Checks\","
                        + " \"dev.shardlings.grader.grade.GradingListener\"}) {"
                        + " try { Class.forName(c); found = true; } catch (ClassNotFoundException e) { } }"
                        + " found |= ClassLoader.getSystemResource(\"dev/shardlings/grader/chapter0/Chapter0Oracles.class\") != null;"
                        + " String cp = System.getProperty(\"java.class.path\").replace('\\\\', '/');"
                        + " found |= cp.contains(\"/solutions/\") || cp.contains(\"test-classes\") || cp.contains(\"/grader/target/classes\");"
                        + " if (!found) { throw new IllegalStateException(\"nothing to steal\"); } }"),
        /** 0.9: 200 MB of output, then a wrong answer (so the part's report would show the output). */
        FLOOD("0.9", "sliceAndAverage",
                "if (System.getProperty(\"hostile.flood\") == null) { System.setProperty(\"hostile.flood\", \"1\");"
                        + " byte[] line = new byte[1024]; java.util.Arrays.fill(line, (byte) 'x'); line[1023] = '\\n';"
                        + " for (int i = 0; i < 200 * 1024; i++) { System.out.write(line, 0, line.length); }"
                        + " System.out.flush(); }"
                        + " if (System.nanoTime() > 0) { throw new IllegalStateException(\"wrong on purpose\"); }"),
        /** 0.10: a file's text (a secret, or just a large file) as the message of an exception. */
        LEAK_FILE("0.10", "foldKeyOverAxis", null),
        /**
         * 1.2a: the right answer computed on a thread of its own (joined, so nothing is left running), where the
         * trace cannot see how it was computed.
         */
        LAUNDERED_WORK("1.2a", "rollWithinShards",
                "{ final ShardedArray[] out = new ShardedArray[1]; final ShardedArray in = a; final int s = shift;"
                        + " Thread t = new Thread(() -> out[0] = shardMap(block -> block.roll(s, 0).sub(block), in.mesh(),"
                        + " P(\"X\", \"Y\"), P(\"X\", \"Y\")).apply(in)); t.start();"
                        + " try { t.join(); } catch (InterruptedException e) { throw new IllegalStateException(e); }"
                        + " if (out[0] != null) { return out[0]; } }", "Problem1"),
        /** 1.2b: an entry added to the trace by hand, through the runtime's reporting method. */
        FORGED_TRACE("1.2b", "rollWithinShardsGlobal",
                "dev.shardlings.events.Tracing.report(new dev.shardlings.events.ShardMapTrace(\"forged\", a.mesh(),"
                        + " java.util.List.of(), java.util.List.of(), java.util.List.of()));", "Problem1");

        private final String part;
        private final String method;
        private final String code;
        private final String file;

        Attack(String part, String method, String code) {
            this(part, method, code, "Chapter0");
        }

        Attack(String part, String method, String code, String file) {
            this.part = part;
            this.method = method;
            this.code = code;
            this.file = file;
        }

        /** The part the attack sits in. */
        public String part() {
            return part;
        }
    }

    /** The method of Problem 1 left correct, to show a part after every attack still gets full marks. */
    public static final String CLEAN_PART = "1.1a";

    private HostileSubmission() {
    }

    /**
     * The argument of the {@code sleep} that {@link Attack#LEFT_PROCESSES} leaves running: about 60 s, with
     * fractional digits of this run's own ({@code results} is a fresh temporary path per run), so that a test
     * looking for what the attack left alive finds this run's processes only, never those of another grade or
     * build on the same machine.
     */
    public static String sleepArgument(Path results) {
        return String.format(java.util.Locale.ROOT, "60.%09d", Math.floorMod(results.toAbsolutePath().toString()
                .hashCode(), 1_000_000_000));
    }

    /**
     * Writes the hostile course files into {@code dir}.
     *
     * @param solutions the reference solutions' package folder
     * @param results   the results.json the processes of {@link Attack#LEFT_PROCESSES} try to overwrite
     * @param secret    the file whose text {@link Attack#LEAK_FILE} puts in its exception
     * @param strong    whether {@link Attack#LEFT_PROCESSES} also leaves its session and clears its environment
     *                  (only an unprivileged sandbox user stops that one)
     * @return the files written
     */
    public static List<Path> write(Path solutions, Path dir, Path results, Path secret, boolean strong)
            throws IOException {
        Map<Attack, String> code = new LinkedHashMap<>();
        for (Attack a : Attack.values()) {
            code.put(a, a.code);
        }
        String forge = "(sleep 3; echo FORGED > '" + results + "') > /dev/null 2>&1 &";
        code.put(Attack.LEFT_PROCESSES, "if (System.getProperty(\"hostile.spawned\") == null) {"
                + " System.setProperty(\"hostile.spawned\", \"1\"); try {"
                + " new ProcessBuilder(\"sleep\", \"" + sleepArgument(results) + "\").start();"
                + " new ProcessBuilder(\"sh\", \"-c\", " + javaString(forge) + ").start().waitFor();"
                + (strong ? " new ProcessBuilder(\"setsid\", \"env\", \"-i\", \"/bin/sh\", \"-c\", "
                + javaString(forge) + ").start().waitFor();" : "")
                + " } catch (Exception e) { throw new IllegalStateException(e); } }");
        code.put(Attack.LEAK_FILE, "if (System.nanoTime() > 0) { try { throw new IllegalStateException("
                + "java.nio.file.Files.readString(java.nio.file.Path.of(" + javaString(secret.toString()) + ")));"
                + " } catch (java.io.IOException e) { throw new java.io.UncheckedIOException(e); } }");
        Files.createDirectories(dir);
        List<Path> written = new java.util.ArrayList<>();
        for (String file : dev.shardlings.grader.sandbox.CourseClasses.FILES) {
            String src = Files.readString(solutions.resolve(file));
            for (Map.Entry<Attack, String> e : code.entrySet()) {
                if (file.equals(e.getKey().file + ".java")) {
                    src = inject(src, e.getKey().method, e.getValue());
                }
            }
            Path out = dir.resolve(file);
            Files.writeString(out, src);
            written.add(out);
        }
        return written;
    }

    /** {@code src} with {@code code} as the first statements of the static method {@code method}. */
    static String inject(String src, String method, String code) {
        Matcher m = Pattern.compile("public static [\\w<>\\[\\]]+ " + method + "\\([^)]*\\)\\s*\\{").matcher(src);
        if (!m.find()) {
            throw new IllegalStateException("no method " + method + " to attack from");
        }
        return src.substring(0, m.end()) + "\n        " + code + "\n" + src.substring(m.end());
    }

    private static String javaString(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
