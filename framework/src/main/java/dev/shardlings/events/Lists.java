package dev.shardlings.events;

import java.util.List;
import java.util.Objects;

/**
 * Argument checks for the list components of this package's records. A twin lives in
 * {@code dev.shardlings.sharding}: a shared one would have to be public, and the framework's public API is the
 * course's (NullArgumentsTest lists it).
 */
final class Lists {

    private Lists() {
    }

    /**
     * An immutable copy of {@code list}.
     *
     * @throws NullPointerException naming the argument ({@code name}, or {@code name[i]} for an element) if the
     *                              list or an element is null
     */
    static <T> List<T> copyOfNonNull(List<T> list, String name) {
        Objects.requireNonNull(list, name);
        for (int i = 0; i < list.size(); i++) {
            Objects.requireNonNull(list.get(i), name + "[" + i + "]");
        }
        return List.copyOf(list);
    }
}
