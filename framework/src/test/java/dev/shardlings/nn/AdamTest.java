package dev.shardlings.nn;

import dev.shardlings.array.NDArray;
import dev.shardlings.jit.Jit;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Adam} against optax 0.2.8 on CPU: five steps of {@code optax.adam(0.1)} on [W f32[2, 3], b f32[2]], fed
 * the gradients JAX computed (so only the optimizer is compared), every value below printed by
 * framework/src/test/resources/jax-checks/softmax_adam.py. Parameters, mu and nu are bit for bit optax's.
 */
class AdamTest {
    private static final int[] W_SHAPE = {2, 3};
    private static final int[] B_SHAPE = {2};

    /** The gradients fed at steps 1..5 (JAX's grad of the script's loss at the then parameters). */
    private static final float[][][] GRAD = {
            {{0.5009999871253967f, -5.5f, 2.0f, 0.25099998712539673f, -1.0f, -0.75f}, {3.7499985694885254f, -0.46093082427978516f}},
            {{0.3010013699531555f, -5.30000114440918f, 1.9000006914138794f, 0.05100133270025253f, -0.8000011444091797f, -0.6500006914138794f}, {3.5353119373321533f, -0.47779691219329834f}},
            {{0.10543403029441833f, -5.100039482116699f, 1.8001681566238403f, -0.1292872130870819f, -0.6011130809783936f, -0.5506272912025452f}, {3.3146615028381348f, -0.4743466377258301f}},
            {{-0.07821162045001984f, -4.900265216827393f, 1.7006254196166992f, -0.2554553747177124f, -0.40473365783691406f, -0.4524586796760559f}, {3.1303865909576416f, -0.4498729705810547f}},
            {{-0.23797844350337982f, -4.7010016441345215f, 1.6015079021453857f, -0.33210834860801697f, -0.21304655075073242f, -0.35623350739479065f}, {2.990783929824829f, -0.4043769836425781f}},
    };
    /** optax's param after each step 1..5 (step 1 = index 0), [W f32[2, 3], b f32[2]]. */
    private static final float[][][] PARAM = {
            {{0.4000006914138794f, -1.4000006914138794f, 1.9000006914138794f, 0.150000661611557f, 3.09999942779541f, -0.6500006914138794f}, {-0.09899932891130447f, -3.90000057220459f}},
            {{0.30423539876937866f, -1.3001153469085693f, 1.8001681566238403f, 0.06951416283845901f, 3.1988110542297363f, -0.5506272912025452f}, {-0.19880136847496033f, -3.79992413520813f}},
            {{0.22003571689128876f, -1.2004250288009644f, 1.7006254196166992f, 0.042791955173015594f, 3.2951064109802246f, -0.4524586796760559f}, {-0.2982473373413086f, -3.6998400688171387f}},
            {{0.15925420820713043f, -1.101017713546753f, 1.6015079021453857f, 0.06512429565191269f, 3.386937379837036f, -0.35623350739479065f}, {-0.39723265171051025f, -3.5999839305877686f}},
            {{0.13169270753860474f, -1.0019841194152832f, 1.5029596090316772f, 0.11509594321250916f, 3.4715805053710938f, -0.26287251710891724f}, {-0.49571558833122253f, -3.500835418701172f}},
    };
    /** optax's mu after each step 1..5 (step 1 = index 0), [W f32[2, 3], b f32[2]]. */
    private static final float[][][] MU = {
            {{0.05009999871253967f, -0.550000011920929f, 0.20000000298023224f, 0.025099998340010643f, -0.10000000149011612f, -0.07500000298023224f}, {0.37499985098838806f, -0.046093083918094635f}},
            {{0.07519013434648514f, -1.0250000953674316f, 0.37000006437301636f, 0.027690131217241287f, -0.1700001060962677f, -0.1325000822544098f}, {0.6910310983657837f, -0.08926346898078918f}},
            {{0.07821452617645264f, -1.4325040578842163f, 0.5130168795585632f, 0.011992395855486393f, -0.21311140060424805f, -0.1743128001689911f}, {0.9533941745758057f, -0.12777179479599f}},
            {{0.06257190555334091f, -1.779280185699463f, 0.6317777633666992f, -0.014752381481230259f, -0.2322736233472824f, -0.2021273821592331f}, {1.171093463897705f, -0.15998190641403198f}},
            {{0.03251686692237854f, -2.0714521408081055f, 0.7287508249282837f, -0.04648797959089279f, -0.23035091161727905f, -0.2175379991531372f}, {1.353062391281128f, -0.18442140519618988f}},
    };
    /** optax's nu after each step 1..5 (step 1 = index 0), [W f32[2, 3], b f32[2]]. */
    private static final float[][][] NU = {
            {{0.0002510010090190917f, 0.030250001698732376f, 0.004000000189989805f, 6.300099630607292e-05f, 0.0010000000474974513f, 0.000562500033993274f}, {0.014062490314245224f, 0.00021245723473839462f}},
            {{0.00034135184250772f, 0.05830976366996765f, 0.007606002502143383f, 6.553912680828944e-05f, 0.0016390018863603473f, 0.0009844384621828794f}, {0.026546858251094818f, 0.00044053466990590096f}},
            {{0.00035212680813856423f, 0.08426185697317123f, 0.010839002206921577f, 8.21887661004439e-05f, 0.0019986997358500957f, 0.0012866444885730743f}, {0.03750729188323021f, 0.0006650988943874836f}},
            {{0.0003578917239792645f, 0.10819020122289658f, 0.01372029073536396f, 0.0001473640149924904f, 0.002160510513931513f, 0.0014900767710059881f}, {0.04726910591125488f, 0.000866819522343576f}},
            {{0.00041416758904233575f, 0.1301814317703247f, 0.016271397471427917f, 0.00025751261273398995f, 0.0022037390153855085f, 0.0016154891345649958f}, {0.0561666265130043f, 0.0010294734966009855f}},
    };

