package dev.shardlings.jit;

import dev.shardlings.array.DType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.DataMovement;
import dev.shardlings.spmd.DeviceProgram;

/**
 * What one device of a compiled program does, as {@code compiled.cost_analysis()} reports it.
 *
 * @param flops             floating-point operations per device (a local f32[8,2]·f32[2,8] matmul is 2·8·2·8 = 256)
 * @param bytesAccessed     bytes the device's local operations read and write (operands plus results)
 * @param bytesReceivedPerDevice bytes one device receives in the program's collectives (not the sum over devices,
 *                               and not what it sends; the cost model's all-device total of bytes sent is
 *                               {@code Timeline.bytesSentTotal}). JAX's {@code cost_analysis()} has no such entry:
 *                               it is read off the program's collectives, as problem 2.2 asks students to.
 */
public record CostAnalysis(long flops, long bytesAccessed, long bytesReceivedPerDevice) {

    /** The cost of a partitioned program: its local operations' FLOPs and bytes, its data movement's bytes. */
    static CostAnalysis of(DeviceProgram program, LocalTypes types, Mesh mesh) {
        long flops = 0;
        long bytes = 0;
        long comm = 0;
        for (DeviceProgram.Instruction ins : program.instructions()) {
            if (ins instanceof DeviceProgram.Apply a) {
                flops += a.flops();
                bytes += a.bytes();
            } else if (ins instanceof DeviceProgram.Move m) {
                int[] s = types.shape(m.input());
                DType dt = types.dtype(m.input());
                for (DataMovement step : m.steps()) {
                    comm += step.bytesReceived(s, dt.byteSize(), mesh);
                    s = step.outShape(s, mesh);
                }
            }
        }
        return new CostAnalysis(flops, bytes, comm);
    }
}
