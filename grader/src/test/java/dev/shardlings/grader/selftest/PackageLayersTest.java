package dev.shardlings.grader.selftest;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The grader's packages read top to bottom as the data flows: each imports only its own floor and the floors below,
 * and no packages import one another round in a cycle. Read from the import lines (and fully qualified names) of
 * the grader's main sources, so a new upward import fails the build with the line that made it.
 */
class PackageLayersTest {

    private static final String GRADER = "dev.shardlings.grader";

    /**
     * The floors, bottom first. Packages on one floor may import one another, as long as
     * no cycle comes of it.
     */
    static final List<List<String>> FLOORS = List.of(
            // the untrusted runner: the sandbox JVM's own classes, nothing of the judge
            List.of("sandbox", "sandboxboot"),
            // the judge's side of the sandbox: process tree, class-path copy, users, capped output
            List.of("host"),
            // the part registry's types: Part (a row), CourseMethod (typed, proxied to the sandbox), Check,
            // Requirement, CheckLog, the performance parts' setting and result
            List.of("parts"),
            // one call of student code under guard, and the reports of what it did
            List.of("judge"),
            // the check library: values, trace rules, modelled time, generic generators
            List.of("checks"),
            // each chapter's cases, oracles and checks
            List.of("chapter0", "problem1", "problem2", "problem3", "problem4", "chapter5", "chapter6", "chapter7"),
            // grading runs: the course (its chapters' tables in order) run as JUnit tests, isolated, submission,
            // batch, results, score table
            List.of("grade"),
            // distribution: student release, Gradescope zip, Classroom workflow
            List.of("tools"));


    private static final Pattern IMPORT = Pattern.compile(
            "^import\\s+(?:static\\s+)?(dev\\.shardlings\\.grader\\.[\\w.]+)\\s*;", Pattern.MULTILINE);
    private static final Pattern QUALIFIED = Pattern.compile("(?<![\\w.])(dev\\.shardlings\\.grader(?:\\.[a-z]\\w*)*"
            + "\\.[A-Z]\\w*)");

