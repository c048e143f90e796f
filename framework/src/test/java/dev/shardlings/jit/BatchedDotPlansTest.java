package dev.shardlings.jit;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * jit's batched contractions against XLA's (JAX 0.10.2, CPU, Auto axes): for {@code bij,bjk->bik} and attention's
 * {@code bqd,bkd->bqk} and {@code bqk,bkd->bqd} on f32[4, 4, 4] operands and a 2 × 2 mesh ('x', 'y'), every pair of
 * operand layouts (each dimension None, one axis or both in either order, each axis used once: 19 layouts, 361
 * pairs, 1083 programs) comes out with XLA's output sharding, spelled as JAX spells it, and the product's values.
 * {@code src/test/resources/jax-checks/batched_dot_plans.py} printed XLA's side into {@code batched_dot_plans.txt}
 * (how to run it is in its first lines); this test reads that file.
 *
 * <p>Collectives (kind, per-device operand and result shapes, gathered dimension, device groups in order, a
 * collective-permute's pairs; an all-to-all as its element count, since XLA writes its operand as a tuple of
 * pieces) are XLA's for {@value #MATCHED} programs. The other 348 (116 per einsum) are listed with ours in
 * {@code batched_dot_plans_ours.txt}, and the test holds them to that list, so neither a fix nor a regression goes
 * unseen. By cause (counts over the 348):
 * <ul>
 *   <li>114: a contraction split on one operand, or over other axes on the two: XLA permutes one operand and sums
 *       partial products (all-reduce), where this plan gathers the split operand (or the reverse) — e.g.
 *       P(x, None, y) · P(y, x, None): XLA collective-permute, all-reduce f32[2,4,4] over x, all-gather; ours two
 *       all-gathers, an all-to-all and an all-gather.</li>
 *   <li>72: a re-layout that only moves data ({@code Relayout}'s
 *       {@link dev.shardlings.spmd.DataMovement.Redistribute}, printed as a collective-permute that changes the
 *       block's shape), where XLA uses an all-to-all over the axes (one over 4 devices for (x,y)) or
 *       all-gathers.</li>
 *   <li>36: this plan moves an axis by an all-to-all where XLA gathers it — e.g. P(x, y, None) · P(y, x, None):
 *       XLA all-gathers the rhs's batch over x and y, this plan gathers y and moves x.</li>
 *   <li>48: the same collectives in another order — e.g. P(x, None, y) · P((y,x), None, None): XLA gathers the
 *       rhs's batch before the lhs's j, this plan after.</li>
 *   <li>54: other orders of moves — e.g. batch (x,y) against (y,x): XLA all-gathers both operands, this plan
 *       permutes one onto the other's devices and gathers once.</li>
 *   <li>24: XLA moves by all-to-all (after a collective-permute) where this plan gathers — e.g.
 *       P(x, y, None) · P(None, y, None).</li>
 * </ul>
 */
class BatchedDotPlansTest {

    /** How many of the 1083 programs have XLA's collectives (the rest are in batched_dot_plans_ours.txt). */
    private static final int MATCHED = 735;
    private static final Mesh M22 = Mesh.ofDeviceIds(new int[] {0, 1, 2, 3}, new int[] {2, 2}, "x", "y");

    /** One program of batched_dot_plans.txt: the einsum, the operand specs, XLA's out spec and collectives. */
    record Case(String subscripts, String lhs, String rhs, String out, List<String> collectives) {
    }

    /** The programs of batched_dot_plans.txt, in its order. */
    static List<Case> cases() throws IOException {
        List<Case> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(Objects.requireNonNull(
                BatchedDotPlansTest.class.getResourceAsStream("/jax-checks/batched_dot_plans.txt")),
                StandardCharsets.UTF_8))) {
            String line;
            Case c = null;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("== ")) {
                    String[] f = line.substring(3).split(" ");
                    c = new Case(f[0], f[1], f[2], f[4], new ArrayList<>());
                    out.add(c);
                } else if (line.startsWith("   ") && c != null) {
                    c.collectives().add(normal(line.trim()));
                }
            }
        }
        return out;
    }

    private static final Pattern PIECES = Pattern.compile("(\\d+)x(\\w+)\\[([\\d,]*)\\]");
    private static final Pattern BLOCK = Pattern.compile("(\\w+)\\[([\\d,]*)\\]");

    /** XLA's line with an all-to-all's operand and result written as their element counts. */
    static String normal(String line) {
        String[] f = line.split(" +");
        if (!f[0].equals("all-to-all")) {
            return String.join(" ", f);
        }
        return "all-to-all " + elements(f[1]) + " -> " + elements(f[3]) + " " + f[f.length - 1];
    }

    private static String elements(String type) {
        Matcher p = PIECES.matcher(type);
        long n = 1;
        String dtype;
        String dims;
        if (p.matches()) {
            n = Long.parseLong(p.group(1));
            dtype = p.group(2);
            dims = p.group(3);
        } else {
            Matcher b = BLOCK.matcher(type);
            if (!b.matches()) {
                throw new IllegalArgumentException(type);
            }
            dtype = b.group(1);
            dims = b.group(2);
        }
        for (String d : dims.split(",")) {
            if (!d.isEmpty()) {
                n *= Long.parseLong(d);
            }
        }
        return dtype + "x" + n;
    }

    static PartitionSpec spec(String text) {
        String body = text.substring(2, text.length() - 1);
        List<Object> entries = new ArrayList<>();
        Matcher m = Pattern.compile("\\(([^)]*)\\)|(\\w+)").matcher(body);
        while (m.find()) {
            if (m.group(1) != null) {
                entries.add(PartitionSpec.tuple(m.group(1).split(",")));
            } else {
                entries.add(m.group(2).equals("None") ? null : m.group(2));
            }
        }
        return PartitionSpec.P(entries.toArray());
    }

    static String text(PartitionSpec s) {
        List<String> e = new ArrayList<>();
        for (List<String> axes : s.entries()) {
            e.add(axes.isEmpty() ? "None" : axes.size() == 1 ? axes.get(0) : "(" + String.join(",", axes) + ")");
        }
        return "P(" + String.join(",", e) + ")";
    }

    private static final Pattern TYPE = Pattern.compile("^\\s*(?:ROOT )?%(\\S+) = (\\S+) ", Pattern.MULTILINE);
    private static final Pattern LINE = Pattern.compile(
            "^\\s*(?:ROOT )?%(\\S+) = (\\S+) (all-reduce|all-gather|all-to-all|collective-permute|reduce-scatter)"
                    + "\\(%([^),]+)[^\\n]*$", Pattern.MULTILINE);

    /**
     * Our program's collectives in the script's form; a group over all devices in mesh order, which the text leaves
     * out, is written {{0,1,2,3}}, as is a re-layout's collective-permute (which names layouts, not pairs).
     */
    static List<String> ours(Compiled c) {
        String text = c.asText();
        Map<String, String> types = new HashMap<>();
        Matcher m = TYPE.matcher(text);
        while (m.find()) {
            types.put(m.group(1), m.group(2));
        }
        List<String> out = new ArrayList<>();
        m = LINE.matcher(text);
        while (m.find()) {
            String line = m.group();
            String kind = m.group(3);
            String operand = strip(types.getOrDefault(m.group(4), "?" + m.group(4)));
            String result = strip(m.group(2));
            Matcher dim = Pattern.compile("dimensions=\\{(\\d+)\\}").matcher(line);
            Matcher groups = Pattern.compile("replica_groups=(\\{[{}\\d,]*\\})").matcher(line);
            Matcher pairs = Pattern.compile("source_target_pairs=\\{([{}\\d,]*)\\}").matcher(line);
            String g = groups.find() ? groups.group(1) : pairs.find() ? sortedPairs(pairs.group(1)) : "{{0,1,2,3}}";
            if (kind.equals("all-to-all")) {
                out.add(normal(kind + " " + operand + " -> " + result + " " + g));
            } else {
                out.add(kind + " " + operand + " -> " + result + " "
                        + (kind.equals("all-gather") && dim.find() ? "dim " + dim.group(1) + " " : "") + g);
            }
        }
        return out;
    }

    private static String strip(String type) {
        return type.replaceAll("\\{[\\d,]*\\}$", "");
    }

    private static String sortedPairs(String pairs) {
        String[] p = pairs.substring(1, pairs.length() - 1).split("\\},\\{");
        Arrays.sort(p, java.util.Comparator.comparingInt(a -> Integer.parseInt(a.split(",")[0])));
        return "{{" + String.join("},{", p) + "}}";
    }

    /** f32[4, 4, 4]: the script's operands, arange(64) (modulo {@code mod} when it is not 0). */
    private static NDArray data(int mod) {
        float[] v = new float[64];
        for (int i = 0; i < v.length; i++) {
            v[i] = mod == 0 ? i : i % mod;
        }
        return NDArray.fromFloats(v, 4, 4, 4);
    }

    /** The einsum of two f32[4, 4, 4] by plain loops over every letter's 4 values: the oracle. */
    private static NDArray einsum(String subscripts, NDArray a, NDArray b) {
        String[] io = subscripts.split("->");
        String[] in = io[0].split(",");
        String letters = (in[0] + in[1]).chars().distinct()
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
        float[] out = new float[64];
        int[] at = new int[letters.length()];
        for (int n = 0; n < 1 << (2 * letters.length()); n++) {
            for (int k = 0; k < at.length; k++) {
                at[k] = (n >> (2 * k)) & 3;
            }
            out[offset(io[1], letters, at)] += a.floatAt(index(in[0], letters, at))
                    * b.floatAt(index(in[1], letters, at));
        }
        return NDArray.fromFloats(out, 4, 4, 4);
    }

    private static int[] index(String dims, String letters, int[] at) {
        return dims.chars().map(ch -> at[letters.indexOf(ch)]).toArray();
    }

    private static int offset(String dims, String letters, int[] at) {
        int o = 0;
        for (int i : index(dims, letters, at)) {
            o = o * 4 + i;
        }
        return o;
    }

    /** The differences this partitioner still has, by program header: its collectives where they are not XLA's. */
    static Map<String, List<String>> differences() throws IOException {
        Map<String, List<String>> out = new java.util.LinkedHashMap<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(Objects.requireNonNull(
                BatchedDotPlansTest.class.getResourceAsStream("/jax-checks/batched_dot_plans_ours.txt")),
                StandardCharsets.UTF_8))) {
            String line;
            List<String> cur = null;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("== ")) {
                    cur = new ArrayList<>();
                    out.put(line, cur);
                } else if (line.startsWith("   ") && cur != null) {
                    cur.add(line.trim());
                }
            }
        }
        return out;
    }

    private static String header(Case c) {
        return "== " + c.subscripts() + " " + c.lhs() + " " + c.rhs() + " -> " + c.out();
    }

    @Test
    void everyResultHasXlasShardingAndTheProductsValues() throws IOException {
        List<String> wrong = new ArrayList<>();
        NDArray a = data(0);
        NDArray b = data(7);
        for (Case c : cases()) {
            Jitted f = Jit.jit((p, q) -> ShardedArray.einsum(c.subscripts(), p, q));
            ShardedArray got = f.call(ShardedArray.devicePut(a, new NamedSharding(M22, spec(c.lhs()))),
                    ShardedArray.devicePut(b, new NamedSharding(M22, spec(c.rhs())))).get(0);
            if (!text(got.spec()).equals(c.out())) {
                wrong.add(header(c) + " ours " + text(got.spec()));
            }
            NDArray expected = einsum(c.subscripts(), a, b);
            if (!got.gather().allclose(expected, 1e-6, 0)) {
                wrong.add(header(c) + " values differ");
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void collectivesAreXlasExceptTheListedDifferences() throws IOException {
        Map<String, List<String>> known = differences();
        List<String> wrong = new ArrayList<>();
        int matched = 0;
        for (Case c : cases()) {
            List<String> ours = ours(compile(c));
            List<String> listed = known.remove(header(c));
            if (listed == null && !ours.equals(c.collectives())) {
                wrong.add(header(c) + "\n   xla  " + c.collectives() + "\n   ours " + ours);
            } else if (listed != null && !ours.equals(listed)) {
                wrong.add(header(c) + (ours.equals(c.collectives()) ? " now matches XLA: take it off the list"
                        : "\n   listed " + listed + "\n   ours   " + ours));
            } else if (listed == null) {
                matched++;
            }
        }
        assertEquals(List.of(), wrong, "batched_dot_plans_ours.txt");
        assertEquals(List.of(), List.copyOf(known.keySet()), "listed programs that batched_dot_plans.txt lacks");
        assertEquals(MATCHED, matched, "programs whose collectives are XLA's");
    }

    private static Compiled compile(Case c) {
        ShardedArray a = ShardedArray.devicePut(data(0), new NamedSharding(M22, spec(c.lhs())));
        ShardedArray b = ShardedArray.devicePut(data(7), new NamedSharding(M22, spec(c.rhs())));
        return Jit.jit((p, q) -> ShardedArray.einsum(c.subscripts(), p, q)).lower(a, b);
    }
}
