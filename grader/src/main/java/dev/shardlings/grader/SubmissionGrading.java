package dev.shardlings.grader;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Grades a student's submission trusting nothing in it but the course files ({@code Chapter0.java},
 * {@code Problem1.java} … {@code Problem4.java}, {@code Chapter5.java}, {@code Chapter6.java}: {@link dev.shardlings.grader.sandbox.CourseClasses})
 * of {@code exercises/src/main/java/dev/shardlings/course/}. Any
 * other file is refused (and named in the report); a course file that is missing, declares another package or does
 * not compile is replaced by the course's stub, so its parts get a clear reason and the other parts are still
 * graded. The files are compiled here with javac (no annotation processing, nothing of the submission on the class
 * path), into a fresh folder that is deleted afterwards, and graded by {@link IsolatedGrading}: this JVM is the
 * judge, and never loads what was compiled.
 *
 * <pre>
 * mvn -q -pl grader exec:java@grade-submission -Dsubmission=/path/to/student/repo -Dresults=/path/to/results.json
 * </pre>
 */
@Command(name = "grade-submission", mixinStandardHelpOptions = true,
        description = "Grades only the course files of a submission, with student code in a sandbox JVM.")
public final class SubmissionGrading implements Callable<Integer> {

    /** Where the exercises live, relative to the course root. */
    /**
     * Options for the JVM this class runs in (the judge), for whoever starts it: {@code mvn test -Pgrade},
     * {@link BatchGrading}, Gradescope's run_autograder. The judge's work is wide and shallow — thousands of
     * methods (JUnit, jqwik, checks, oracles on small arrays), none hot for long — so the optimising compiler
     * never paid back what it cost: C2 spent 13.5 s of CPU in a 27 s grade of the solutions on a 2-core machine,
     * while the sandbox needed the second core. Stopping at C1 cut the grade by about 3.5 s (docs/performance.md,
     * "The grade run"). The sandbox, which runs the kernels, keeps C2 ({@link Sandbox}).
     */
    public static final List<String> JUDGE_JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1");

    public static final Path EXERCISES = Path.of("exercises", "src", "main", "java", "dev", "shardlings", "course");

    /** The course files, the only ones taken from a submission. */
    static final List<String> COURSE_FILES = dev.shardlings.grader.sandbox.CourseClasses.FILES;

    /** The first package declaration of a source file, after comments. */
    private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+([\\w.\\s]+?)\\s*;", Pattern.MULTILINE);

    @Option(names = "--course", defaultValue = ".", description = "the pristine course (default: this checkout)")
    Path course;

    @Option(names = "--stubs", description = "the folder of the pristine stubs that stand in for a missing or"
            + " broken course file (default: the grader's own copy, which a student's edits cannot change)")
    Path stubs;

    @Option(names = "--target", defaultValue = "submission", description = "what is graded, for the report:"
            + " submission (default), exercises or solutions")
    String target;

    @Option(names = "--test-classes", required = true, description = "the grader's compiled test classes")
    Path testClasses;

    @Option(names = "--submission", required = true, description = "the student's copy of the course, or just"
            + " the folder that holds their Problem*.java and Chapter0.java")
    Path submission;

    @Option(names = "--results", required = true, description = "where to write results.json")
    Path results;

    @Option(names = "--work", description = "where to build the graded copy (default: a new temporary folder;"
            + " deleted afterwards either way)")
    Path work;

    @Option(names = "--quiet", description = "print nothing (the grader's self-tests); results.json and"
            + " report.md are written all the same")
    boolean quiet;

    @picocli.CommandLine.Mixin
    SandboxOptions options = new SandboxOptions();

    public static void main(String[] args) {
        System.exit(new CommandLine(new SubmissionGrading()).execute(args));
    }

    /** What was taken from a submission, and what was not. */
    public record Intake(List<String> taken, Map<String, String> refused, Map<String, String> replaced) {
    }

