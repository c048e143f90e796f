package dev.shardlings.grader.chapter6;

/** Which part a Chapter 6 case is for: it decides the mesh and which sizes must divide. */
public enum Chapter6Kind { DATA_PARALLEL, DATA_TENSOR_PARALLEL, MANUAL_DATA_PARALLEL, FSDP, MEGATRON }
