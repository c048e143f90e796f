package dev.shardlings.grader.grade;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Finds a submission's course files wherever an upload puts them, reading through {@link SubmissionFolder} (no
 * link is ever followed). A course folder is a folder of the submission whose path is at most
 * {@value #MAX_WRAPPING} folders of any name (a zipped folder, GitHub's {@code repo-main/}, both) followed by a
 * tail of {@code exercises/src/main/java/dev/shardlings/course} (all of it, part of it such as {@code course}, or
 * none): the submission itself, {@code exercises/src/main/java/dev/shardlings/course/},
 * {@code shardlings-students/exercises/…/course/}, {@code repo-main/} … The course files are taken from the
 * course folders with the fewest wrapping folders that hold any course file, so a stray copy deeper down (an old
 * {@code Chapter5.java} in {@code notes/}) is ignored, not mixed in; two candidates for one file at that level are
 * an ambiguity the student must resolve (see {@link SubmissionGrading#prepare}).
 *
 * <p>The search is bounded: below the wrapping folders it enters only folders on the way to the course files,
 * never a hidden folder ({@code .git}, {@code __MACOSX}), and a submission with more than {@value #MAX_ENTRIES}
 * entries where it looks is refused as a whole, so a million folders cost a moment, not the grade. Every entry
 * not taken is named for the student; a folder the search did not enter is named by its files, at most
 * {@value #MAX_NAMED} entries and {@value #NAMED_DEPTH} folders down (then by its own name), except the course's
 * own (a copy of the course brings its README.md, pom.xml, framework/ …), which are counted.
 */
final class CourseSearch {

    /** The most folders of any name above the course files (e.g. {@code upload/repo-main/}). */
    static final int MAX_WRAPPING = 2;

    /** The most files and folders looked at; one more refuses the submission. */
    static final int MAX_ENTRIES = 20_000;

    /** The most entries listed below folders the search did not enter; past it a folder is named as a whole. */
    static final int MAX_NAMED = 1_000;
    /** The most folders below such a folder whose files are listed. */
    private static final int NAMED_DEPTH = 4;

    /** The way from a copy of the course to its course files, one folder a step. */
    private static final List<String> WAY = java.util.stream.StreamSupport.stream(
            SubmissionGrading.EXERCISES.spliterator(), false).map(Path::toString).toList();

    /** One entry of the submission, by its path from the submission's top; links are not followed. */
    record Entry(List<String> path, SubmissionFolder.Kind kind) {
        Entry {
            path = List.copyOf(path);
        }

        String name() {
            return path.get(path.size() - 1);
        }

        /** The folder holding it, as a path from the top. */
        List<String> folder() {
            return path.subList(0, path.size() - 1);
        }

        /** Its path from the submission's top, printable, a folder with a trailing slash. */
        String shown() {
            return SubmissionGrading.printable(String.join("/", path)) + (kind == SubmissionFolder.Kind.FOLDER
                    ? "/" : "");
        }
    }

    /**
     * What the search found.
     *
     * @param candidates for each course file, in course order, the entries it may be taken from (none: missing;
     *                   more than one: ambiguous), all in course folders of the level taken
     * @param others     the same file's entries in course folders deeper down, which are not taken
     * @param ignored    every other entry seen (a folder not searched is one entry), in path order; none is taken
     * @param courseOwn  how many entries were left out of {@code ignored} because the course itself has them at the
     *                   same place (README.md, pom.xml, framework/ … of a copy of the course)
     * @param level      how many folders wrap the course files (-1 when no course file was found)
     * @param folders    the course folders of that level, as paths from the top (empty when none)
     */
    record Found(Map<String, List<Entry>> candidates, Map<String, List<Entry>> others, List<Entry> ignored,
                 int courseOwn, int level, List<List<String>> folders) {
    }

    private final List<Entry> seen = new ArrayList<>();
    private int entries;

    private CourseSearch() {
    }

    /**
     * Searches the submission below {@code root}.
     *
     * @param course the pristine course, whose own files are counted rather than named (null: name everything)
     * @throws SubmissionFolder.Refused when a folder on the way to exercises/src/main/java/dev/shardlings/course is a
     *                                  link, or there are more than {@value #MAX_ENTRIES} entries to look at
     * @throws IOException              when a folder cannot be read
     */
    static Found search(SubmissionFolder root, Path course) throws SubmissionFolder.Refused, IOException {
        CourseSearch s = new CourseSearch();
        s.walk(root, List.of());
        Found f = s.found(course);
        // A folder the search did not enter is named by its files (extra/Helper.java, old/Chapter5.java), so the
        // student sees each file that was not graded; hidden folders (.git) stay one name.
        List<Entry> named = new ArrayList<>();
        int[] budget = {MAX_NAMED};
        for (Entry e : f.ignored()) {
            if (e.kind() == SubmissionFolder.Kind.FOLDER && !hidden(e.name())) {
                try (Opened at = open(root, e.path())) {
                    s.name(at.folder(), e, named, budget, 0);
                }
            } else {
                named.add(e);
            }
        }
        return new Found(f.candidates(), f.others(), List.copyOf(named), f.courseOwn(), f.level(), f.folders());
    }

    /** Adds the files below {@code folder} to {@code named}, or the folder itself when it is empty or too big. */
    private void name(SubmissionFolder dir, Entry folder, List<Entry> named, int[] budget, int depth)
            throws IOException {
        List<String> names = dir.names(budget[0]);
        if (names.isEmpty() || names.size() > budget[0] || depth > NAMED_DEPTH) {
            named.add(folder);
            budget[0] = Math.max(0, budget[0] - names.size());
            return;
        }
        budget[0] -= names.size();
        for (String n : names.stream().sorted().toList()) {
            List<String> child = new ArrayList<>(folder.path());
            child.add(n);
            Entry e = new Entry(child, dir.kind(n));
            if (e.kind() == SubmissionFolder.Kind.FOLDER && !hidden(n)) {
                try (SubmissionFolder sub = dir.folder(n)) {
                    name(sub, e, named, budget, depth + 1);
                }
            } else {
                named.add(e);
            }
        }
    }

    /** A folder opened from the top one step at a time, and the folders on its way, closed together. */
    private record Opened(List<SubmissionFolder> way) implements AutoCloseable {
        SubmissionFolder folder() {
            return way.get(way.size() - 1);
        }

        @Override
        public void close() throws IOException {
            for (SubmissionFolder f : way.subList(1, way.size())) {
                f.close();
            }
        }
    }

    /**
     * The folder {@code path} below {@code root}, reached one folder at a time without following a link (a folder
     * swapped for a link since the search is refused by the no-follow open, or by the check before it where the
     * platform has no such open).
     *
     * @throws java.nio.file.FileSystemException when a step is no longer a folder
     */
    private static Opened open(SubmissionFolder root, List<String> path) throws IOException {
        List<SubmissionFolder> way = new ArrayList<>(List.of(root));
        try {
            for (String step : path) {
                SubmissionFolder at = way.get(way.size() - 1);
                if (at.kind(step) != SubmissionFolder.Kind.FOLDER) {
                    throw new java.nio.file.FileSystemException(String.join("/", path), null,
                            "a folder on its way changed while it was read");
                }
                way.add(at.folder(step));
            }
            return new Opened(way);
        } catch (IOException | RuntimeException e) {
            new Opened(way).close();
            throw e;
        }
    }

    private void walk(SubmissionFolder dir, List<String> path) throws SubmissionFolder.Refused, IOException {
        List<String> names = dir.names(MAX_ENTRIES - entries);
        entries += names.size();
        if (entries > MAX_ENTRIES) {
            throw new SubmissionFolder.Refused("the submission has more than " + MAX_ENTRIES + " files and folders"
                    + " where the course files could be; upload the course files, or your repository without build"
                    + " output");
        }
        for (String name : names.stream().sorted().toList()) {
            List<String> child = new ArrayList<>(path);
            child.add(name);
            SubmissionFolder.Kind kind = dir.kind(name);
            if (kind == SubmissionFolder.Kind.LINK && onTheWay(child)) {
                throw new SubmissionFolder.Refused("the submission's folder " + SubmissionGrading.printable(
                        String.join("/", child)) + " is a symbolic link; upload the files themselves");
            }
            if (kind == SubmissionFolder.Kind.FOLDER && searched(child)) {
                if (SubmissionGrading.COURSE_FILES.contains(name)) {
                    seen.add(new Entry(child, kind)); // a folder named like a course file is a candidate too
                }
                try (SubmissionFolder sub = dir.folder(name)) {
                    walk(sub, child);
                }
            } else {
                seen.add(new Entry(child, kind));
            }
        }
    }

    private Found found(Path course) {
        int level = -1;
        for (Entry e : seen) {
            int l = level(e.folder());
            if (l >= 0 && SubmissionGrading.COURSE_FILES.contains(e.name()) && (level < 0 || l < level)) {
                level = l;
            }
        }
        Map<String, List<Entry>> candidates = new LinkedHashMap<>();
        Map<String, List<Entry>> others = new LinkedHashMap<>();
        for (String f : SubmissionGrading.COURSE_FILES) {
            candidates.put(f, new ArrayList<>());
            others.put(f, new ArrayList<>());
        }
        Map<List<String>, Boolean> folders = new LinkedHashMap<>();
        List<Entry> ignored = new ArrayList<>();
        for (Entry e : seen) {
            int l = level(e.folder());
            boolean courseFile = l >= 0 && SubmissionGrading.COURSE_FILES.contains(e.name());
            if (courseFile && l == level) {
                candidates.get(e.name()).add(e);
                folders.put(e.folder(), true);
            } else {
                if (courseFile) {
                    others.get(e.name()).add(e);
                }
                if (e.kind() != SubmissionFolder.Kind.FOLDER || !SubmissionGrading.COURSE_FILES.contains(e.name())
                        || !searched(e.path())) {
                    ignored.add(e);
                }
            }
        }
        // A copy of the course brings the course's own files (README.md, pom.xml, framework/ …): counted, not named.
        List<String> copyRoot = folders.keySet().stream().filter(f -> f.size() >= WAY.size()
                && f.subList(f.size() - WAY.size(), f.size()).equals(WAY)).map(f -> f.subList(0, f.size()
                - WAY.size())).findFirst().orElse(null);
        int own = 0;
        if (course != null && copyRoot != null) {
            List<Entry> named = new ArrayList<>();
            for (Entry e : ignored) {
                boolean theirs = e.path().size() > copyRoot.size()
                        && e.path().subList(0, copyRoot.size()).equals(copyRoot)
                        && !SubmissionGrading.COURSE_FILES.contains(e.name())
                        && Files.exists(course.resolve(String.join("/", e.path().subList(copyRoot.size(),
                        e.path().size()))), LinkOption.NOFOLLOW_LINKS);
                if (theirs) {
                    own++;
                } else {
                    named.add(e);
                }
            }
            ignored = named;
        }
        Map<String, List<Entry>> c = new TreeMap<>(java.util.Comparator.comparingInt(
                SubmissionGrading.COURSE_FILES::indexOf));
        c.putAll(candidates);
        Map<String, List<Entry>> o = new TreeMap<>(java.util.Comparator.comparingInt(
                SubmissionGrading.COURSE_FILES::indexOf));
        o.putAll(others);
        return new Found(java.util.Collections.unmodifiableMap(c), java.util.Collections.unmodifiableMap(o),
                List.copyOf(ignored), own, level, List.copyOf(folders.keySet()));
    }

    /**
     * The first {@code max} bytes of the regular file {@code e} and one more when there are more, reached from
     * {@code root} one folder at a time without following a link (a folder swapped for a link since the search is
     * refused by the no-follow open, or by the check before it where the platform has no such open).
     *
     * @throws java.nio.file.FileSystemException when a step is no longer a folder, or the file cannot be read
     */
    static byte[] read(SubmissionFolder root, Entry e, int max) throws IOException {
        try (Opened at = open(root, e.folder())) {
            return at.folder().read(e.name(), max);
        }
    }

    /**
     * How many folders wrap the course folder {@code folder} (a path from the top): the fewest leading folders
     * after which the rest is a tail of {@link #WAY}; -1 when it is not a course folder.
     */
    static int level(List<String> folder) {
        for (int k = 0; k <= Math.min(MAX_WRAPPING, folder.size()); k++) {
            List<String> rest = folder.subList(k, folder.size());
            if (rest.size() <= WAY.size() && WAY.subList(WAY.size() - rest.size(), WAY.size()).equals(rest)) {
                return k;
            }
        }
        return -1;
    }

    /** Whether the folder {@code path} is entered: it is, or may lead to, a course folder; never a hidden one. */
    private static boolean searched(List<String> path) {
        if (hidden(path.get(path.size() - 1))) {
            return false;
        }
        for (int k = 0; k <= Math.min(MAX_WRAPPING, path.size()); k++) {
            if (java.util.Collections.indexOfSubList(WAY, path.subList(k, path.size())) >= 0) {
                return true;
            }
        }
        return false;
    }

    /** A folder no course file is looked for in, nor named by its files: .git, .idea, macOS's __MACOSX. */
    private static boolean hidden(String name) {
        return name.startsWith(".") || name.equals("__MACOSX");
    }

    /** Whether {@code path} is a step of exercises/src/main/java/dev/shardlings/course below its wrapping folders. */
    private static boolean onTheWay(List<String> path) {
        for (int k = 0; k < Math.min(MAX_WRAPPING + 1, path.size()); k++) {
            List<String> rest = path.subList(k, path.size());
            if (rest.size() <= WAY.size() && WAY.subList(0, rest.size()).equals(rest)) {
                return true;
            }
        }
        return false;
    }
}
