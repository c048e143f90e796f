package dev.shardlings.jit;

/**
 * What one device of a compiled program does, as {@code compiled.cost_analysis()} reports it.
 *
 * @param flops             floating-point operations per device (a local f32[8,2]·f32[2,8] matmul is 2·8·2·8 = 256)
 * @param bytesAccessed     bytes the device's local operations read and write (operands plus results)
 * @param bytesCommunicated bytes one device receives in the program's collectives (per device; the name is the
 *                          course's, which problem 2 and its hints use; the cost model's all-device total is
 *                          {@code Timeline.bytesSentTotal})
 */
public record CostAnalysis(long flops, long bytesAccessed, long bytesCommunicated) {
}