    @Override
    public Integer call() throws Exception {
        Path root = work != null ? work : Files.createTempDirectory("shardlings-grade-");
        try {
            Path sources = root.resolve("src");
            Path pristine = (stubs != null ? stubs : writeStubs(root.resolve("stubs"))).toAbsolutePath().normalize();
            Intake intake = prepare(pristine, submission.toAbsolutePath().normalize(), sources);
            Path classes = root.resolve("classes");
            Map<String, String> broken = compile(sources, classes, pristine, shownFolder(submission));
            Map<String, String> replaced = new TreeMap<>(intake.replaced());
            replaced.putAll(broken);
            if (!quiet) {
                System.out.println("Taken from the submission: " + (intake.taken().isEmpty() ? "(nothing)"
                        : String.join(", ", intake.taken())));
                intake.refused().forEach((f, why) -> System.out.println("Refused: " + f + " — " + why));
                replaced.forEach((f, why) -> System.out.println("Graded as the stub: " + f + " — " + why));
            }
            Map<String, Results.TestResult> pregraded = new LinkedHashMap<>();
            for (Map.Entry<String, String> e : broken.entrySet()) {
                String cls = e.getKey().replace(".java", "");
                for (Part p : Part.all()) {
                    if (p.startAt().contains(cls + ".java")) {
                        pregraded.put(p.number(), Results.TestResult.of(p, false, Report.of(p, "was not graded")
                                .about(e.getKey() + " did not compile:").lines(e.getValue())
                                .lines("The other files were graded.").noHint().text(),
                                e.getKey() + " did not compile"));
                    }
                }
            }
            StringBuilder note = new StringBuilder();
            if (!intake.refused().isEmpty()) {
                note.append("\nRefused (only the course files are graded): ")
                        .append(String.join(", ", intake.refused().keySet())).append('.');
            }
            if (!replaced.isEmpty()) {
                note.append("\nGraded as the stub: ").append(String.join(", ", replaced.keySet())).append('.');
            }
            IsolatedGrading judge = new IsolatedGrading().withPregraded(pregraded, note.toString())
                    .withExtra(Map.of("submission", submission.toAbsolutePath().normalize().toString()));
            List<String> args = new ArrayList<>(List.of("--test-classes=" + testClasses, "--course-classes=" + classes,
                    "--results=" + results.toAbsolutePath(), "--target=" + target));
            args.addAll(options.asArguments());
            int status = new CommandLine(judge).execute(args.toArray(String[]::new));
            if (status != 0) {
                return status;
            }
            Results graded = Results.read(results);
            String label = "graded: " + target + " " + submission;
            Files.writeString(results.resolveSibling(ScoreTable.MARKDOWN), ScoreTable.markdown(graded, label));
            if (!quiet) {
                System.out.print(ScoreTable.console(graded, label));
            }
            return 0;
        } finally {
            Sandbox.deleteRecursively(root); // nothing of the submission is left behind
        }
    }

    /** Where the grader keeps its copy of the stubs, as class path resources ({@code <File>.java.txt}). */
    static final String STUBS = "/dev/shardlings/grader/stubs/";

