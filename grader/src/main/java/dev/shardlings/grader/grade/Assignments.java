package dev.shardlings.grader.grade;

import dev.shardlings.grader.parts.Part;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The assignments an instructor grades: named sets of parts. Every course has one per chapter ({@code chapter-0},
 * {@code problem-1} … {@code problem-4}, {@code chapter-5}, {@code chapter-6}, {@code chapter-7}: that chapter's parts, its
 * performance parts included) and {@link #COURSE} (every part); an instructor adds their own in
 * {@link #FILE} at the course root, a JSON object from assignment name to part numbers or globs of them:
 *
 * <pre>
 * { "week-1": ["0.*", "1.1a", "1.1b"], "performance": ["*p"] }
 * </pre>
 *
 * A results.json of an assignment holds and scores its parts only; the Gradescope zip and the Classroom workflow
 * come one per assignment.
 */
public final class Assignments {

    /** The instructor's assignments, at the course root. */
    public static final String FILE = "assignments.json";

    /** The name of the assignment of every part. */
    public static final String COURSE = "course";

    /** A name fit for a file, a workflow and a command line. */
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One assignment.
     *
     * @param name  e.g. {@code problem-1}
     * @param parts its parts, in course order (never empty)
     */
    public record Assignment(String name, List<Part> parts) {
        public Assignment {
            parts = List.copyOf(parts);
        }

        /** The sum of its parts' points. */
        public int points() {
            return parts.stream().mapToInt(Part::points).sum();
        }

        /** Whether it holds this part. */
        public boolean holds(Part p) {
            return parts.contains(p);
        }
    }

    private final Map<String, Assignment> byName;

    private Assignments(Map<String, Assignment> byName) {
        this.byName = java.util.Collections.unmodifiableMap(byName);
    }

    /** The assignments every course has: one per chapter, then the whole course. */
    public static Assignments defaults() {
        Map<String, Assignment> m = new LinkedHashMap<>();
        for (List<Part> chapter : Course.CHAPTERS) {
            String name = chapter.get(0).chapter().name().replace(' ', '-');
            m.put(name, new Assignment(name, Course.all().stream().filter(chapter::contains).toList()));
        }
        m.put(COURSE, new Assignment(COURSE, Course.all()));
        return new Assignments(m);
    }

    /**
     * The defaults and the instructor's assignments of a course: those of {@code courseRoot/assignments.json} when
     * it exists.
     *
     * @throws IllegalArgumentException naming the file and the entry when it is not valid
     */
    public static Assignments of(Path courseRoot) throws IOException {
        Path file = courseRoot.resolve(FILE);
        return Files.isRegularFile(file) ? parse(Files.readString(file), file.toString()) : defaults();
    }

    /**
     * The defaults and the assignments of {@code json}, an object of name → array of part numbers or globs.
     *
     * @param where the file, for messages
     * @throws IllegalArgumentException naming {@code where} and the entry: not an object, a bad name, a name the
     *                                  defaults already use, an entry that is not a list of strings, a pattern that
     *                                  matches no part, an assignment with no part
     */
    static Assignments parse(String json, String where) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(where + " is not JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException(where + " must be a JSON object of assignment name → list of part"
                    + " numbers, e.g. {\"week-1\": [\"0.*\", \"1.1a\"]}");
        }
        Map<String, Assignment> m = new LinkedHashMap<>(defaults().byName);
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String name = e.getKey();
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException(where + ": the assignment name '" + name + "' must be lower-case"
                        + " letters, digits, '.', '_' or '-' (at most 64), starting with a letter or digit");
            }
            if (m.containsKey(name)) {
                throw new IllegalArgumentException(where + ": '" + name + "' is already an assignment of every"
                        + " course (" + String.join(", ", m.keySet()) + "); choose another name");
            }
            if (!e.getValue().isArray() || e.getValue().isEmpty()) {
                throw new IllegalArgumentException(where + ": '" + name + "' must be a non-empty list of part"
                        + " numbers or globs, e.g. [\"1.*\", \"2.1\"]");
            }
            List<String> patterns = new ArrayList<>();
            for (JsonNode p : e.getValue()) {
                if (!p.isTextual()) {
                    throw new IllegalArgumentException(where + ": '" + name + "' lists " + p + ", not a part number");
                }
                patterns.add(p.asText());
            }
            m.put(name, new Assignment(name, select(patterns, where + ": '" + name + "'")));
        }
        return new Assignments(m);
    }

    /**
     * The parts matching any of the patterns (part numbers such as {@code 1.2a}, or globs such as {@code 1.*} and
     * {@code *p}), in course order.
     *
     * @param context what the patterns belong to, for the message
     * @throws IllegalArgumentException naming every pattern that matches no part, and the parts there are
     */
    public static List<Part> select(List<String> patterns, String context) {
        Set<Part> chosen = new LinkedHashSet<>();
        List<String> unknown = new ArrayList<>();
        for (String pattern : patterns) {
            String p = pattern.strip();
            PathMatcher glob = FileSystems.getDefault().getPathMatcher("glob:" + p);
            List<Part> hits = p.isEmpty() ? List.of()
                    : Course.all().stream().filter(x -> glob.matches(Path.of(x.number()))).toList();
            if (hits.isEmpty()) {
                unknown.add("'" + pattern + "'");
            }
            chosen.addAll(hits);
        }
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException(context + ": " + String.join(", ", unknown) + " match"
                    + (unknown.size() == 1 ? "es" : "") + " no part (the parts: "
                    + String.join(", ", Course.all().stream().map(Part::number).toList()) + ")");
        }
        return Course.all().stream().filter(chosen::contains).toList();
    }

    /** Every assignment, the defaults first. */
    public List<Assignment> all() {
        return List.copyOf(byName.values());
    }

    /**
     * The assignment of this name; blank: the whole course.
     *
     * @throws IllegalArgumentException naming the assignments there are
     */
    public Assignment named(String name) {
        String n = name == null ? "" : name.strip().toLowerCase(Locale.ROOT);
        Assignment a = byName.get(n.isEmpty() ? COURSE : n);
        if (a == null) {
            throw new IllegalArgumentException("no assignment '" + name + "'; the assignments: "
                    + String.join(", ", byName.keySet()) + " (add your own in " + FILE + " at the course root)");
        }
        return a;
    }
}
