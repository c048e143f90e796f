package dev.shardlings.grader.grade;

import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.host.Folders;
import dev.shardlings.grader.host.Sandbox;
import dev.shardlings.grader.judge.Guard;
import dev.shardlings.grader.judge.Report;

import dev.shardlings.grader.grade.Course;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;

/**
 * Grades a student's submission trusting nothing in it but the course files ({@code Chapter0.java},
 * {@code Problem1.java} … {@code Problem4.java}, {@code Chapter5.java}, {@code Chapter6.java}, {@code Chapter7.java}: {@link dev.shardlings.grader.sandbox.CourseClasses}),
 * found wherever an upload puts them ({@link CourseSearch}: the submission itself, its
 * {@code exercises/src/main/java/dev/shardlings/course/}, the same below one or two wrapping folders). Every other
 * file is ignored and named (printable) in the console, results.json and report.md; nothing is reached through a
 * symbolic link, and a submission that is one, or has one on the way to its course files, is refused as a whole
 * (every part 0, with the reason, and results.json written all the same). A course file that is missing, is there
 * twice, is a link, is not in package {@code dev.shardlings.course} as javac reads it, does not compile (the
 * compiler's messages with the source line and a caret), crashes javac or takes it too long is replaced by the
 * course's stub, and each of its parts says why (its output, results.json's top-level output, the console); the
 * other parts are still graded. The files are read as
 * bytes and compiled with javac in a JVM of its own ({@link CourseCompiler}: no annotation processing, nothing of
 * the submission on the class path), into a fresh folder that is deleted afterwards, and graded by
 * {@link IsolatedGrading}: this JVM is the judge, and never loads what was compiled. Every way through ends with a
 * results.json.
 *
 * <pre>
 * mvn -q -pl grader exec:java@grade-submission -Dsubmission=/path/to/student/repo -Dresults=/path/to/results.json
 * </pre>
 */
@Command(name = "grade-submission", mixinStandardHelpOptions = true,
        description = "Grades only the course files of a submission, with student code in a sandbox JVM.")
public final class SubmissionGrading implements Callable<Integer> {

    /**
     * Options for the JVM this class runs in (the judge), for whoever starts it: {@code mvn test -Pgrade},
     * {@link BatchGrading}, Gradescope's run_autograder. The judge's work is wide and shallow — thousands of
     * methods (JUnit, jqwik, checks, oracles on small arrays), none hot for long — so the optimising compiler
     * never paid back what it cost: C2 spent 13.5 s of CPU in a 27 s grade of the solutions on a 2-core machine,
     * while the sandbox needed the second core. Stopping at C1 cut the grade by about 3.5 s (docs/performance.md,
     * "The grade run"). The sandbox, which runs the kernels, keeps C2 ({@link Sandbox}).
     */
    public static final List<String> JUDGE_JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1");

    /** Where the exercises live, relative to the course root. */
    public static final Path EXERCISES = Path.of("exercises", "src", "main", "java", "dev", "shardlings", "course");

    /** The course files, the only ones taken from a submission. */
    static final List<String> COURSE_FILES = dev.shardlings.grader.sandbox.CourseClasses.FILES;

    @Option(names = "--course", defaultValue = ".", description = "the pristine course (default: this checkout)")
    Path course;

    @Option(names = "--stubs", description = "the folder of the pristine stubs that stand in for a missing or"
            + " broken course file (default: the grader's own copy, which a student's edits cannot change)")
    Path stubs;

    @Option(names = "--target", defaultValue = "submission", description = "what is graded, for the report:"
            + " submission (default), exercises or solutions")
    String target;

    @Option(names = "--submission", required = true, description = "the student's copy of the course, or just"
            + " the folder that holds their Problem*.java and Chapter0.java")
    Path submission;

    @Option(names = "--results", required = true, description = "where to write results.json")
    Path results;

