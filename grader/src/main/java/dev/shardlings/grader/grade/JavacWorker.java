package dev.shardlings.grader.grade;

import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.util.JavacTask;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The JVM that runs javac on a submission's course files, apart from the judge: a file that makes javac overflow
 * its stack, run out of memory or run for minutes costs this process, which the judge ({@link CourseCompiler})
 * kills or replaces, never the judge's own run. It reads requests on standard input and answers each on standard
 * output, one at a time:
 *
 * <ul>
 *   <li>parse files: the package javac reads in each (after unicode escapes, in the encoding the options name)
 *   and the errors it reports while reading;</li>
 *   <li>compile files together: the errors, or none.</li>
 * </ul>
 *
 * <p>Each error comes with its file, line, message and source line (the text around its position and where the
 * position is in it), so that the judge can print it as javac does, with a caret under the position.
 *
 * <ul>
 * </ul>
 *
 * <p>A {@link Throwable} out of javac is answered as a crash with its class, and the process then exits: the
 * judge starts a fresh one for the next request. No annotation processing or plugin is asked for by the judge, so
 * nothing of the submission runs here. Self-contained (JDK classes only), so its class path is just its own
 * location. The framing is {@link DataOutputStream}'s: ints, longs, and strings as a length and UTF-8 bytes.
 */
public final class JavacWorker {

    /** Requests. */
    static final int EXIT = 0;
    static final int PARSE = 1;
    static final int COMPILE = 2;

    /** Answers. */
    static final String OK = "ok";
    static final String ERRORS = "errors";
    static final String CRASH = "crash";

    /** At most this many errors per answer, each message at most this many characters. */
    static final int MAX_ERRORS = 100;
    static final int MAX_MESSAGE = 1000;

    private JavacWorker() {
    }

    public static void main(String[] args) throws IOException {
        DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(FileDescriptor.in)));
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out)));
        // Whatever javac or the JDK prints goes to standard error, never into the answers.
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        while (true) {
            int op;
            try {
                op = in.readInt();
            } catch (EOFException e) {
                return;
            }
            if (op == EXIT) {
                return;
            }
            List<String> options = readStrings(in);
            List<String> files = readStrings(in);
            boolean crashed = answer(javac, op, options, files, out);
            out.flush();
            if (crashed) {
                System.exit(3); // javac's state after a crash is not to be trusted: the judge starts a new one
            }
        }
    }

    /** Runs one request and writes its answer; true when javac crashed. */
    private static boolean answer(JavaCompiler javac, int op, List<String> options, List<String> files,
                                  DataOutputStream out) throws IOException {
        DiagnosticCollector<JavaFileObject> diags = new DiagnosticCollector<>();
        StringWriter printed = new StringWriter();
        List<String> packages = new ArrayList<>();
        boolean ok;
        try (StandardJavaFileManager fm = javac.getStandardFileManager(diags, Locale.ROOT, StandardCharsets.UTF_8)) {
            Iterable<? extends JavaFileObject> units = fm.getJavaFileObjectsFromPaths(files.stream().map(Path::of)
                    .toList());
            JavacTask task = (JavacTask) javac.getTask(printed, fm, diags, options, null, units);
            if (op == PARSE) {
                java.util.Map<String, String> byFile = new java.util.HashMap<>();
                for (CompilationUnitTree unit : task.parse()) {
                    byFile.put(Path.of(unit.getSourceFile().toUri()).getFileName().toString(),
                            unit.getPackageName() == null ? "" : unit.getPackageName().toString());
                }
                for (String f : files) {
                    packages.add(byFile.getOrDefault(Path.of(f).getFileName().toString(), ""));
                }
                ok = true;
            } else {
                ok = task.call();
            }
        } catch (Throwable t) {
            writeCrash(out, t);
            return true;
        }
        List<Diagnostic<? extends JavaFileObject>> errors = diags.getDiagnostics().stream()
                .filter(d -> d.getKind() == Diagnostic.Kind.ERROR).toList();
        if (!ok && errors.isEmpty()) {
            // javac caught its own crash, printed it and gave up: a crash all the same.
            String text = printed.toString();
            writeString(out, CRASH);
            writeStrings(out, List.of());
            writeString(out, text.contains("StackOverflowError") ? "java.lang.StackOverflowError"
                    : text.contains("OutOfMemoryError") ? "java.lang.OutOfMemoryError"
                    : "javac stopped without an error: " + clip(text.strip().lines().findFirst().orElse("")));
            out.writeInt(0);
            return true;
        }
        writeString(out, errors.isEmpty() ? OK : ERRORS);
        writeStrings(out, packages);
        writeString(out, "");
        out.writeInt(Math.min(errors.size(), MAX_ERRORS));
        for (Diagnostic<? extends JavaFileObject> d : errors.subList(0, Math.min(errors.size(), MAX_ERRORS))) {
            writeString(out, d.getSource() == null ? "" : Path.of(d.getSource().toUri()).getFileName().toString());
            out.writeLong(d.getLineNumber());
            writeString(out, clip(d.getMessage(Locale.ROOT)));
            writeSourceLine(out, d);
        }
        return false;
    }

    /** The most characters of a source line sent either side of the error's position. */
    static final int CODE_AROUND = 120;

    /**
     * The source line of an error, as javac prints it under its message: the text of the line (at most
     * {@link #CODE_AROUND} characters either side of the position, "" when the error has no position), then the
     * position's offset in that text (-1 for none).
     */
    private static void writeSourceLine(DataOutputStream out, Diagnostic<? extends JavaFileObject> d)
            throws IOException {
        String code = "";
        int caret = -1;
        long pos = d.getPosition();
        if (pos != Diagnostic.NOPOS && d.getSource() != null) {
            CharSequence text = d.getSource().getCharContent(true);
            int p = (int) Math.min(pos, text.length());
            int start = p;
            while (start > 0 && text.charAt(start - 1) != '\n' && text.charAt(start - 1) != '\r') {
                start--;
            }
            int end = p;
            while (end < text.length() && text.charAt(end) != '\n' && text.charAt(end) != '\r') {
                end++;
            }
            int from = Math.max(start, p - CODE_AROUND);
            code = text.subSequence(from, Math.min(end, p + CODE_AROUND)).toString();
            caret = p - from;
        }
        writeString(out, code);
        out.writeInt(caret);
    }

    private static void writeCrash(DataOutputStream out, Throwable t) throws IOException {
        Throwable root = t;
        // javac wraps what went wrong inside it (IllegalStateException, RuntimeException): name the innermost.
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        writeString(out, CRASH);
        writeStrings(out, List.of());
        writeString(out, root.getClass().getName());
        out.writeInt(0);
    }

    private static String clip(String s) {
        return s.length() <= MAX_MESSAGE ? s : s.substring(0, MAX_MESSAGE) + "…";
    }

    static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    static String readString(DataInputStream in, int max) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > max) {
            throw new IOException("a string of " + n + " bytes in javac's answer");
        }
        return new String(in.readNBytes(n), StandardCharsets.UTF_8);
    }

    static void writeStrings(DataOutputStream out, List<String> list) throws IOException {
        out.writeInt(list.size());
        for (String s : list) {
            writeString(out, s);
        }
    }

    static List<String> readStrings(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > 10_000) {
            throw new IOException("a list of " + n + " strings");
        }
        List<String> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            list.add(readString(in, 1 << 20));
        }
        return list;
    }
}
