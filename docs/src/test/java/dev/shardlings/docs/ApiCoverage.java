package dev.shardlings.docs;

import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.MemberReferenceTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.NewClassTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;

import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The API-coverage check: which framework methods and constructors a set of course sources calls, and which of
 * them no docs page's API tables name. The sources are attributed by javac ({@link JavacTask#analyze()}), so each
 * call is the executable javac chose — an overload, a method inherited or reached through a lambda parameter whose
 * type is inferred, a static import — not a guess from the name.
 *
 * <p>A method {@code m} of class {@code C} is documented when a Markdown table row of a page has a code span naming
 * it ({@code m(…)}, {@code .m}, or just {@code m}) in a section (from one {@code #} or {@code ##} heading to the
 * next) whose heading names {@code C} (or, for a nested class, its top-level class): the class's own section, not
 * any section that mentions the class in passing, so a student who looks a class up finds its methods there. A
 * constructor is documented when such a row has {@code C(…)}. Overloads share their documentation: the docs name a
 * method once for all its forms.
 */
final class ApiCoverage {

    /** The framework's packages: calls into them are the API a student must be able to find. */
    private static final String FRAMEWORK = "dev.shardlings.";
    /** The course's own classes (the solutions), which are not API. */
    private static final String COURSE = "dev.shardlings.course";
    private static final Pattern CODE_SPAN = Pattern.compile("`([^`]+)`");
    private static final Pattern HEADING = Pattern.compile("^#{1,2} (.*)$");

    private ApiCoverage() {
    }

    /**
     * One framework executable the sources call.
     *
     * @param owner     the declaring class's simple name ({@code Model} for {@code Mlp.Model})
     * @param topLevel  the top-level class around it ({@code Mlp}; the same as owner for a top-level class)
     * @param name      the method's name, or {@code <init>} for a constructor
     * @param signature how it prints, e.g. {@code NDArray.mean(KeepDims, int...)}, {@code ShardMap.Unary.apply(…)}
     */
    record Api(String owner, String topLevel, String name, String signature) implements Comparable<Api> {
        boolean constructor() {
            return name.equals("<init>");
        }

        @Override
        public int compareTo(Api o) {
            return signature.compareTo(o.signature);
        }
    }

    /** One section of a docs page: its heading and its table rows. */
    record Section(Path page, String heading, List<String> tableRows) {
        /** Whether this is a section of the api's class: its heading names the class or its top-level class. */
        boolean isSectionOf(Api api) {
            return names(heading, api.owner()) || names(heading, api.topLevel());
        }
    }

    /**
     * The framework executables the sources call, each with where ({@code file:line}, relative to {@code root}).
     *
     * @throws IllegalStateException when the sources do not compile against the class path (javac's errors)
     */
    static Map<Api, List<String>> calls(List<Path> sources, String classPath, Path root) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT,
                StandardCharsets.UTF_8)) {
            JavacTask task = (JavacTask) javac.getTask(null, files, diagnostics,
                    List.of("-proc:none", "-classpath", classPath, "--add-modules", "jdk.incubator.vector",
                            "-Xlint:none", "-nowarn"),
                    null, files.getJavaFileObjectsFromPaths(sources));
            Iterable<? extends CompilationUnitTree> units = task.parse();
            task.analyze();
            List<String> errors = diagnostics.getDiagnostics().stream()
                    .filter(d -> d.getKind() == Diagnostic.Kind.ERROR).map(Object::toString).toList();
            if (!errors.isEmpty()) {
                throw new IllegalStateException("the course sources do not compile:\n" + String.join("\n", errors));
            }
            Trees trees = Trees.instance(task);
            Map<Api, List<String>> out = new TreeMap<>();
            for (CompilationUnitTree unit : units) {
                new TreePathScanner<Void, Void>() {
                    @Override
                    public Void visitMethodInvocation(MethodInvocationTree t, Void v) {
                        record(t);
                        return super.visitMethodInvocation(t, v);
                    }

                    @Override
                    public Void visitNewClass(NewClassTree t, Void v) {
                        record(t);
                        return super.visitNewClass(t, v);
                    }

                    @Override
                    public Void visitMemberReference(MemberReferenceTree t, Void v) {
                        record(t);
                        return super.visitMemberReference(t, v);
                    }

                    private void record(Tree t) {
                        Element e = trees.getElement(new TreePath(getCurrentPath(), t));
                        if (!(e instanceof ExecutableElement ex) || !(ex.getEnclosingElement() instanceof TypeElement type)) {
                            return;
                        }
                        String qualified = type.getQualifiedName().toString();
                        if (!qualified.startsWith(FRAMEWORK) || qualified.startsWith(COURSE + ".")) {
                            return;
                        }
                        long line = unit.getLineMap().getLineNumber(trees.getSourcePositions().getStartPosition(unit, t));
                        String file = root.relativize(Path.of(unit.getSourceFile().toUri())).toString()
                                .replace('\\', '/');
                        out.computeIfAbsent(api(type, ex), k -> new ArrayList<>()).add(file + ":" + line);
                    }
                }.scan(unit, null);
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean names(String text, String simpleName) {
        return Pattern.compile("\\b" + Pattern.quote(simpleName) + "\\b").matcher(text).find();
    }

    private static Api api(TypeElement type, ExecutableElement ex) {
        String owner = type.getSimpleName().toString();
        String nested = owner;
        Element top = type;
        while (top.getEnclosingElement() instanceof TypeElement outer) {
            top = outer;
            nested = outer.getSimpleName() + "." + nested;
        }
        List<String> params = new ArrayList<>();
        for (VariableElement p : ex.getParameters()) {
            params.add(typeName(p));
        }
        if (ex.isVarArgs()) {
            String last = params.remove(params.size() - 1);
            params.add(last.substring(0, last.length() - 2) + "...");
        }
        boolean ctor = ex.getKind() == ElementKind.CONSTRUCTOR;
        String name = ctor ? "<init>" : ex.getSimpleName().toString();
        return new Api(owner, top.getSimpleName().toString(), name,
                nested + (ctor ? "" : "." + name) + "(" + String.join(", ", params) + ")");
    }

    private static String typeName(VariableElement p) {
        // simple names without type arguments: List<ShardedArray> prints List
        String t = p.asType().toString().replaceAll("<.*>", "");
        return t.substring(t.lastIndexOf('.') + 1);
    }

    /** The sections of the pages. */
    static List<Section> sections(List<Path> pages) {
        List<Section> out = new ArrayList<>();
        for (Path page : pages) {
            List<String> lines;
            try {
                lines = Files.readAllLines(page, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            String heading = "";
            List<String> rows = new ArrayList<>();
            boolean fenced = false;
            for (String line : lines) {
                fenced ^= line.startsWith("```");
                Matcher h = HEADING.matcher(line);
                if (!fenced && h.matches()) {
                    out.add(new Section(page, heading, List.copyOf(rows)));
                    heading = h.group(1).trim();
                    rows.clear();
                }
                if (!fenced && line.startsWith("|")) {
                    rows.add(line);
                }
            }
            out.add(new Section(page, heading, List.copyOf(rows)));
        }
        return out;
    }

    /** Whether a table row of the class's own section names the method (or the constructor). */
    static boolean documented(Api api, List<Section> sections) {
        Pattern named = api.constructor()
                ? Pattern.compile("(?<![\\w.])" + Pattern.quote(api.owner()) + "\\(")
                : Pattern.compile("(?:^|[^\\w])" + Pattern.quote(api.name()) + "(?:\\(|$|[^\\w])");
        for (Section s : sections) {
            if (s.tableRows().isEmpty() || !s.isSectionOf(api)) {
                continue;
            }
            for (String row : s.tableRows()) {
                Matcher spans = CODE_SPAN.matcher(row);
                while (spans.find()) {
                    if (named.matcher(spans.group(1)).find()) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Where a missing method belongs: the section whose heading names its class, else the toolkit page. */
    static String whereToAdd(Api api, List<Section> sections, Path root) {
        for (Section s : sections) {
            if (s.isSectionOf(api)) {
                return root.relativize(s.page()) + " (section \"" + s.heading() + "\")";
            }
        }
        return "docs/framework.md (a table in the section about " + api.topLevel() + ", or a new one)";
    }

    /**
     * The failure report: one paragraph per undocumented executable, or the empty string when every one is
     * documented.
     */
    static String report(Map<Api, List<String>> calls, List<Section> sections, Path root) {
        Objects.requireNonNull(root, "root");
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<Api, List<String>> e : calls.entrySet()) {
            if (documented(e.getKey(), sections)) {
                continue;
            }
            List<String> at = e.getValue();
            sb.append(e.getKey().signature()).append(" is called by the solutions but named in no docs API table\n")
                    .append("  called at: ").append(String.join(", ", at.subList(0, Math.min(5, at.size()))))
                    .append(at.size() > 5 ? " and " + (at.size() - 5) + " more" : "").append('\n')
                    .append("  add a row (or a name in a row) for it to ").append(whereToAdd(e.getKey(), sections, root))
                    .append('\n');
        }
        return sb.toString();
    }
}
