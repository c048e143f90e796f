package dev.shardlings.cost;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * The {@code model-matmuls} command: models a list of per-chip chunked-matmul steps ({@link MatmulStep}) on one
 * hardware model, for whoever wants to know what a shape costs on a chip.
 *
 * <pre>{@code
 * mvn -q -pl framework exec:java@model-matmuls -Dhardware=h100-8-nvlink -Din=rows.json -Dout=out.json
 * }</pre>
 *
 * <p>{@code -Dhardware} is a built-in model's name ({@link HardwareModel#BUILT_IN}) or the path of a model's JSON
 * file ({@link HardwareModel#read}). {@code rows.json} is a JSON array of objects
 * {@code {"dtype": "bfloat16" | "float32", "m": 512, "K": 2048, "chunks": 4}}; {@code out.json} is the same array
 * with {@code "modelled_us"} (microseconds, to the nanosecond) added to each object, every other field kept as it
 * was and where it was (an existing {@code "modelled_us"} is replaced in place). Paths are relative to the folder
 * mvn runs in.
 *
 * <p>Bad input — a missing option, unknown hardware, a file that is not a JSON array of objects, a missing field,
 * an unknown dtype, m, K or chunks not a positive integer, K not divisible by chunks — is reported on stderr, one
 * line per problem, naming the row (counted from 0, as JSON arrays are indexed) and the field; the command then
 * exits with status {@value #BAD_INPUT} and writes no output file. Every row is checked before anything is written,
 * and the output goes to a temporary file in the output's folder that is moved into place.
 */
public final class ModelMatmuls {

    /** The exit status for bad input. */
    public static final int BAD_INPUT = 2;

    /** The field added to each row. */
    private static final String MODELLED = "modelled_us";

    /** The dtypes a row may name: the step's float types. */
    private static final List<ModelDtype> DTYPES = List.of(ModelDtype.BFLOAT16, ModelDtype.FLOAT32);

    /** Numbers other than our own are kept exactly as read (no rounding through double). */
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN);

    /** One row an object, one field a line, {@code "m": 512} as the rows are usually written. */
    private static final DefaultPrettyPrinter PRETTY = new DefaultPrettyPrinter(Separators.createDefaultInstance()
            .withObjectFieldValueSpacing(Separators.Spacing.AFTER))
            .withArrayIndenter(DefaultIndenter.SYSTEM_LINEFEED_INSTANCE);

    private ModelMatmuls() {
    }

    /**
     * The command's options, as mvn passes them: the system properties {@code hardware}, {@code in} and
     * {@code out}; null where not given.
     *
     * @param hardware a built-in model's name or a model's JSON file
     * @param in       the rows to model
     * @param out      where to write them with their modelled times
     */
    record Options(String hardware, String in, String out) {
        static Options fromSystemProperties() {
            return new Options(System.getProperty("hardware"), System.getProperty("in"), System.getProperty("out"));
        }
    }

    /** One valid row: the object itself and its step's modelled time. */
    private record Row(ObjectNode node, double micros) {
    }

    /** Bad input, with the lines that say what is wrong; {@code rows}: they name rows. */
    private static final class BadInput extends Exception {
        final List<String> lines;
        final boolean rows;

        BadInput(List<String> lines, boolean rows) {
            super(String.join("\n", lines), null, false, false);
            this.lines = List.copyOf(lines);
            this.rows = rows;
        }

        BadInput(String line) {
            this(List.of(line), false);
        }
    }

    /**
     * Runs the command with the system properties {@code -Dhardware}, {@code -Din} and {@code -Dout}; exits with
     * status {@value #BAD_INPUT} after printing what is wrong when the input is bad.
     *
     * @param args ignored: exec:java passes the options as system properties
     */
    public static void main(String[] args) {
        int status = run(Options.fromSystemProperties(), System.out, System.err);
        if (status != 0) {
            System.exit(status);
        }
    }

    /**
     * The command: 0 when {@code out.json} was written, else {@link #BAD_INPUT} after printing the problems to err
     * (and no file was written).
     */
    static int run(Options options, PrintStream out, PrintStream err) {
        Objects.requireNonNull(options, "options");
        try {
            HardwareModel hw = hardware(required(options.hardware(), "hardware", "h100-8-nvlink"));
            Path in = path(required(options.in(), "in", "rows.json"), "in");
            Path to = path(required(options.out(), "out", "out.json"), "out");
            ArrayNode rows = read(in);
            List<Row> valid = modelled(rows, in.getFileName().toString(), hw);
            for (Row r : valid) {
                r.node().put(MODELLED, BigDecimal.valueOf(r.micros()).setScale(3, RoundingMode.HALF_EVEN));
            }
            write(rows, to);
            out.println("modelled " + valid.size() + " row" + (valid.size() == 1 ? "" : "s") + " on " + hw.name()
                    + ": " + to);
            return 0;
        } catch (BadInput e) {
            err.println("model-matmuls: nothing written" + (e.rows ? " (rows count from 0)" : "") + ":");
            e.lines.forEach(l -> err.println("  " + l));
            return BAD_INPUT;
        }
    }

    private static String required(String value, String option, String example) throws BadInput {
        if (value == null || value.isBlank()) {
            throw new BadInput("missing -D" + option + " (e.g. -D" + option + "=" + example + ")");
        }
        return value;
    }

    private static Path path(String value, String option) throws BadInput {
        try {
            return Path.of(value);
        } catch (InvalidPathException e) {
            throw new BadInput("-D" + option + "=" + value + " is not a path: " + e.getReason());
        }
    }

    /** A built-in model by name, else a model's JSON file. */
    private static HardwareModel hardware(String value) throws BadInput {
        if (HardwareModel.BUILT_IN.contains(value)) {
            return HardwareModel.builtIn(value);
        }
        Path file = path(value, "hardware");
        if (!Files.isRegularFile(file)) {
            throw new BadInput("-Dhardware=" + value + ": no built-in hardware model of that name and no such file;"
                    + " built in: " + String.join(", ", HardwareModel.BUILT_IN) + " (or the path of a model's JSON"
                    + " file)");
        }
        try {
            return HardwareModel.read(file);
        } catch (UncheckedIOException | IllegalArgumentException e) {
            throw new BadInput("-Dhardware=" + value + ": " + e.getMessage());
        }
    }

    private static ArrayNode read(Path in) throws BadInput {
        JsonNode root;
        try {
            root = JSON.readTree(Files.readString(in));
        } catch (NoSuchFileException e) {
            throw new BadInput("-Din=" + in + ": no such file");
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr() + ")";
            throw new BadInput(in + " is not valid JSON" + where + ": " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new BadInput("-Din=" + in + ": cannot read it: " + e);
        }
        if (root == null || !root.isArray()) {
            throw new BadInput(in + " must be a JSON array of rows such as [{\"dtype\": \"bfloat16\", \"m\": 512,"
                    + " \"K\": 2048, \"chunks\": 4}], got " + kind(root));
        }
        return (ArrayNode) root;
    }

    /** Every row checked and modelled; all problems reported at once. */
    private static List<Row> modelled(ArrayNode rows, String file, HardwareModel hw) throws BadInput {
        List<String> problems = new ArrayList<>();
        List<Row> valid = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            String row = file + " row " + i;
            JsonNode node = rows.get(i);
            if (!node.isObject()) {
                problems.add(row + ": must be an object such as {\"dtype\": \"bfloat16\", \"m\": 512, \"K\": 2048,"
                        + " \"chunks\": 4}, got " + kind(node));
                continue;
            }
            int before = problems.size();
            ModelDtype dtype = field(node, "dtype", row, problems, v -> dtype(v, hw));
            Integer m = field(node, "m", row, problems, ModelMatmuls::positiveInt);
            Integer k = field(node, "K", row, problems, ModelMatmuls::positiveInt);
            Integer chunks = field(node, "chunks", row, problems, ModelMatmuls::positiveInt);
            if (chunks != null && chunks > MatmulStep.MAX_CHUNKS) {
                problems.add(row + ", field \"chunks\": " + chunks + " is more than " + MatmulStep.MAX_CHUNKS);
                chunks = null;
            }
            if (k != null && chunks != null && k % chunks != 0) {
                problems.add(row + ", field \"K\": " + k + " is not divisible by chunks = " + chunks);
            }
            if (problems.size() == before) {
                try {
                    valid.add(new Row((ObjectNode) node, MatmulStep.modelledSeconds(hw, dtype, m, k, chunks) * 1e6));
                } catch (IllegalArgumentException e) { // what the fields cannot say alone: a step too large
                    problems.add(row + ", fields \"m\" and \"K\": " + e.getMessage());
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new BadInput(problems, true);
        }
        return valid;
    }

    /** A field's value through {@code parse} (which throws IllegalArgumentException), or null and a problem. */
    private static <T> T field(JsonNode node, String name, String row, List<String> problems,
                               Function<JsonNode, T> parse) {
        JsonNode v = node.get(name);
        if (v == null) {
            problems.add(row + ": missing field \"" + name + "\"" + caseHint(node, name));
            return null;
        }
        try {
            return parse.apply(v);
        } catch (IllegalArgumentException e) {
            problems.add(row + ", field \"" + name + "\": " + e.getMessage());
            return null;
        }
    }

    /** A field whose name differs only in case, a likely typo ("k" for "K"). */
    private static String caseHint(JsonNode node, String name) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (f.equalsIgnoreCase(name)) {
                return " (there is \"" + f + "\": field names are case-sensitive)";
            }
        }
        return "";
    }

    private static ModelDtype dtype(JsonNode v, HardwareModel hw) {
        String names = "\"bfloat16\" or \"float32\"";
        if (!v.isTextual()) {
            throw new IllegalArgumentException("must be " + names + ", got " + v);
        }
        ModelDtype d = DTYPES.stream().filter(x -> x.jaxName().equals(v.textValue())).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown dtype " + v + "; use " + names));
        hw.matmulRate(d); // a model read from a file may lack it; the message names the rates it has
        return d;
    }

    private static Integer positiveInt(JsonNode v) {
        if (!v.isIntegralNumber() || !v.canConvertToInt() || v.intValue() <= 0) {
            throw new IllegalArgumentException("must be a positive integer (at most " + Integer.MAX_VALUE + "), got "
                    + v);
        }
        return v.intValue();
    }

    private static String kind(JsonNode n) {
        return n == null || n.isMissingNode() ? "nothing" : n.getNodeType().name().toLowerCase(Locale.ROOT)
                + (n.isContainerNode() ? "" : " " + n);
    }

    /** Into a temporary file beside {@code to}, then moved into place: a failed run leaves no partial file. */
    private static void write(ArrayNode rows, Path to) throws BadInput {
        Path folder = to.toAbsolutePath().getParent();
        if (Files.isDirectory(to)) {
            throw new BadInput("-Dout=" + to + " is a folder; give a file name such as out.json");
        }
        if (folder == null || !Files.isDirectory(folder)) {
            throw new BadInput("-Dout=" + to + ": the folder " + folder + " does not exist");
        }
        Path tmp = null;
        try {
            tmp = Files.createTempFile(folder, ".model-matmuls-", ".json");
            Files.writeString(tmp, JSON.writer(PRETTY).writeValueAsString(rows) + System.lineSeparator());
            try {
                Files.move(tmp, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, to, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new BadInput("-Dout=" + to + ": cannot write it: " + e);
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException e) {
                    // The move took it or it was never made; nothing else to do.
                }
            }
        }
    }
}
