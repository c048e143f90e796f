package dev.shardlings.jit;

import dev.shardlings.array.DType;
import dev.shardlings.primitive.ArrayType;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.DataMovement;
import dev.shardlings.spmd.DeviceProgram;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The per-device program as text, the way {@code compiled.as_text()} shows XLA's partitioned module: one line per
 * parameter, local operation, shard_map region and data-movement step, with local shapes and replica groups.
 */
final class ProgramText {
    private ProgramText() {
    }

    static String render(String name, Mesh mesh, DeviceProgram program, List<ArrayType> args, LocalTypes types,
                         List<Integer> outputs, List<NamedSharding> outs) {
        StringBuilder sb = new StringBuilder();
        sb.append("HloModule jit_").append(name).append(", num_partitions=").append(mesh.size()).append(", mesh=")
                .append(mesh).append(axisTypes(mesh)).append("\n\nENTRY main {\n");
        for (int k = 0; k < args.size(); k++) {
            sb.append("  %").append(k).append(" = ").append(type(types.dtype(k), types.shape(k)))
                    .append(" parameter(").append(k).append("), sharding=").append(args.get(k).spec())
                    .append('\n');
        }
        for (DeviceProgram.Instruction ins : program.instructions()) {
            if (ins instanceof DeviceProgram.Apply a) {
                sb.append("  %").append(a.output()).append(" = ")
                        .append(type(a.localType().dtype(), a.localType().shapeArray())).append(' ')
                        .append(a.local().name()).append('(').append(a.inputs().stream().map(i -> "%" + i)
                                .collect(Collectors.joining(", "))).append(")\n");
            } else if (ins instanceof DeviceProgram.Region g) {
                List<String> typeTexts = new ArrayList<>();
                for (ArrayType t : g.localTypes()) {
                    typeTexts.add(type(t.dtype(), t.shapeArray()));
                }
                sb.append("  ").append(g.outputs().stream().map(i -> "%" + i).collect(Collectors.joining(", ")))
                        .append(" = ").append(typeTexts.size() == 1 ? typeTexts.get(0)
                                : "(" + String.join(", ", typeTexts) + ")")
                        .append(" shard_map(").append(g.inputs().stream().map(i -> "%" + i)
                                .collect(Collectors.joining(", "))).append("), name=").append(g.region().label())
                        .append('\n');
            } else {
                DeviceProgram.Move m = (DeviceProgram.Move) ins;
                int[] s = types.shape(m.input());
                DType dt = types.dtype(m.input());
                String in = "%" + m.input();
                for (int i = 0; i < m.steps().size(); i++) {
                    DataMovement step = m.steps().get(i);
                    s = step.outShape(s, mesh);
                    String target = i == m.steps().size() - 1 ? "%" + m.output() : "%" + m.output() + "." + i;
                    sb.append("  ").append(target).append(" = ").append(type(dt, s)).append(' ')
                            .append(describe(step, in, mesh)).append('\n');
                    in = target;
                }
            }
        }
        sb.append("  ROOT tuple(").append(outputs.stream().map(i -> "%" + i).collect(Collectors.joining(", ")))
                .append("), shardings={").append(outs.stream().map(o -> o.spec().toString())
                        .collect(Collectors.joining(", "))).append("}\n}\n");
        return sb.toString();
    }

    private static String axisTypes(Mesh mesh) {
        return mesh.axisTypes().stream().allMatch(t -> t == AxisType.AUTO) ? ""
                : ", axis_types=(" + mesh.axisTypes().stream().map(AxisType::jaxName)
                .collect(Collectors.joining(", ")) + ")";
    }

    private static String type(DType dtype, int[] s) {
        return dtype.shortName() + "[" + java.util.Arrays.stream(s).mapToObj(String::valueOf)
                .collect(Collectors.joining(",")) + "]";
    }

