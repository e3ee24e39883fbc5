/**
 * Realistic OTLP telemetry and collector-shaped OTLP/JSON: used by the tests, the benchmarks and the
 * telemetry generator to produce what production sends.
 */
@NullMarked
package io.nemolens.generator;

import org.jspecify.annotations.NullMarked;
