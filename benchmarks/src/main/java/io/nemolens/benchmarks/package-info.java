/**
 * JMH benchmarks of the consumer's hot paths and the end-to-end bench ({@link
 * io.nemolens.benchmarks.EndToEndBenchmark}): broker, consumer, archive, and the raw one-writer Parquet rate
 * of the same rows.
 */
@NullMarked
package io.nemolens.benchmarks;

import org.jspecify.annotations.NullMarked;
