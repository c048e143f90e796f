/**
 * JMH benchmarks of the framework's hot paths and of the reference solutions at the book's sizes, each beside a
 * reference measured in the same run (numpy/OpenBLAS, {@code System.arraycopy}, a barrier of plain platform
 * threads). Run them with {@code mvn -B -Pbench verify -pl solutions -am -DskipTests}; the report is written to
 * {@code solutions/target/bench/report.md}. docs/performance.md explains the figures.
 */
package dev.shardlings.bench;