    private static List<NDArray> arrays(float[][] pair) {
        return List.of(NDArray.fromFloats(pair[0], W_SHAPE), NDArray.fromFloats(pair[1], B_SHAPE));
    }

    private static void assertBits(float[][] expected, List<NDArray> actual, String what) {
        for (int i = 0; i < expected.length; i++) {
            assertArrayEquals(expected[i], actual.get(i).toFloatArray(), what + " of parameter " + i);
        }
    }

    private static final float[][] INITIAL = {{0.5f, -1.5f, 2.0f, 0.25f, 3.0f, -0.75f}, {1e-3f, -4.0f}};

    @Test
    void fiveStepsEqualOptaxBitForBit() {
        Adam adam = Adam.of(0.1);
        List<NDArray> params = arrays(INITIAL);
        Adam.State<NDArray> state = adam.init(params);
        assertEquals(0, state.count());
        assertBits(new float[][] {new float[6], new float[2]}, state.mu(), "initial mu");
        for (int step = 0; step < 5; step++) {
            Adam.Update<NDArray> u = adam.update(arrays(GRAD[step]), state);
            state = u.state();
            params = Adam.applyUpdates(params, u.updates());
            assertEquals(step + 1, state.count());
            assertBits(MU[step], state.mu(), "mu at step " + (step + 1));
            assertBits(NU[step], state.nu(), "nu at step " + (step + 1));
            assertBits(PARAM[step], params, "params at step " + (step + 1));
        }
    }

