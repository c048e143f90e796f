package dev.shardlings.spmd;

import dev.shardlings.array.NDArray;
import dev.shardlings.primitive.ArrayType;
import dev.shardlings.primitive.ManualRegion;
import dev.shardlings.primitive.Partitioning;
import dev.shardlings.primitive.Primitive;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.events.Origin;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A partitioned program: what every device runs, as instructions over numbered registers that each hold one
 * block. Registers 0 … k−1 hold the arguments' blocks; {@link Apply} runs a primitive's local operation on
 * blocks; {@link Move} runs {@link DataMovement}s (collectives, local slices); {@link Region} runs a
 * hand-written shardMap function once and keeps each of its results. {@link #run} executes it as one
 * shardMap over the mesh, so every collective is traced and costed like hand-written code.
 *
 * @param instructions in order
 * @param registers    how many registers the program uses
 */
public record DeviceProgram(List<Instruction> instructions, int registers) {

    /** @throws NullPointerException if instructions is null */
    public DeviceProgram {
        instructions = List.copyOf(instructions);
    }

    /** One instruction. */
    public sealed interface Instruction permits Apply, Move, Region {
        /** The register written (the first, for a {@link Region} of several results). */
        int output();
    }

    /**
     * Runs a shardMap region's per-device function once on blocks and keeps every result block.
     *
     * @param region     the region (its body, in and out specs)
     * @param inputs     registers read, laid out by the in specs
     * @param outputs    registers written, one per result
     * @param localTypes each result block's dtype and local shape
     */
    public record Region(ManualRegion region, List<Integer> inputs, List<Integer> outputs,
                         List<ArrayType> localTypes) implements Instruction {
        /**
         * @throws NullPointerException     if an argument is null
         * @throws IllegalArgumentException if there is not one output register and local type per result
         */
        public Region {
            Objects.requireNonNull(region, "region");
            inputs = List.copyOf(inputs);
            outputs = List.copyOf(outputs);
            localTypes = List.copyOf(localTypes);
            if (outputs.size() != region.resultCount() || localTypes.size() != outputs.size()) {
                throw new IllegalArgumentException("a region of " + region.resultCount() + " results needs as many"
                        + " output registers and local types, got " + outputs.size() + " and " + localTypes.size());
            }
        }

        @Override
        public int output() {
            return outputs.get(0);
        }
    }

    /**
     * Runs a primitive's local operation on blocks.
     *
     * @param local     the primitive, with parameters in local sizes
     * @param inputs    registers read
     * @param output    register written
     * @param localType the block it produces (dtype and local shape)
     * @param flops     floating-point operations of the local operation
     * @param bytes     bytes the local operation reads and writes
     */
    public record Apply(Primitive local, List<Integer> inputs, int output, ArrayType localType, long flops,
                        long bytes) implements Instruction {
        /** @throws NullPointerException if an argument is null */
        public Apply {
            Objects.requireNonNull(local, "local");
            inputs = List.copyOf(inputs);
            Objects.requireNonNull(localType, "localType");
        }
    }

    /**
     * Moves data: runs steps on one block.
     *
     * @param steps  the steps, in order
     * @param input  register read
     * @param output register written
     */
    public record Move(List<DataMovement> steps, int input, int output) implements Instruction {
        /** @throws NullPointerException if steps is null */
        public Move {
            steps = List.copyOf(steps);
        }
    }

    /** Builds a program equation by equation. Not thread-safe. */
    public static final class Builder {
        private final Mesh mesh;
        private final List<Instruction> instructions = new ArrayList<>();
        private int registers;

        /**
         * @param mesh      the mesh the program runs on
         * @param arguments how many arguments (registers 0 … arguments−1)
         */
        public Builder(Mesh mesh, int arguments) {
            this.mesh = Objects.requireNonNull(mesh, "mesh");
            this.registers = arguments;
        }

        /** A fresh register. */
        public int register() {
            return registers++;
        }

        /** Runs {@code steps} on a block; returns the register of the result. */
        public int move(int input, List<DataMovement> steps) {
            int out = register();
            instructions.add(new Move(steps, input, out));
            return out;
        }

        /**
         * Re-lays a block out; returns its register (the same one when nothing moves).
         */
        public int relayout(int input, List<List<String>> from, List<List<String>> to) {
            List<DataMovement> steps = Relayout.plan(from, to, mesh);
            if (steps.isEmpty()) {
                return input;
            }
            int out = register();
            instructions.add(new Move(steps, input, out));
            return out;
        }

        /**
         * Adds one primitive applied to values with the given layouts, producing layout {@code out}: the operands'
         * relayouts, the local operation, the reduction completing it, and the final relayout.
         *
         * @return the register holding the result under {@code out}'s layout
         */
        public int equation(Primitive p, List<Integer> inputs, List<ArrayType> layouts, ArrayType out) {
            Partitioning plan = p.partition(layouts, out);
            Partitioning.Share share = plan.share();
            DataMovement.Regroup shareMove = share == null ? null : DataMovement.Regroup.share(
                    Relayout.withoutTrivialAxes(out.dims(), mesh), share.resultDim(), share.over(), share.parts(),
                    mesh);
            List<Integer> local = new ArrayList<>();
            for (int k = 0; k < inputs.size(); k++) {
                int in = inputs.get(k);
                List<List<String>> from = layouts.get(k).dims();
                List<List<String>> via = plan.operandVia().get(k);
                if (!via.isEmpty()) {
                    in = regroupOrRelayout(in, from, via);
                    from = via;
                }
                in = relayout(in, from, plan.operandDims().get(k));
                if (shareMove != null && share.operandDim().get(k) >= 0) {
                    in = move(in, List.of(new DataMovement.SliceMajor(share.over(), share.parts(),
                            share.operandDim().get(k))));
                }
                local.add(in);
            }
            int r = register();
            List<ArrayType> localIn = new ArrayList<>();
            long bytes = 0;
            for (int k = 0; k < inputs.size(); k++) {
                ArrayType t = layouts.get(k);
                int[] block = blockShape(t.shape(), plan.operandDims().get(k));
                if (shareMove != null && share.operandDim().get(k) >= 0) {
                    block[share.operandDim().get(k)] /= share.parts();
                }
                ArrayType lt = ArrayType.unsharded(t.dtype(), block);
                localIn.add(lt);
                bytes += lt.size() * lt.dtype().byteSize();
            }
            int[] outBlock = blockShape(out.shape(), plan.resultDims());
            if (shareMove != null) {
                outBlock[share.resultDim()] /= share.parts();
            }
            ArrayType localOut = ArrayType.unsharded(out.dtype(), outBlock);
            bytes += localOut.size() * localOut.dtype().byteSize();
            instructions.add(new Apply(plan.local(), local, r, localOut, plan.local().flops(localIn, localOut),
                    bytes));
            // Partial results over axes of size 1 are already complete: no collective for a group of one device.
            List<List<String>> dims = Relayout.withoutTrivialAxes(plan.resultDims(), mesh);
            List<List<String>> reduceSteps = plan.reduceSteps().stream()
                    .map(g -> g.stream().filter(a -> mesh.axisSize(a) > 1).toList()).filter(g -> !g.isEmpty()).toList();
            List<DataMovement> steps = new ArrayList<>();
            // one all-reduce per reduced dimension, as XLA completes a reduction over several split dimensions
            reduceSteps.forEach(g -> steps.add(new DataMovement.AllReduce(g, plan.reduceOp())));
            if (shareMove != null) {
                steps.add(shareMove);
                dims = shareMove.to();
            }
            if (!steps.isEmpty()) {
                r = move(r, steps);
            }
            return relayout(r, dims, out.dims());
        }

        /**
         * Re-lays a block out by one collective-permute where {@code to} only moves {@code from}'s blocks onto
         * other axes of the same sizes ({@link DataMovement.Regroup}, how XLA moves a dot's operand into a device
         * group), otherwise as {@link #relayout}.
         */
        private int regroupOrRelayout(int input, List<List<String>> from, List<List<String>> to) {
            DataMovement.Regroup regroup = DataMovement.Regroup.of(Relayout.withoutTrivialAxes(from, mesh),
                    Relayout.withoutTrivialAxes(to, mesh), mesh);
            if (regroup == null) {
                return relayout(input, from, to);
            }
            int out = register();
            instructions.add(new Move(List.of(regroup), input, out));
            return out;
        }

        /**
         * Adds a shardMap region: its operands re-laid out to the in specs, then its function run once.
         *
         * @param layouts the operands' layouts
         * @return the registers holding its results, laid out by the out specs
         */
        public List<Integer> region(ManualRegion region, List<Integer> inputs, List<ArrayType> layouts) {
            List<Integer> local = new ArrayList<>();
            for (int k = 0; k < inputs.size(); k++) {
                ArrayType t = layouts.get(k);
                local.add(relayout(inputs.get(k), t.dims(), region.operandDims(k, t.rank())));
            }
            List<Integer> outs = new ArrayList<>();
            List<ArrayType> localTypes = new ArrayList<>();
            for (int j = 0; j < region.resultCount(); j++) {
                outs.add(register());
                Primitive.Shaped s = region.results().get(j);
                localTypes.add(ArrayType.unsharded(s.dtype(), blockShape(s.shape(), region.resultDims(j))));
            }
            instructions.add(new Region(region, local, outs, localTypes));
            return outs;
        }

        private int[] blockShape(List<Integer> shape, List<List<String>> dims) {
            int[] out = new int[shape.size()];
            for (int d = 0; d < out.length; d++) {
                int parts = 1;
                for (String a : dims.get(d)) {
                    parts *= mesh.axisSize(a);
                }
                out[d] = shape.get(d) / parts;
            }
            return out;
        }

        /** The program built so far. */
        public DeviceProgram build() {
            return new DeviceProgram(instructions, registers);
        }
    }

    /**
     * Runs the program on every device of the mesh as one shardMap.
     *
     * @param args     the arguments, laid out by inSpecs (re-laid out first if not)
     * @param inSpecs  the arguments' layouts
     * @param outputs  the registers returned
     * @param outSpecs their layouts
     * @param name     the program's name in the trace
     * @param origin   what the trace records as its author ({@link Origin#JIT} or {@link Origin#GLOBAL_OP})
     */
    public List<ShardedArray> run(Mesh mesh, List<ShardedArray> args, List<PartitionSpec> inSpecs,
                                  List<Integer> outputs, List<PartitionSpec> outSpecs, String name, Origin origin) {
        ShardMap.DeviceFunction body = blocks -> {
            NDArray[] reg = new NDArray[registers];
            for (int k = 0; k < blocks.size(); k++) {
                reg[k] = blocks.get(k);
            }
            for (Instruction ins : instructions) {
                if (ins instanceof Apply a) {
                    List<NDArray> in = new ArrayList<>(a.inputs().size());
                    a.inputs().forEach(i -> in.add(reg[i]));
                    reg[a.output()] = a.local().apply(in);
                } else if (ins instanceof Region g) {
                    List<NDArray> in = new ArrayList<>(g.inputs().size());
                    // a region's blocks vary over the axes its in specs name, as a shardMap's arguments do
                    for (int k = 0; k < g.inputs().size(); k++) {
                        in.add(reg[g.inputs().get(k)].withVaryingAxes(
                                g.region().inSpecs().get(k).mentionedAxes()));
                    }
                    List<NDArray> results = g.region().body().apply(in);
                    if (results == null || results.size() != g.outputs().size()) {
                        throw new IllegalStateException("shardMap " + g.region().label() + " returned "
                                + (results == null ? "null" : results.size() + " arrays") + " inside jit where it"
                                + " returned " + g.outputs().size() + " while the program was traced");
                    }
                    for (int j = 0; j < g.outputs().size(); j++) {
                        reg[g.outputs().get(j)] = results.get(j);
                    }
                } else {
                    Move m = (Move) ins;
                    reg[m.output()] = Relayout.apply(m.steps(), reg[m.input()], mesh);
                }
            }
            List<NDArray> out = new ArrayList<>(outputs.size());
            outputs.forEach(i -> out.add(reg[i]));
            return out;
        };
        return ShardMap.shardMap(body, mesh, inSpecs, outSpecs).checkVma(false).named(name)
                .origin(Objects.requireNonNull(origin, "origin")).call(args);
    }
}