    @Option(names = "--work", description = "where to build the graded copy (default: a new temporary folder;"
            + " deleted afterwards either way)")
    Path work;

    @Option(names = "--compile-limit", defaultValue = "60", description = "seconds javac may take to read one"
            + " file or to compile the course files; a file past it is graded as its stub")
    long compileLimitSeconds = 60;

    @Option(names = "--keep-other-parts", description = "a run of some parts (--only) keeps the other parts' last"
            + " results in results.json when it holds a grade of the same target and submission (a student's"
            + " single-part runs; never for a grade that is handed in)")
    boolean keepOtherParts;

    @Option(names = "--quiet", description = "print nothing (the grader's self-tests); results.json and"
            + " report.md are written all the same")
    boolean quiet;

    @picocli.CommandLine.Mixin
    GradeOptions options = new GradeOptions();

    public static void main(String[] args) {
        Runtime.getRuntime().addShutdownHook(new Thread(SubmissionGrading::killDescendants, "kill-sandbox"));
        exitWithParent();
        System.exit(new CommandLine(new SubmissionGrading()).execute(args));
    }

    /**
     * Kills what this JVM started (the sandbox JVM, javac) and waits for it, at most 5 s: a stopped grade must not
     * leave them running. Killed, not closed: the sandbox's lock may be held by the thread the stop interrupted.
     */
    private static void killDescendants() {
        List<ProcessHandle> tree = ProcessHandle.current().descendants().toList();
        tree.forEach(ProcessHandle::destroyForcibly);
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        for (ProcessHandle h : tree) {
            try {
                h.onExit().get(Math.max(0, deadline - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Ends this JVM (with its shutdown hooks, which kill the sandbox) once the process that started it is gone:
     * a batch grade or a Maven run killed outright must not leave a grade running on, writing files.
     */
    private static void exitWithParent() {
        ProcessHandle.current().parent().ifPresent(parent -> {
            Thread watchdog = new Thread(() -> {
                while (parent.isAlive()) { // isAlive also compares start times: a reused pid is not the parent
                    try {
                        Thread.sleep(250);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                System.err.println("grade-submission: the process that started it is gone; stopping.");
                System.exit(143);
            }, "exit-with-parent");
            watchdog.setDaemon(true);
            watchdog.start();
        });
    }

    /**
     * What was taken from a submission, and what was not.
     *
     * @param taken     the course files taken, in course order
     * @param from      the folders they were looked for in (printable, as the student names them, e.g.
     *                  {@code exercises/src/main/java/dev/shardlings/course/})
     * @param ignored   every other file or folder seen, by its printable path from the submission's top, with why
     *                  it is not taken
     * @param courseOwn how many further entries were not named because the course itself has them at that place
     * @param replaced  the course files graded as their stub at intake, with why (read after "{@code <file> is}")
     * @param details   more on a replaced file: where it was looked for, or where its copies are ("" for none)
     * @param shown     for each course file found, its path as compiler messages name it
     * @param refusal   why the whole submission was refused (null when it was not)
     */
    public record Intake(List<String> taken, List<String> from, Map<String, String> ignored, int courseOwn,
                         Map<String, String> replaced, Map<String, String> details, Map<String, String> shown,
                         String refusal) {
    }

    /**
     * Why a course file is graded as its stub: the one-line reason each of its parts shows, and the details
     * (compiler messages; "" for none).
     */
    public record Stubbed(String reason, String details) {
    }

    /** The assignment graded (the whole course unless --assignment names one). */
    private Assignments.Assignment assigned = Assignments.defaults().named(Assignments.COURSE);

    @Override
    public Integer call() throws Exception {
        options.assignmentsFrom(course);
        try {
            assigned = options.assignment();
            options.selectedParts(); // a --parts pattern that matches nothing is the instructor's to fix, now
        } catch (IllegalArgumentException e) {
            System.err.println("Nothing was graded: " + e.getMessage() + ".");
            return IsolatedGrading.nothingGraded(results, e.getMessage());
        }
        Path root = null;
        try {
            root = work != null ? work : Files.createTempDirectory("shardlings-grade-");
            return grade(root);
        } catch (Exception | StackOverflowError | LinkageError e) {
            // Not the submission's doing (every way a submission can go wrong is graded above): still a grade file,
            // so that Gradescope and the batch show a reason instead of nothing.
            System.err.println("grade-submission could not grade " + printable(submission.toString()) + ":");
            e.printStackTrace();
            writeUngraded("the grader could not grade this submission (" + printable(Guard.clip(String.valueOf(e),
                    300)) + "); this is not a judgement of your code: please tell your instructor", false);
            return 1;
        } finally {
            if (root != null) {
                Folders.deleteRecursively(root); // nothing of the submission is left behind
            }
        }
    }

    private Integer grade(Path root) throws Exception {
        Path sources = root.resolve("src");
        Path pristine = (stubs != null ? stubs : writeStubs(root.resolve("stubs"))).toAbsolutePath().normalize();
        Intake intake = prepare(pristine, course, submission, sources);
        if (intake.refusal() != null) {
            if (!quiet) {
                System.out.println("Refused: " + intake.refusal() + ".");
            }
            writeUngraded(intake.refusal(), true);
            return 0;
        }
        Path classes = root.resolve("classes");
        Map<String, Stubbed> stubbed = new TreeMap<>(java.util.Comparator.comparingInt(COURSE_FILES::indexOf));
        intake.replaced().forEach((f, why) -> stubbed.put(f, new Stubbed(f + " is " + why,
                intake.details().getOrDefault(f, ""))));
        String folder = shownFolder(submission);
        try (CourseCompiler javac = new CourseCompiler(Duration.ofSeconds(compileLimitSeconds))) {
            stubbed.putAll(javac.compile(sources, classes, pristine,
                    f -> intake.shown().getOrDefault(f, folder + f), stubbed));
        }
        // A missing file matters only when this run grades one of its parts (--only: e.g. an assignment of one
        // chapter asks for that chapter's file alone).
        IsolatedGrading selection = new IsolatedGrading();
        selection.options = options;
        List<Part> selected = selection.discover();
        stubbed.keySet().removeIf(f -> MISSING.equals(intake.replaced().get(f)) && selected.stream()
                .noneMatch(p -> p.startAt().contains(f)));
        if (!quiet) {
            System.out.println("Taken from the submission: " + (intake.taken().isEmpty() ? "(nothing)"
                    : String.join(", ", intake.taken())) + (intake.from().isEmpty() ? ""
                    : " (from " + String.join(" and ", intake.from()) + ")"));
            List<String> names = List.copyOf(intake.ignored().keySet());
            for (String f : names.subList(0, Math.min(names.size(), LISTED))) {
                System.out.println("Ignored: " + f + " — " + intake.ignored().get(f));
            }
            if (names.size() > LISTED) {
                System.out.println("Ignored: " + (names.size() - LISTED) + " more");
            }
            // The details (compiler messages, where a file was looked for) are in the reports printed below.
            stubbed.values().forEach(why -> System.out.println("Graded as the stub: " + why.reason()));
        }
        Map<String, Results.TestResult> pregraded = new LinkedHashMap<>();
        for (Map.Entry<String, Stubbed> e : stubbed.entrySet()) {
            String cls = e.getKey().replace(".java", "");
            Stubbed why = e.getValue();
            // A file that is there but broken costs all its parts; a missing one only those this run grades
            // (--only), since an assignment of one chapter asks for its own files only.
            for (Part p : MISSING.equals(intake.replaced().get(e.getKey())) ? selected : Course.all()) {
                if (p.startAt().contains(cls + ".java")) {
                    pregraded.put(p.number(), Results.TestResult.of(p, false, Report.of(p, "was not graded")
                            .about(why.reason() + (why.details().isEmpty() ? "." : ":")).lines(why.details())
                            .lines("The file was graded as its stub; the other files were graded.").noHint().text(),
                            why.reason()));
                }
            }
        }
        String note = note(intake, stubbed, folder);
        IsolatedGrading judge = new IsolatedGrading().withPregraded(pregraded, note)
                .withExtra(Map.of("submission", submission.toAbsolutePath().normalize().toString()));
        if (keepOtherParts) {
            judge.keepingOtherParts();
        }
        List<String> args = new ArrayList<>(List.of("--course-classes=" + classes,
                "--results=" + results.toAbsolutePath(), "--target=" + target));
        args.addAll(options.asArguments());
        int status = new CommandLine(judge).execute(args.toArray(String[]::new));
        if (status != 0) {
            return status;
        }
        Results graded = Results.read(results);
        String label = "graded: " + target + " " + printable(submission.toString());
        Files.writeString(results.resolveSibling(ScoreTable.MARKDOWN), ScoreTable.markdown(graded, label));
        if (!quiet) {
            System.out.print(ScoreTable.console(graded, label));
            if (!"exercises".equals(target)) { // a student's own working copy needs no barrier against itself
                System.out.print(ScoreTable.barrierWarning(graded));
            }
        }
        return 0;
    }

    /**
     * A grade of 0 for every part with one reason, for a submission that is refused as a whole (or a grader that
     * could not run): results.json and report.md are written all the same.
     */
    private void writeUngraded(String reason, boolean refused) throws IOException {
        Map<String, Results.TestResult> all = new LinkedHashMap<>();
        for (Part p : assigned.parts()) {
            all.put(p.number(), Results.TestResult.of(p, false, Report.of(p, "was not graded").about(reason + ".")
                    .noHint().text(), reason));
        }
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("submission", submission.toAbsolutePath().normalize().toString());
        extra.put("assignment", assigned.name());
        Results r = Results.of(target, assigned.parts(), all, 0, "\n" + (refused ? "Nothing was graded: " : "")
                + reason + ".", extra);
        Path file = results.toAbsolutePath();
        Files.createDirectories(file.getParent());
        r.write(file);
        Files.deleteIfExists(file.resolveSibling(IsolatedGrading.NOTHING_GRADED));
        String label = "graded: " + target + " " + printable(submission.toString());
        Files.writeString(file.resolveSibling(ScoreTable.MARKDOWN), ScoreTable.markdown(r, label));
        if (!quiet) {
            System.out.print(ScoreTable.console(r, label));
        }
    }

    /** The most names of ignored files listed (console, results.json); then how many more. */
    static final int LISTED = 20;

    /**
     * The lines results.json's top-level output adds to its summary, which Gradescope shows the student above the
     * parts (and the score table below itself): where the files were found when it was not the usual place, each
     * file graded as its stub with why, and the files ignored.
     */
    private static String note(Intake intake, Map<String, Stubbed> stubbed, String top) {
        StringBuilder note = new StringBuilder();
        String usual = EXERCISES.toString().replace(java.io.File.separatorChar, '/') + "/";
        if (intake.from().stream().anyMatch(f -> !f.equals(top) && !f.equals(usual))) {
            note.append("\nCourse files taken from ").append(String.join(" and ", intake.from())).append('.');
        }
        stubbed.values().forEach(why -> note.append("\nGraded as the stub (its parts score 0): ")
                .append(why.reason()).append('.'));
        if (!intake.ignored().isEmpty()) {
            note.append("\nIgnored (only the course files ").append(String.join(", ", COURSE_FILES))
                    .append(" are graded): ").append(listed(intake.ignored().keySet()))
                    .append(intake.courseOwn() > 0 ? "; and " + intake.courseOwn() + " of the course's own files"
                            : "").append('.');
        }
        return note.toString();
    }

    /** At most {@link #LISTED} names, then how many more. */
    private static String listed(java.util.Collection<String> names) {
        List<String> all = List.copyOf(names);
        return all.size() <= LISTED ? String.join(", ", all)
                : String.join(", ", all.subList(0, LISTED)) + " and " + (all.size() - LISTED) + " more";
    }

    /**
     * A name as it is safe to print on one line of a console or a report: a newline, a carriage return and a tab
     * are written as backslash-n, backslash-r and backslash-t, and other control or invisible characters (format
     * characters such as the right-to-left override U+202E, separators, unassigned code points) as backslash-u and
     * four hex digits, so that a file named with a newline cannot write a line of its own into the instructor's
     * console. Other characters are kept.
     */
    public static String printable(String name) {
        StringBuilder b = new StringBuilder(name.length());
        name.codePoints().forEach(c -> {
            switch (c) {
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    int type = Character.getType(c);
                    if (type == Character.CONTROL || type == Character.FORMAT || type == Character.UNASSIGNED
                            || type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR
                            || type == Character.SURROGATE || type == Character.PRIVATE_USE) {
                        b.append(c <= 0xFFFF ? String.format("\\u%04X", c) : String.format("\\U%06X", c));
                    } else {
                        b.appendCodePoint(c);
                    }
                }
            }
        });
        return b.toString();
    }

    /** Where the grader keeps its copy of the stubs, as class path resources ({@code <File>.java}). */
    static final String STUBS = "/dev/shardlings/grader/stubs/";

    /**
     * Writes the grader's copy of the course stubs into {@code dir}. The copy, not exercises/, is what stands in for a
     * broken file: in a student's repository exercises/ holds the student's own edits. (The build copies it from
     * exercises/ in the course's repository; a student release freezes it in grader/src/stubs.)
     *
     * @return {@code dir}
     * @throws IOException if a stub cannot be read or written
     */
    public static Path writeStubs(Path dir) throws IOException {
        Files.createDirectories(dir);
        for (String name : COURSE_FILES) {
            try (java.io.InputStream in = SubmissionGrading.class.getResourceAsStream(STUBS + name)) {
                if (in == null) {
                    throw new IOException("the grader has no stub " + name + " (resource " + STUBS + name + ")");
                }
                Files.copy(in, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return dir;
    }

    /** Why a course file is graded as its stub when the submission does not have it. */
    static final String MISSING = "not in the submission";

    /** The largest course file taken. */
    static final int MAX_FILE = 1 << 20;

    /** {@link #prepare(Path, Path, Path, Path)} naming every file it does not take (no course to compare with). */
    public static Intake prepare(Path stubs, Path submission, Path dir) throws IOException {
        return prepare(stubs, null, submission, dir);
    }

    /**
     * Puts the sources to compile in {@code dir}: the submission's course files where they are regular files, read
     * as bytes, the course's stubs for the others. The course files are found by {@link CourseSearch}: in the
     * submission itself, in its exercises/src/main/java/dev/shardlings/course/, or the same below one or two
     * wrapping folders (a zipped folder, GitHub's repo-main/), taken from the place nearest the top that holds
     * any. Nothing under the submission is reached through a symbolic link ({@link SubmissionFolder}): a submission,
     * or a folder on the way to exercises/src/main/java/dev/shardlings/course, that is a link is refused as a whole,
     * and so is one with more than {@value CourseSearch#MAX_ENTRIES} entries where the files are looked for. A course
     * file that is missing, is a link or not a regular file, or is there twice at that place (e.g. at the top and
     * in exercises/…) is graded as its stub with its reason: the grader does not guess which copy was meant, and
     * the other files keep their points. What package a file is in, and whether it compiles, javac decides
     * ({@link #compile}).
     *
     * @param stubs      the folder holding the pristine stubs of the course files
     * @param course     the pristine course: a file of a copy of the course that the course has at the same place
     *                   (README.md, pom.xml …) is counted rather than named; null to name every file not taken
     * @param submission the student's repository, or the folder holding their course files
     * @return what was taken, ignored and replaced by a stub (with why), or why the whole submission was refused
     * @throws IOException if a copy fails
     */
    public static Intake prepare(Path stubs, Path course, Path submission, Path dir) throws IOException {
        Path out = dir.resolve("dev/shardlings/course");
        Files.createDirectories(out);
        List<String> taken = new ArrayList<>();
        Map<String, String> ignored = new LinkedHashMap<>();
        Map<String, String> replaced = new TreeMap<>();
        Map<String, String> details = new TreeMap<>();
        Map<String, String> shown = new TreeMap<>();
        List<String> from = new ArrayList<>();
        int courseOwn = 0;
        String refusal = null;
        try (SubmissionFolder source = SubmissionFolder.open(submission)) {
            CourseSearch.Found found = source == null ? null : CourseSearch.search(source, course);
            if (found != null) {
                courseOwn = found.courseOwn();
                for (CourseSearch.Entry e : found.ignored()) {
                    ignored.put(e.shown(), ignoredWhy(e));
                }
                found.folders().forEach(f -> from.add(folderShown(submission, f)));
            }
            for (String name : COURSE_FILES) {
                List<CourseSearch.Entry> at = found == null ? List.of() : found.candidates().get(name);
                String why = null;
                if (at.isEmpty()) {
                    why = MISSING;
                    details.put(name, missing(name, found, submission));
                } else if (at.size() > 1) {
                    why = "in the submission more than once";
                    details.put(name, "It is at " + String.join(" and at ", at.stream().map(CourseSearch.Entry::shown)
                            .toList()) + ". The grader does not guess which one you meant: keep one, delete or"
                            + " rename the other" + (at.size() > 2 ? "s" : "") + ", and submit again.");
                } else {
                    CourseSearch.Entry e = at.get(0);
                    shown.put(name, folderShown(submission, e.folder()) + name);
                    why = switch (e.kind()) {
                        case LINK -> "a symbolic link (upload the file itself)";
                        case HARD_LINK -> "a hard link, a second name of another file (upload a copy of the file)";
                        case FOLDER, OTHER, MISSING -> "not a regular file";
                        case FILE -> null;
                    };
                }
                byte[] bytes = null;
                if (why == null) {
                    try {
                        bytes = CourseSearch.read(source, at.get(0), MAX_FILE);
                        if (bytes.length > MAX_FILE) {
                            why = "larger than 1 MB";
                        }
                    } catch (java.nio.file.FileSystemException e) {
                        // Unreadable, or a link swapped in after the check (the no-follow open refuses it).
                        why = "unreadable (" + printable(Guard.clip(String.valueOf(e.getReason()), 200)) + ")";
                    }
                }
                if (why == null) {
                    Files.write(out.resolve(name), bytes);
                    taken.add(name);
                } else {
                    Files.copy(stubs.resolve(name), out.resolve(name), StandardCopyOption.REPLACE_EXISTING);
                    replaced.put(name, why);
                }
            }
        } catch (SubmissionFolder.Refused e) {
            refusal = e.getMessage();
        } catch (java.nio.file.FileSystemException e) {
            // A folder that cannot be read, or a link swapped in on the way after it was checked (the no-follow
            // open refuses it).
            refusal = "the submission could not be read (" + printable(Guard.clip(String.valueOf(e.getReason()), 200))
                    + "); upload the files themselves";
        }
        if (refusal != null) {
            taken.clear();
            ignored.clear();
            replaced.clear();
            details.clear();
            from.clear();
            courseOwn = 0;
            for (String name : COURSE_FILES) {
                Files.copy(stubs.resolve(name), out.resolve(name), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return new Intake(List.copyOf(taken), from, ignored, courseOwn, replaced, details, shown, refusal);
    }

    /** Why an entry the search saw is not taken, in words for the student. */
    private static String ignoredWhy(CourseSearch.Entry e) {
        return switch (e.kind()) {
            case LINK -> "a symbolic link, not followed";
            case HARD_LINK -> "a hard link (a second name of another file), not taken";
            case FOLDER -> "a folder where no course file is looked for";
            case OTHER, MISSING -> "not a regular file";
            case FILE -> COURSE_FILES.contains(e.name())
                    ? "a course file outside the folder the course files are taken from"
                    : "not one of the course files";
        };
    }

    /** Why a course file is missing: where the others were found, or where the files are looked for. */
    private static String missing(String name, CourseSearch.Found found, Path submission) {
        if (found == null || found.level() < 0) {
            return "No course file is in the submission: they are looked for in its top folder, in "
                    + EXERCISES.toString().replace(java.io.File.separatorChar, '/') + "/, and in both below one or"
                    + " two folders (such as a zipped folder or GitHub's repo-main/).";
        }
        StringBuilder sb = new StringBuilder("The other course files were taken from " + String.join(" and ",
                found.folders().stream().map(f -> folderShown(submission, f)).toList()) + ", and " + name
                + " is not there.");
        for (CourseSearch.Entry e : found.others().get(name)) {
            sb.append(" The ").append(name).append(" at ").append(e.shown()).append(" was not taken: the course"
                    + " files are taken from the one place nearest the top of the submission that holds any of"
                    + " them.");
        }
        return sb.toString();
    }

    /** How a folder of the submission (a path from its top) is named to the student, ending with a slash. */
    private static String folderShown(Path submission, List<String> folder) {
        return folder.isEmpty() ? shownFolder(submission) : printable(String.join("/", folder)) + "/";
    }

    /**
     * How compiler messages name the folder of the course files: the path the student knows
     * ({@code exercises/src/main/java/dev/shardlings/course/}) when the submission is a copy of the course, else the
     * submission's folder name (printable); never the temporary folder the files are compiled in.
     */
    public static String shownFolder(Path submission) {
        Path s = submission.toAbsolutePath().normalize();
        if (Files.isDirectory(s.resolve(EXERCISES), LinkOption.NOFOLLOW_LINKS) || s.endsWith(EXERCISES)) {
            return EXERCISES.toString().replace(java.io.File.separatorChar, '/') + "/";
        }
        Path name = s.getFileName();
        return name == null ? "" : printable(name.toString()) + "/";
    }

    /**
     * Compiles the course files in {@code sources} into {@code classes} against the framework, javac in a JVM of its
     * own ({@link CourseCompiler}); a file that javac does not place in package dev.shardlings.course, that does not
     * compile, crashes javac or takes it longer than {@code limit} is replaced by its stub from {@code stubs}, and
     * the rest compiled again.
     *
     * @param shown where the messages say the files are (the student's own folder, never the temporary copy)
     * @return the files replaced, with why
     * @throws IOException           if a file cannot be read or written
     * @throws IllegalStateException if even the stubs do not compile
     */
    public static Map<String, Stubbed> compile(Path sources, Path classes, Path stubs, String shown, Duration limit)
            throws IOException {
        try (CourseCompiler javac = new CourseCompiler(limit)) {
            return javac.compile(sources, classes, stubs, f -> shown + f, Map.of());
        }
    }

    /**
     * {@link #compile(Path, Path, Path, String, Duration)} with the default limit, each replaced file with its
     * compiler messages (or its reason when it has none).
     */
    public static Map<String, String> compile(Path sources, Path classes, Path stubs, String shown)
            throws IOException {
        Map<String, String> broken = new TreeMap<>();
        compile(sources, classes, stubs, shown, CourseCompiler.LIMIT).forEach((f, why) -> broken.put(f,
                why.details().isEmpty() ? why.reason() : why.details()));
        return broken;
    }
}