    @Test
    void shardedParametersKeepTheirLayoutAndOptaxValuesEagerAndUnderJit() {
        Mesh mesh = Mesh.makeMesh(new int[] {2, 2}, "data", "model");
        NamedSharding wSharding = new NamedSharding(mesh, P("data", null));
        NamedSharding bSharding = new NamedSharding(mesh, P("model"));
        Adam adam = Adam.of(0.1);
        List<ShardedArray> params = sharded(INITIAL, wSharding, bSharding);
        Adam.State<ShardedArray> state = adam.init(params);
        assertTrue(wSharding.spec().isEquivalentTo(state.mu().get(0).sharding().spec()), () -> "mu's layout");
        var jitted = Jit.jitList((List<ShardedArray> a) -> Adam.applyUpdates(a.subList(0, 2),
                adam.update(a.subList(2, 4), new Adam.State<>(1, a.subList(4, 6), a.subList(6, 8))).updates()));
        for (int step = 0; step < 5; step++) {
            List<ShardedArray> grads = sharded(GRAD[step], wSharding, bSharding);
            if (step == 1) {
                List<ShardedArray> args = new ArrayList<>(params);
                args.addAll(grads);
                args.addAll(state.mu());
                args.addAll(state.nu());
                List<ShardedArray> viaJit = jitted.call((Object[]) args.toArray(ShardedArray[]::new));
                assertBits(PARAM[step], viaJit.stream().map(ShardedArray::gather).toList(), "jitted params at step 2");
            }
            Adam.Update<ShardedArray> u = adam.update(grads, state);
            state = u.state();
            params = Adam.applyUpdates(params, u.updates());
            assertBits(MU[step], state.mu().stream().map(ShardedArray::gather).toList(), "mu at step " + (step + 1));
            assertBits(PARAM[step], params.stream().map(ShardedArray::gather).toList(), "params at step " + (step + 1));
        }
        // the elementwise update keeps each layout (the spec may print with its trailing None dropped)
        assertTrue(wSharding.spec().isEquivalentTo(params.get(0).sharding().spec()), () -> "W's layout");
        assertTrue(bSharding.spec().isEquivalentTo(params.get(1).sharding().spec()), () -> "b's layout");
    }

    @Test
    void eachDeviceUpdatingItsOwnBlockInsideAShardMapGivesOptaxValues() {
        // ZeRO-1's update: W[D_data, 3] and its moments split over 'data', every device steps its block alone
        Mesh mesh = Mesh.makeMesh(new int[] {2}, "data");
        NamedSharding rows = new NamedSharding(mesh, P("data"));
        List<ShardedArray> args = new ArrayList<>();
        args.add(ShardedArray.devicePut(NDArray.fromFloats(INITIAL[0], W_SHAPE), rows));
        for (float[][] g : GRAD) {
            args.add(ShardedArray.devicePut(NDArray.fromFloats(g[0], W_SHAPE), rows));
        }
        Adam adam = Adam.of(0.1);
        ShardedArray trained = ShardMap.shardMap(blocks -> {
            List<NDArray> w = List.of(blocks.get(0));
            Adam.State<NDArray> state = adam.init(w);
            for (int step = 1; step <= 5; step++) {
                Adam.Update<NDArray> u = adam.update(List.of(blocks.get(step)), state);
                state = u.state();
                w = Adam.applyUpdates(w, u.updates());
            }
            return w;
        }, mesh, java.util.Collections.nCopies(6, P("data")), List.of(P("data"))).call(args).get(0);
        assertArrayEquals(PARAM[4][0], trained.gather().toFloatArray());
    }

    private static List<ShardedArray> sharded(float[][] pair, NamedSharding w, NamedSharding b) {
        List<NDArray> xs = arrays(pair);
        return List.of(ShardedArray.devicePut(xs.get(0), w), ShardedArray.devicePut(xs.get(1), b));
    }

    @Test
    void mixedOrMismatchedListsAreRefused() {
        Adam adam = Adam.of(0.1);
        Adam.State<NDArray> state = adam.init(arrays(INITIAL));
        var mixed = assertThrows(IllegalArgumentException.class, () -> Adam.applyUpdates(
                List.<Object>of(NDArray.of(1f)), List.<Object>of("not an array")));
        assertEquals("Adam works on lists of NDArrays or of ShardedArrays, got [String]", mixed.getMessage());
        var count = assertThrows(IllegalArgumentException.class,
                () -> adam.update(List.of(NDArray.of(1f)), state));
        assertEquals("Adam's state holds 2 moments, got 1 gradients", count.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new Adam(Double.NaN, 0.9, 0.999, 1e-8, 0));
        Adam.State<NDArray> saturated = new Adam.State<>(Integer.MAX_VALUE, state.mu(), state.nu());
        assertEquals(Integer.MAX_VALUE, adam.update(arrays(GRAD[0]), saturated).state().count());
    }
}
