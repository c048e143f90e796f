package dev.shardlings.grader.selftest;

import dev.shardlings.grader.parts.CourseMethod;
import dev.shardlings.grader.grade.IsolatedGrading;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.grade.Course;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the course's stub sources and the parts' course methods, for the self-tests that keep them in step. */
final class CourseSources {

    static final Path EXERCISES = Path.of("..", "exercises", "src", "main", "java", "dev", "shardlings", "course");

    private CourseSources() {
    }

    /** The Javadoc of the public static method {@code m} in the stubs, with the comment markers removed. */
    static String javadoc(CourseMethod<?> m) throws IOException {
        String src = Files.readString(EXERCISES.resolve(m.className() + ".java"));
        Matcher doc = Pattern.compile("/\\*\\*((?:(?!\\*/).)*)\\*/\\s*public static \\S+ " + m.methodName() + "\\(",
                Pattern.DOTALL).matcher(src);
        if (!doc.find()) {
            throw new AssertionError("no Javadoc for " + m.signature() + " in " + EXERCISES);
        }
        // a blank line between paragraphs (" *" alone) folds away with the line break before it
        return doc.group(1).replaceAll("(?:\\s*\\n\\s*\\*)+\\s?", " ").strip();
    }

    /** The body of method {@code m} in the stubs (up to the next closing brace at method level). */
    static String body(CourseMethod<?> m) throws IOException {
        String src = Files.readString(EXERCISES.resolve(m.className() + ".java"));
        Matcher head = Pattern.compile("public static \\S+ " + m.methodName() + "\\([^)]*\\) \\{").matcher(src);
        if (!head.find()) {
            throw new AssertionError("no method " + m.signature() + " in " + EXERCISES);
        }
        int end = src.indexOf("\n    }\n", head.end());
        return src.substring(head.end(), end);
    }

    /** The clauses of the "Graded:" paragraph of {@code m}'s Javadoc, split at "; ", without the final period. */
    static List<String> gradedClauses(CourseMethod<?> m) throws IOException {
        return clauses(javadoc(m), "<p>Graded:");
    }

    /**
     * The clauses of the "Graded (N.Mp, …):" paragraph of {@code m}'s Javadoc, which states what performance part
     * {@code number} checks on its measured run; empty when the Javadoc has none.
     */
    static List<String> performanceClauses(CourseMethod<?> m, String number) throws IOException {
        return clauses(javadoc(m), "<p>Graded \\(" + Pattern.quote(number) + "(?:, [^)]*)?\\):");
    }

    /** The clauses of the paragraph that {@code head} (a regex) opens, up to the next paragraph or "Docs:". */
    private static List<String> clauses(String doc, String head) {
        Matcher g = Pattern.compile(head + "(.*?)(?:<p>|Docs:|$)", Pattern.DOTALL).matcher(doc);
        if (!g.find()) {
            return List.of();
        }
        String text = g.group(1).strip();
        if (text.endsWith(".")) {
            text = text.substring(0, text.length() - 1);
        }
        List<String> out = new ArrayList<>();
        for (String c : text.split("; ")) {
            out.add(c.strip());
        }
        return out;
    }

    /** Every course method the parts call, once each, in course order. */
    static List<CourseMethod<?>> courseMethods() {
        return Course.all().stream().flatMap(p -> p.methods().stream()).distinct().toList();
    }
}
