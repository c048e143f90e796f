package dev.shardlings.autodiff;

import dev.shardlings.jit.Jit;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;
import java.util.*;

class ScratchDebugTest {
    @Test
    void debug() {
        Random r = new Random(3);
        int fwdSte = 0, bwdSte = 0, ok = 0, specMismatch = 0;
        List<String> examples = new ArrayList<>();
        for (int t = 0; t < 150; t++) {
            GlobalGradientProperties.Setup s = GlobalGradientProperties.setups(true).generator(1000).next(new Random(r.nextLong())).value();
            List<ShardedArray> xs = s.placed();
            try {
                Jit.jitList(a -> List.of(GlobalGradientProperties.loss(s.c(), a))).call(xs.toArray());
            } catch (RuntimeException e) {
                if (GlobalGradientProperties.isShardingTypeError(e)) { fwdSte++; continue; }
                System.out.println("FWD OTHER " + e + "\n" + s); continue;
            }
            try {
                List<List<ShardedArray>> both = GlobalGradientProperties.frameworkGradients(s);
                ok++;
                for (List<ShardedArray> gs : both) for (int k = 0; k < xs.size(); k++) {
                    if (!gs.get(k).sharding().spec().isEquivalentTo(xs.get(k).sharding().spec())) {
                        specMismatch++;
                        if (examples.size() < 6) examples.add("SPEC grad " + gs.get(k).sharding().spec() + " vs input " + xs.get(k).sharding().spec() + " k=" + k + "\n" + s);
                    }
                }
            } catch (RuntimeException e) {
                if (GlobalGradientProperties.isShardingTypeError(e)) {
                    bwdSte++;
                    if (examples.size() < 6) { Throwable c = e; while (c.getCause() != null && !(c instanceof dev.shardlings.primitive.ShardingTypeError)) c = c.getCause(); examples.add("BWD " + c.getMessage() + "\n" + s); }
                    continue;
                }
                System.out.println("GRAD OTHER " + e + "\n" + s); continue;
            }
        }
        System.out.println("fwdSte=" + fwdSte + " bwdSte=" + bwdSte + " ok=" + ok + " specMismatch=" + specMismatch);
        examples.forEach(System.out::println);
    }
}
