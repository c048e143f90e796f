package dev.shardlings.spmd;

import dev.shardlings.array.NDArray;
import dev.shardlings.array.OpObservers;
import dev.shardlings.events.DeviceTrace;
import dev.shardlings.events.ShardMapTrace;
import dev.shardlings.events.Trace;
import dev.shardlings.events.TraceEvent;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which recorded program made each array a piece of code returned: the provenance behind
 * {@link Trace#resultPrograms()}. Every array carries the id of the operation that made it, and every event of a
 * device's trace carries the id of the arrays it produced, so an array made by a program's last operation names
 * that program. A rule such as "the trained parameters come out of the jitted step" reads it: an update computed
 * on the host and placed with {@code devicePut} names no program.
 *
 * <p>Thread safety: stateless; the trace and the returned arrays are immutable.
 */
public final class ResultPrograms {
    private ResultPrograms() {
    }

    /**
     * For each array in {@code value} — the value itself when it is an {@link NDArray} or a {@link ShardedArray},
     * each element of a {@link List} otherwise (anything else counts as no array) — the index in
     * {@code trace.shardMaps()} of the program whose events made it, or {@link Trace#NO_PROGRAM}. A
     * {@code ShardedArray} names a program only when all its shards were made by that one program.
     *
     * @param value what the recorded code returned (may be null: no arrays)
     * @param trace what it did
     * @return one entry per array, in order
     * @throws NullPointerException if trace is null
     */
    public static List<Integer> of(Object value, Trace trace) {
        java.util.Objects.requireNonNull(trace, "trace");
        Map<Long, Integer> madeBy = new HashMap<>();
        List<ShardMapTrace> maps = trace.shardMaps();
        for (int i = 0; i < maps.size(); i++) {
            for (DeviceTrace d : maps.get(i).devices()) {
                for (TraceEvent e : d.events()) {
                    madeBy.put(e.id(), i);
                }
            }
        }
        List<Integer> out = new ArrayList<>();
        if (value instanceof List<?> list) {
            for (Object o : list) {
                out.add(program(o, madeBy));
            }
        } else if (value instanceof NDArray || value instanceof ShardedArray) {
            out.add(program(value, madeBy));
        }
        return out;
    }

    private static int program(Object o, Map<Long, Integer> madeBy) {
        if (o instanceof NDArray a) {
            return madeBy.getOrDefault(OpObservers.originOf(a), Trace.NO_PROGRAM);
        }
        if (o instanceof ShardedArray s && !s.isTraced()) {
            int program = Trace.NO_PROGRAM;
            for (ShardedArray.Shard shard : s.addressableShards()) {
                int p = madeBy.getOrDefault(OpObservers.originOf(shard.data()), Trace.NO_PROGRAM);
                if (p == Trace.NO_PROGRAM || (program != Trace.NO_PROGRAM && p != program)) {
                    return Trace.NO_PROGRAM;
                }
                program = p;
            }
            return program;
        }
        return Trace.NO_PROGRAM;
    }
}