    @Test
    void noGraderPackageImportsOneAboveItOrRoundACycle() throws IOException {
        Path main = Path.of("src/main/java");
        Map<String, String> sources = new TreeMap<>();
        try (Stream<Path> files = Files.walk(main.resolve(GRADER.replace('.', '/')))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                sources.put(main.relativize(f).toString().replace('\\', '/'), Files.readString(f));
            }
        }
        assertTrue(sources.size() > 30, "the grader's main sources were not found under " + main.toAbsolutePath());
        assertTrue(FLOORS.size() <= 8, "at most 8 floors: " + FLOORS.size());
        assertEquals(FLOORS.stream().mapToLong(List::size).sum(), FLOORS.stream().flatMap(List::stream).distinct()
                .count(), "a package is on two floors");
        assertEquals(List.of(), violations(sources));
    }

    @Test
    void anUpwardImportAndACycleAreNamed() {
        Map<String, String> sources = new LinkedHashMap<>();
        sources.put("dev/shardlings/grader/host/Sandbox.java",
                "package dev.shardlings.grader.host;\nimport dev.shardlings.grader.judge.Guard;\nclass Sandbox {}\n");
        sources.put("dev/shardlings/grader/problem3/A.java",
                "package dev.shardlings.grader.problem3;\nimport dev.shardlings.grader.problem4.B;\nclass A {}\n");
        sources.put("dev/shardlings/grader/problem4/B.java", "package dev.shardlings.grader.problem4;\n"
                + "// dev.shardlings.grader.tools.X in a comment is no import\nclass B { Object a ="
                + " dev.shardlings.grader.problem3.A.class; }\n");
        sources.put("dev/shardlings/grader/judge/Guard.java", "package dev.shardlings.grader.judge;\nclass Guard {}\n");
        sources.put("dev/shardlings/grader/extra/C.java", "package dev.shardlings.grader.extra;\nclass C {}\n");
        assertEquals(List.of("dev/shardlings/grader/host/Sandbox.java imports dev.shardlings.grader.judge.Guard:"
                        + " host (floor 2) imports judge, which is above it (floor 4)",
                "dev/shardlings/grader/extra/C.java: package extra is on no floor of PackageLayersTest.FLOORS (add"
                        + " it where it belongs in the flow)",
                "import cycle problem3 -> problem4 -> problem3: dev/shardlings/grader/problem3/A.java imports"
                        + " dev.shardlings.grader.problem4.B; dev/shardlings/grader/problem4/B.java imports"
                        + " dev.shardlings.grader.problem3.A"),
                violations(sources));
    }

    /**
     * What breaks the layering in {@code sources} (path under the source root → text): packages on no floor,
     * imports of a floor above, and cycles between packages, each named by the imports that make it.
     */
    static List<String> violations(Map<String, String> sources) {
        Map<String, Integer> floor = new LinkedHashMap<>();
        for (int i = 0; i < FLOORS.size(); i++) {
            for (String p : FLOORS.get(i)) {
                floor.put(p, i + 1);
            }
        }
        List<String> out = new ArrayList<>();
        // package → imported package → the first import that makes the edge
        Map<String, Map<String, String>> edges = new TreeMap<>();
        Set<String> packages = new LinkedHashSet<>();
        sources.forEach((file, text) -> packages.add(packageOf(file)));
        sources.forEach((file, text) -> {
            String from = packageOf(file);
            if (!floor.containsKey(from)) {
                out.add(file + ": package " + from + " is on no floor of PackageLayersTest.FLOORS (add it where it"
                        + " belongs in the flow)");
                return;
            }
            for (String name : referenced(text)) {
                String to = packageOfName(name, packages);
                if (to == null || to.equals(from)) {
                    continue;
                }
                String edge = file + " imports " + name;
                Integer above = floor.get(to);
                if (above != null && above > floor.get(from)) {
                    out.add(edge + ": " + shown(from) + " (floor " + floor.get(from) + ") imports " + shown(to)
                            + ", which is above it (floor " + above + ")");
                }
                edges.computeIfAbsent(from, k -> new TreeMap<>()).putIfAbsent(to, edge);
            }
        });
        out.addAll(cycles(edges));
        return out;
    }

    /** Each cycle of the package graph once, from its smallest package, with the import behind every step. */
    private static List<String> cycles(Map<String, Map<String, String>> edges) {
        Set<String> found = new LinkedHashSet<>();
        for (String start : edges.keySet()) {
            walk(start, new ArrayList<>(List.of(start)), edges, found);
        }
        return List.copyOf(found);
    }

    private static void walk(String at, List<String> path, Map<String, Map<String, String>> edges, Set<String> found) {
        for (String next : edges.getOrDefault(at, Map.of()).keySet()) {
            if (next.equals(path.get(0))) {
                List<String> steps = new ArrayList<>();
                for (int i = 0; i < path.size(); i++) {
                    steps.add(edges.get(path.get(i)).get(i + 1 < path.size() ? path.get(i + 1) : next));
                }
                List<String> names = new ArrayList<>(path.stream().map(PackageLayersTest::shown).toList());
                names.add(shown(next));
                found.add("import cycle " + String.join(" -> ", names) + ": " + String.join("; ", steps));
            } else if (next.compareTo(path.get(0)) > 0 && !path.contains(next)) {
                path.add(next);
                walk(next, path, edges, found);
                path.remove(path.size() - 1);
            }
        }
    }

    /** The grader names a file's imports and fully qualified names refer to (comments and strings left out). */
    private static Set<String> referenced(String text) {
        Set<String> names = new LinkedHashSet<>();
        Matcher imports = IMPORT.matcher(text);
        while (imports.find()) {
            names.add(imports.group(1));
        }
        String code = text.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\\n]*", "")
                .replaceAll("\"(\\\\.|[^\"\\\\\\n])*\"", "\"\"").replaceAll("(?m)^(package|import)\\s[^\\n]*", "");
        Matcher qualified = QUALIFIED.matcher(code);
        while (qualified.find()) {
            names.add(qualified.group(1));
        }
        return names;
    }

    /** The package (relative to the grader's, "" for the grader's own) of a file under the source root. */
    private static String packageOf(String file) {
        String dir = file.substring(0, Math.max(0, file.lastIndexOf('/'))).replace('/', '.');
        return dir.equals(GRADER) ? "" : dir.substring(GRADER.length() + 1);
    }

    /**
     * The package {@code name} is in: the longest known one it starts with (it may name a nested class or a static
     * member), the root package for a capitalised name right under it, or null for none of the grader's.
     */
    private static String packageOfName(String name, Set<String> packages) {
        String rest = name.substring(GRADER.length() + 1);
        String best = Character.isUpperCase(rest.charAt(0)) ? "" : null;
        for (String p : packages) {
            if (!p.isEmpty() && rest.startsWith(p + ".") && (best == null || p.length() > best.length())) {
                best = p;
            }
        }
        return best;
    }

    private static String shown(String pkg) {
        return pkg.isEmpty() ? "the root package" : pkg;
    }
}
