package dev.shardlings.sharding;

import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.sharding.PartitionSpec.tuple;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** List entries behave like Python lists in a PartitionSpec (jax-semantics.md §2.1). */
class PartitionSpecListEntriesTest {

    @Test
    void listsAreTuplesAndCanonicalise() {
        assertEquals(P(tuple("x", "y")), P(List.of("x", "y")));
        assertEquals(P("x"), P(List.of("x")));
        assertEquals(P((Object) null), P(List.of()));
        assertEquals("P(('x', 'y'), None)", P(List.of("x", "y"), null).toString());
    }

    @Test
    void aNestedTupleIsJaxsError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> P(List.of(List.of("x", "y"))));
        assertEquals("A tuple inside PartitionSpec cannot contain a nested tuple. Got partition: (('x', 'y'),) and"
                + " the nested tuple: ('x', 'y')", e.getMessage());
    }

    @Test
    void anArrayEntryIsRejectedWithAPointerToTuple() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> P("x", new int[]{1}));
        assertEquals(true, e.getMessage().contains("tuple"), e.getMessage());
    }
}
