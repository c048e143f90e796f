package dev.shardlings.grader.parts;

import dev.shardlings.cost.ModelDtype;

/**
 * The setting of a performance part ({@link Part.Timed}): which hardware model, which dtype, and the case in words.
 *
 * @param hardware the name of a built-in {@code dev.shardlings.cost.HardwareModel} (e.g. {@code tpu-v5e})
 * @param dtype    the modelled dtype
 * @param caseText the mesh and sizes, for reports
 */
public record TimedSetting(String hardware, ModelDtype dtype, String caseText) {
}