    /**
     * Writes the grader's copy of the course stubs into {@code dir}. The copy, not exercises/, is what stands in for a
     * broken file: in a student's repository exercises/ holds the student's own edits. (A self-test keeps the copy
     * equal to exercises/ in the course's repository.)
     *
     * @return {@code dir}
     * @throws IOException if a stub cannot be read or written
     */
    public static Path writeStubs(Path dir) throws IOException {
        Files.createDirectories(dir);
        for (String name : COURSE_FILES) {
            try (java.io.InputStream in = SubmissionGrading.class.getResourceAsStream(STUBS + name + ".txt")) {
                if (in == null) {
                    throw new IOException("the grader has no stub " + name + " (resource " + STUBS + name + ".txt)");
                }
                Files.copy(in, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return dir;
    }

    /**
     * Puts the sources to compile in {@code dir}: the submission's course files where they are regular files that
     * declare package {@code dev.shardlings.course}, the course's stubs for the others.
     *
     * @param stubs      the folder holding the pristine stubs of the course files
     * @param submission the student's repository, or the folder holding their course files
     * @return what was taken, refused (with why) and replaced by a stub (with why)
     * @throws IOException if a copy fails
     */
    public static Intake prepare(Path stubs, Path submission, Path dir) throws IOException {
        Path source = Files.isDirectory(submission.resolve(EXERCISES)) ? submission.resolve(EXERCISES) : submission;
        Path out = dir.resolve("dev/shardlings/course");
        Files.createDirectories(out);
        List<String> taken = new ArrayList<>();
        Map<String, String> refused = new TreeMap<>();
        Map<String, String> replaced = new TreeMap<>();
        if (Files.isDirectory(source)) {
            try (Stream<Path> files = Files.list(source)) {
                for (Path f : files.sorted().toList()) {
                    String name = f.getFileName().toString();
                    if (!name.endsWith(".java") || COURSE_FILES.contains(name)) {
                        continue;
                    }
                    refused.put(name, "not one of the course files " + String.join(", ", COURSE_FILES));
                }
            }
        }
        for (String name : COURSE_FILES) {
            Path f = source.resolve(name);
            String why = null;
            if (!Files.exists(f, LinkOption.NOFOLLOW_LINKS)) {
                why = "not in the submission";
            } else if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
                why = "not a regular file (links are not followed)";
            } else if (Files.size(f) > 1 << 20) {
                why = "larger than 1 MB";
            } else {
                String pkg = packageOf(Files.readString(f, StandardCharsets.UTF_8));
                if (!"dev.shardlings.course".equals(pkg)) {
                    why = "declares package " + (pkg == null ? "(none)" : pkg) + ", not dev.shardlings.course";
                }
            }
            if (why == null) {
                Files.copy(f, out.resolve(name), StandardCopyOption.REPLACE_EXISTING);
                taken.add(name);
            } else {
                Files.copy(stubs.resolve(name), out.resolve(name),
                        StandardCopyOption.REPLACE_EXISTING);
                replaced.put(name, why);
            }
        }
        return new Intake(List.copyOf(taken), refused, replaced);
    }

    /**
     * How compiler messages name the folder of the course files: the path the student knows
     * ({@code exercises/src/main/java/dev/shardlings/course/}) when the submission is a copy of the course, else the
     * submission's folder name; never the temporary folder the files are compiled in.
     */
    public static String shownFolder(Path submission) {
        Path s = submission.toAbsolutePath().normalize();
        if (Files.isDirectory(s.resolve(EXERCISES)) || s.endsWith(EXERCISES)) {
            return EXERCISES.toString().replace(java.io.File.separatorChar, '/') + "/";
        }
        Path name = s.getFileName();
        return name == null ? "" : name + "/";
    }

    /** The package a source file declares, comments removed; null when it declares none. */
    public static String packageOf(String source) {
        String code = source.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("//[^\\n]*", " ");
        Matcher m = PACKAGE.matcher(code);
        return m.find() ? m.group(1).replaceAll("\\s+", "") : null;
    }

    /**
     * Compiles the course files in {@code sources} into {@code classes} against the framework; a file that does
     * not compile is replaced by its stub from {@code stubs} and the rest compiled again.
     *
     * @param shown where the messages say the files are (the student's own folder, never the temporary copy)
     * @return the files replaced, with the compiler's first messages
     * @throws IOException           if a file cannot be read or written
     * @throws IllegalStateException if even the stubs do not compile, or no compiler is available (a JRE)
     */
    public static Map<String, String> compile(Path sources, Path classes, Path stubs, String shown)
            throws IOException {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new IllegalStateException("no Java compiler: run the grader on a JDK, not a JRE");
        }
        Path pkg = sources.resolve("dev/shardlings/course");
        Map<String, String> broken = new TreeMap<>();
        for (int attempt = 0; attempt <= COURSE_FILES.size(); attempt++) {
            Sandbox.deleteRecursively(classes);
            Files.createDirectories(classes);
            DiagnosticCollector<JavaFileObject> diags = new DiagnosticCollector<>();
            boolean ok;
            try (StandardJavaFileManager fm = javac.getStandardFileManager(diags, Locale.ROOT, StandardCharsets.UTF_8)) {
                List<Path> files = COURSE_FILES.stream().map(pkg::resolve).toList();
                List<String> options = List.of("--release", "17", "--add-modules", "jdk.incubator.vector",
                        "-proc:none", "-implicit:none", "-nowarn", "-encoding", "UTF-8", "-d", classes.toString(),
                        "-classpath", String.join(java.io.File.pathSeparator, Sandbox.frameworkClassPath().stream()
                                .map(Path::toString).toList()), "-sourcepath", "");
                ok = javac.getTask(null, fm, diags, options, null, fm.getJavaFileObjectsFromPaths(files)).call();
            }
            if (ok) {
                requireOnlyCourseClasses(classes);
                return broken;
            }
            Map<String, StringBuilder> errors = new LinkedHashMap<>();
            for (Diagnostic<? extends JavaFileObject> d : diags.getDiagnostics()) {
                if (d.getKind() != Diagnostic.Kind.ERROR || d.getSource() == null) {
                    continue;
                }
                String file = Path.of(d.getSource().toUri()).getFileName().toString();
                StringBuilder sb = errors.computeIfAbsent(file, x -> new StringBuilder());
                if (sb.toString().lines().count() < 20) {
                    sb.append("  ").append(shown).append(file).append(':').append(d.getLineNumber()).append(": ")
                            .append(Guard.clip(d.getMessage(Locale.ROOT), 300).replace("\n", "\n    ")).append('\n');
                }
            }
            if (errors.isEmpty() || errors.keySet().stream().anyMatch(broken::containsKey)) {
                throw new IllegalStateException("the course's own stubs do not compile:\n" + errors);
            }
            for (Map.Entry<String, StringBuilder> e : errors.entrySet()) {
                broken.put(e.getKey(), e.getValue().toString());
                Files.copy(stubs.resolve(e.getKey()), pkg.resolve(e.getKey()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        throw new IllegalStateException("compiling the course files did not settle");
    }

    /** A course file can only declare classes of its own package; this holds whatever javac was given. */
    private static void requireOnlyCourseClasses(Path classes) throws IOException {
        try (Stream<Path> all = Files.walk(classes)) {
            for (Path f : all.filter(Files::isRegularFile).toList()) {
                if (!classes.relativize(f).toString().replace('\\', '/').startsWith("dev/shardlings/course/")) {
                    throw new IllegalStateException("a class outside dev.shardlings.course was compiled: " + f);
                }
            }
        }
    }
}
