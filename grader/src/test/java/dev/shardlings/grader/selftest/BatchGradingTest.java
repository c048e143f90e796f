package dev.shardlings.grader.selftest;

import dev.shardlings.grader.grade.BatchGrading;
import dev.shardlings.grader.grade.Course;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A folder of submissions becomes a gradebook: one row per student with each part's points, a grade per student,
 * each student's log with the intake's reasons, and a second run with the same arguments grades no one again unless
 * told to regrade. Every option reaches BatchGrading through the documented Maven command, and stopping a batch
 * leaves none of its JVMs running.
 */
class BatchGradingTest {

    private static final Path COURSE = Path.of("..").toAbsolutePath().normalize();
    private static final Path SOLUTIONS = COURSE.resolve("solutions/src/main/java/dev/shardlings/course");
    private static final String ONLY = "Part08RingShiftTest";

    @Test
    void aFolderOfSubmissionsBecomesAGradebookAndAStoppedRunResumes(@TempDir Path dir) throws Exception {
        Path subs = dir.resolve("export");
        Files.createDirectories(subs.resolve("ada"));
        Files.copy(SOLUTIONS.resolve("Chapter0.java"), subs.resolve("ada/Chapter0.java"));
        Files.createDirectories(subs.resolve("bob"));
        Files.writeString(subs.resolve("bob/Chapter0.java"), "package dev.shardlings.course;\nclass Chapter0 { x }\n");
        Files.createDirectories(subs.resolve("cy")); // submitted nothing
        Path out = dir.resolve("grades");
        Path testClasses = Path.of(BatchGradingTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        String[] args = {"--course=" + COURSE, "--test-classes=" + testClasses, "--submissions=" + subs,
                "--out=" + out, "--jobs=2", "--only=" + ONLY, "--heap=256m", "--no-sandbox-user"};
        assertEquals(0, new CommandLine(new BatchGrading()).execute(args));

        List<String> book = Files.readAllLines(out.resolve(BatchGrading.GRADEBOOK));
        assertEquals(4, book.size(), "a header and a row per student: " + book);
        List<String> header = List.of(book.get(0).split(","));
        assertEquals(List.of("student", "score", "max_score"), header.subList(0, 3));
        int ringShift = header.indexOf("0.8");
        assertTrue(ringShift > 0, book.get(0));
        assertEquals("2", field(book, "ada", ringShift), "ada's ring shift passes");
        assertEquals("0", field(book, "bob", ringShift), "bob's file does not compile");
        assertEquals("0", field(book, "cy", ringShift), "cy submitted nothing");
        assertEquals(String.valueOf(Course.all().stream().mapToInt(dev.shardlings.grader.parts.Part::points).sum()),
                field(book, "ada", header.indexOf("max_score")));
        for (String s : List.of("ada", "bob", "cy")) {
            assertTrue(Files.isRegularFile(out.resolve(s).resolve("results.json")), s);
            assertTrue(Files.isRegularFile(out.resolve(s).resolve("report.md")), s);
        }
        assertTrue(Files.readString(out.resolve("bob/results.json")).contains("Chapter0.java did not compile"));
        // Each log is the judge's console: what was taken, and each file graded as its stub with why.
        String bobLog = Files.readString(out.resolve("bob/grading.log"));
        assertTrue(bobLog.contains("Taken from the submission: Chapter0.java"), bobLog);
        assertTrue(bobLog.contains("Graded as the stub: Chapter0.java did not compile"), bobLog);
        String cyLog = Files.readString(out.resolve("cy/grading.log"));
        assertTrue(cyLog.contains("Graded as the stub: Chapter0.java is not in the submission"), cyLog);
        String report = Files.readString(out.resolve("report.md"));
        assertTrue(report.contains("| 0.8 | ring shift with ppermute | 2 | 1 of 3 | 33% |"), report);
        assertTrue(Files.readString(out.resolve("histogram.svg")).startsWith("<svg"));

        // Resume: finished students are read back, not graded again. Their files are not rewritten (evidence that
        // holds on a loaded machine, where a time bound on the second run would not).
        java.util.Map<Path, FileTime> before = new java.util.HashMap<>();
        for (String s : List.of("ada", "bob", "cy")) {
            for (String f : List.of("results.json", "report.md")) {
                before.put(out.resolve(s).resolve(f), Files.getLastModifiedTime(out.resolve(s).resolve(f)));
            }
        }
        Files.delete(out.resolve(BatchGrading.GRADEBOOK));
        assertEquals(0, new CommandLine(new BatchGrading()).execute(args));
        for (java.util.Map.Entry<Path, FileTime> e : before.entrySet()) {
            assertEquals(e.getValue(), Files.getLastModifiedTime(e.getKey()), "nothing graded again: " + e.getKey());
        }
        assertEquals(book, Files.readAllLines(out.resolve(BatchGrading.GRADEBOOK)));

        // One student graded again (e.g. after fixing their export), the others read back; then everyone.
        assertEquals(2, new CommandLine(new BatchGrading()).execute(with(args, "--regrade=nobody")),
                "a name that is no student folder is refused");
        assertEquals(0, new CommandLine(new BatchGrading()).execute(with(args, "--regrade=bob")));
        for (java.util.Map.Entry<Path, FileTime> e : before.entrySet()) {
            boolean bob = e.getKey().startsWith(out.resolve("bob"));
            assertEquals(!bob, e.getValue().equals(Files.getLastModifiedTime(e.getKey())),
                    "only bob graded again: " + e.getKey());
        }
        FileTime adaBefore = Files.getLastModifiedTime(out.resolve("ada/results.json"));
        assertEquals(0, new CommandLine(new BatchGrading()).execute(with(args, "--force")));
        assertNotEquals(adaBefore, Files.getLastModifiedTime(out.resolve("ada/results.json")), "--force regrades all");
        assertEquals(book, Files.readAllLines(out.resolve(BatchGrading.GRADEBOOK)), "the same grades");

        // A grade made for other parts is never read back as this run's: a narrower selection grades again.
        FileTime adaFull = Files.getLastModifiedTime(out.resolve("ada/results.json"));
        assertEquals(0, new CommandLine(new BatchGrading()).execute(with(args, "--parts=0.8")));
        assertNotEquals(adaFull, Files.getLastModifiedTime(out.resolve("ada/results.json")), "another selection");
        assertTrue(Files.readString(out.resolve("ada/results.json")).contains("\"selection\" : \"-Dparts='0.8'"));
        // An unknown assignment is the instructor's to fix: said once, before any student is graded.
        assertEquals(2, new CommandLine(new BatchGrading()).execute(with(args, "--assignment=week-9")));
    }

    private static String[] with(String[] args, String more) {
        List<String> all = new ArrayList<>(List.of(args));
        all.add(more);
        return all.toArray(String[]::new);
    }

    /** grade-batch's arguments in grader/pom.xml, with Maven's properties: the pom's own, then {@code userProps}. */
    private static String[] pomArguments(Map<String, String> userProps) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        Document pom = f.newDocumentBuilder().parse(COURSE.resolve("grader/pom.xml").toFile());
        var xpath = XPathFactory.newInstance().newXPath();
        Map<String, String> props = new HashMap<>(Map.of("project.basedir", COURSE.resolve("grader").toString(),
                "project.build.testOutputDirectory", "/test-classes", "submissions", "/export", "out", "/grades"));
        NodeList defined = (NodeList) xpath.evaluate("/project/properties/*", pom, XPathConstants.NODESET);
        for (int i = 0; i < defined.getLength(); i++) {
            props.put(defined.item(i).getNodeName(), defined.item(i).getTextContent());
        }
        props.putAll(userProps);
        NodeList arguments = (NodeList) xpath.evaluate("/project/build/plugins/plugin/executions/execution"
                + "[id='grade-batch']/configuration/arguments/argument", pom, XPathConstants.NODESET);
        assertTrue(arguments.getLength() > 0, "grade-batch's execution has arguments");
        List<String> args = new ArrayList<>();
        Pattern property = Pattern.compile("\\$\\{([^}]+)}");
        for (int i = 0; i < arguments.getLength(); i++) {
            Matcher m = property.matcher(arguments.item(i).getTextContent().strip());
            StringBuilder arg = new StringBuilder();
            while (m.find()) {
                String value = props.get(m.group(1));
                if (value == null) {
                    fail("grade-batch uses ${" + m.group(1) + "}, which has no default: Maven would pass it as is");
                }
                m.appendReplacement(arg, Matcher.quoteReplacement(value));
            }
            args.add(m.appendTail(arg).toString());
        }
        return args.toArray(String[]::new);
    }

