package dev.shardlings.course;

import dev.shardlings.array.KeepDims;
import dev.shardlings.spmd.ShardedArray;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.ShardMap.shardMap;

/** A course method that uses one documented and two undocumented framework methods (ApiCoverageTest's fixture). */
final class Fixture {
    private Fixture() {
    }

    static ShardedArray documented(ShardedArray a, ShardedArray b) {
        return a.add(b).add(1.0).mean(0);
    }

    static ShardedArray undocumented(ShardedArray a) {
        ShardedArray out = shardMap(block -> block.mean(KeepDims.KEEP), a.mesh(), P("X"), P("X")).apply(a);
        return out.add(a.mesh().axisSize("X"));
    }
}