    private static String describe(DataMovement step, String in, Mesh mesh) {
        String groups = groups(step.axes(), mesh);
        if (step instanceof DataMovement.AllGather g) {
            return "all-gather(" + in + "), dimensions={" + g.dim() + "}" + groups;
        }
        if (step instanceof DataMovement.AllToAll t) {
            return "all-to-all(" + in + "), split_dimension=" + t.splitDim() + ", concat_dimension="
                    + t.concatDim() + groups;
        }
        if (step instanceof DataMovement.AllReduce r) {
            return "all-reduce(" + in + ")" + groups + ", to_apply=" + switch (r.op()) {
                case SUM -> "add";
                case MAX -> "maximum";
                case MIN -> "minimum";
                case MEAN -> throw new AssertionError("DataMovement.AllReduce refuses mean");
            };
        }
        if (step instanceof DataMovement.SliceMajor s) {
            return "dynamic-slice(" + in + "), dimension=" + s.dim() + ", by axis_index" + s.axes() + " into "
                    + s.parts() + " parts";
        }
        if (step instanceof DataMovement.Redistribute r) {
            return "collective-permute(" + in + "), layout " + layoutText(r.from()) + " -> " + layoutText(r.to())
                    + " (each device receives only the pieces of its new block)";
        }
        if (step instanceof DataMovement.Regroup r) {
            return "collective-permute(" + in + "), source_target_pairs={" + r.pairs().stream()
                    .map(p -> "{" + mesh.devices().get(p[0]).id() + "," + mesh.devices().get(p[1]).id() + "}")
                    .collect(Collectors.joining(",")) + "}";
        }
        if (step instanceof DataMovement.RollSplit r) {
            return "collective-permute(" + in + "), dimension=" + r.dim() + ", shift=" + r.shift()
                    + ", over axes " + r.axes() + " (rows that wrap past a block go to the next devices)";
        }
        DataMovement.SliceLocal s = (DataMovement.SliceLocal) step;
        return "dynamic-slice(" + in + "), dimension=" + s.dim() + ", by axis_index" + s.axes();
    }

    private static String layoutText(List<List<String>> dims) {
        return Tracer.trimmed(PartitionSpec.P(dims.stream().<Object>map(e -> e.isEmpty() ? null : e.size() == 1
                ? e.get(0) : PartitionSpec.tuple(e.toArray(new String[0]))).toArray())).toString();
    }

    /**
     * {@code , replica_groups={{0,1},{2,3}}}: device ids per group, each in the order of {@code axes} (the first
     * major), omitted when all devices form one group in mesh order. A group over all devices in another order is
     * printed ({@code {{0,2,1,3}}} for ('y', 'x') on a 2 × 2 mesh), as XLA prints it: an all-gather concatenates
     * in that order.
     */
    private static String groups(List<String> axes, Mesh mesh) {
        List<String> split = axes.stream().filter(a -> mesh.axisSize(a) > 1).toList();
        List<String> meshOrder = mesh.axisNames().stream().filter(split::contains).toList();
        if (axes.isEmpty() || (mesh.axisSize(axes) == mesh.size() && split.equals(meshOrder))) {
            return "";
        }
        TreeMap<String, TreeMap<Integer, Integer>> byRest = new TreeMap<>();
        for (Device d : mesh.devices()) {
            StringBuilder rest = new StringBuilder();
            int idx = 0;
            for (int a = 0; a < mesh.rank(); a++) {
                String n = mesh.axisNames().get(a);
                if (!axes.contains(n)) {
                    rest.append(String.format("%05d,", d.coords().get(a)));
                }
            }
            for (String n : axes) {
                idx = idx * mesh.axisSize(n) + d.coords().get(mesh.axisPosition(n));
            }
            byRest.computeIfAbsent(rest.toString(), k -> new TreeMap<>()).put(idx, d.id());
        }
        return ", replica_groups={" + byRest.values().stream().map(g -> g.values().stream()
                .map(String::valueOf).collect(Collectors.joining(",", "{", "}")))
                .collect(Collectors.joining(",")) + "}";
    }
}