    /** Each option's value after parsing {@code args}, by its longest name. */
    private static Map<String, Object> parsed(String... args) {
        CommandLine cl = new CommandLine(new BatchGrading());
        cl.parseArgs(args);
        Map<String, Object> values = new HashMap<>();
        for (OptionSpec o : cl.getCommandSpec().options()) {
            if (!o.usageHelp() && !o.versionHelp()) {
                values.put(o.longestName(), o.getValue());
            }
        }
        return values;
    }

    @Test
    void theMavenCommandPassesEveryOptionWithItsDefault() throws Exception {
        // exec.args would replace the execution's arguments (the instructor's "Missing required options"): each
        // option must be an argument of the execution, from a property the instructor sets with -D.
        String[] pom = pomArguments(Map.of());
        Set<String> missing = new LinkedHashSet<>();
        for (OptionSpec o : new CommandLine(new BatchGrading()).getCommandSpec().options()) {
            if (!o.usageHelp() && !o.versionHelp()
                    && java.util.Arrays.stream(pom).noneMatch(a -> a.startsWith(o.longestName() + "="))) {
                missing.add(o.longestName());
            }
        }
        assertEquals(Set.of(), missing, "options grade-batch's execution in grader/pom.xml does not pass");
        Map<String, Object> defaults = parsed("--course=" + COURSE.resolve("grader/.."), "--test-classes=/test-classes",
                "--submissions=/export", "--out=/grades");
        assertEquals(defaults, parsed(pom), "the pom's defaults are BatchGrading's");

        Map<String, Object> set = parsed(pomArguments(Map.of("jobs", "3", "studentLimit", "9", "partLimit", "7",
                "heap", "300m", "only", "Part0*", "noSandboxUser", "true", "regrade", "ada,bob", "force", "true")));
        assertEquals(Map.of("--jobs", 3, "--student-limit", 9L, "--part-limit", 7, "--heap", "300m",
                "--only", "Part0*", "--no-sandbox-user", true, "--regrade", "ada,bob", "--force", true),
                pick(set, "--jobs", "--student-limit", "--part-limit", "--heap", "--only", "--no-sandbox-user",
                        "--regrade", "--force"));
    }

