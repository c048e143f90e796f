package dev.shardlings.autodiff;

import dev.shardlings.array.NDArray;
import dev.shardlings.array.OpObserver;
import dev.shardlings.array.OpObservers;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * The arrays one {@link LocalTape} holds for its backward pass (JAX's residuals), counted once each by identity
 * and reported to the thread's {@link OpObserver} (inside shardMap: the device) as they come and go, which is how
 * the trace models activation memory ({@link dev.shardlings.events.DeviceTrace#peakResidualBytes}). The
 * differentiated function's arguments are not counted: they are resident for the whole call.
 *
 * <p>The model is deliberately simple: every array a recorded operation read or made is held from its recording
 * until the tape's backward pass has run (JAX frees some earlier, and saves a boolean mask where this holds a
 * float). What matters for rematerialisation is the difference it shows: a checkpointed block holds only its
 * inputs and outputs, and its intermediates only while it is recomputed.
 */
final class Residuals {
    private final Set<Object> excluded = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<Object> held = Collections.newSetFromMap(new IdentityHashMap<>());
    /** The observer of the thread that made the tape: releases go where holds went. */
    private final OpObserver observer = OpObservers.current();
    private long bytes;

    /** Never counts {@code x} (an argument of the differentiated function). */
    void exclude(NDArray x) {
        excluded.add(x);
    }

    /** Holds the arrays among {@code values} not held yet (constants that are not arrays are skipped). */
    void hold(List<?> values) {
        long added = 0;
        for (Object v : values) {
            if (v instanceof NDArray a && !excluded.contains(a) && held.add(a)) {
                added += a.nbytes();
            }
        }
        report(added);
    }

    /** Releases everything: the backward pass has run. */
    void release() {
        report(-bytes);
        held.clear();
    }

    private void report(long delta) {
        bytes += delta;
        if (delta != 0 && observer != null) {
            observer.residuals(delta);
        }
    }
}