    private static Map<String, Object> pick(Map<String, Object> all, String... keys) {
        Map<String, Object> m = new HashMap<>();
        for (String k : keys) {
            m.put(k, all.get(k));
        }
        return m;
    }

    @Test
    void stoppingTheBatchStopsItsStudentsJvms(@TempDir Path dir) throws Exception {
        stopAndCheck(dir, Process::destroy); // SIGTERM, as Ctrl-C or kill: the batch's shutdown hook
    }

    @Test
    void killingTheBatchOutrightStopsItsStudentsJvms(@TempDir Path dir) throws Exception {
        stopAndCheck(dir, Process::destroyForcibly); // SIGKILL: each judge sees its parent gone and exits
    }

    /**
     * Starts a batch in a JVM of its own on a submission whose class takes minutes to load, stops the batch with
     * {@code stop} once the student's sandbox JVM runs, and checks that the judge and the sandbox are gone within
     * seconds (before this change they ran on for the part's time, writing files).
     */
    private static void stopAndCheck(Path dir, java.util.function.Consumer<Process> stop) throws Exception {
        Path subs = dir.resolve("export");
        Files.createDirectories(subs.resolve("slow"));
        String chapter0 = Files.readString(SOLUTIONS.resolve("Chapter0.java")).replaceFirst(
                "public final class Chapter0 \\{", "public final class Chapter0 {\n    static {\n        try {\n"
                        + "            Thread.sleep(300_000);\n        } catch (InterruptedException e) {\n"
                        + "            throw new IllegalStateException(e);\n        }\n    }\n");
        Files.writeString(subs.resolve("slow/Chapter0.java"), chapter0);
        Path testClasses = Path.of(BatchGradingTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Process batch = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), BatchGrading.class.getName(), "--course=" + COURSE,
                "--test-classes=" + testClasses, "--submissions=" + subs, "--out=" + dir.resolve("grades"),
                "--only=Part0*", "--heap=256m", "--no-sandbox-user", "--part-limit=300")
                .redirectErrorStream(true).redirectOutput(dir.resolve("batch.log").toFile()).start();
        Set<ProcessHandle> seen = new LinkedHashSet<>();
        try {
            long deadline = System.nanoTime() + 120_000_000_000L;
            while (seen.stream().noneMatch(h -> commandLine(h).contains("SandboxBoot"))) {
                assertTrue(batch.isAlive() && System.nanoTime() < deadline, "the student's sandbox JVM did not start: "
                        + Files.readString(dir.resolve("batch.log")));
                batch.descendants().forEach(seen::add);
                Thread.sleep(100);
            }
            batch.descendants().forEach(seen::add);
            stop.accept(batch);
            long gone = System.nanoTime() + 15_000_000_000L;
            while (System.nanoTime() < gone && (batch.isAlive() || seen.stream().anyMatch(ProcessHandle::isAlive)
                    || !byMarker(subs).isEmpty())) {
                Thread.sleep(100);
            }
            assertTrue(!batch.isAlive(), "the batch is still running");
            List<String> alive = seen.stream().filter(ProcessHandle::isAlive).map(BatchGradingTest::commandLine)
                    .toList();
            assertEquals(List.of(), alive, "JVMs of the stopped batch still running");
            assertEquals(List.of(), byMarker(subs), "processes grading the export still running");
        } finally {
            // Whatever a failed check left: judges' trees first (a sandbox whose judge is gone is no one's child).
            ProcessHandle.allProcesses().filter(h -> commandLine(h).contains(subs.toString())).forEach(h -> {
                h.descendants().forEach(ProcessHandle::destroyForcibly);
                h.destroyForcibly();
            });
            seen.forEach(ProcessHandle::destroyForcibly);
            batch.destroyForcibly();
        }
    }

    /** Live processes whose command line names {@code subs} (the judge's --submission). */
    private static List<String> byMarker(Path subs) {
        return ProcessHandle.allProcesses().filter(ProcessHandle::isAlive).map(BatchGradingTest::commandLine)
                .filter(c -> c.contains(subs.toString())).toList();
    }

    /** A process's command line, its class path left out (the messages stay readable). */
    private static String commandLine(ProcessHandle h) {
        return h.info().commandLine().orElse("").replaceAll(" -(cp|classpath) \\S+", "");
    }

    private static String field(List<String> book, String student, int column) {
        return book.stream().filter(l -> l.startsWith(student + ",")).findFirst().orElseThrow().split(",", -1)[column];
    }
}
