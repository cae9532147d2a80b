/**
 * What a write target's own {@code /metrics} say: one GET of the page ({@link io.tsdbwriter.tsdbmetrics.MetricsPage},
 * {@link io.tsdbwriter.tsdbmetrics.MetricsScraper}, {@link io.tsdbwriter.tsdbmetrics.PromSnapshot}), the probes the
 * running writer sizes and checks itself with (VictoriaMetrics' {@code vm_concurrent_insert_capacity},
 * {@code -retentionPeriod}), and the attribution of what limits the target ({@link io.tsdbwriter.tsdbmetrics.Bottleneck},
 * {@link io.tsdbwriter.tsdbmetrics.LiveAttribution}) that {@code run}'s {@code limited_by} and the capacity search's
 * verdict share. Below {@code app}, {@code durability} and {@code metrics}; depends only on {@code decode}'s exposition
 * tokenizer (docs/architecture.md, held by ArchitectureTest).
 */
package io.tsdbwriter.tsdbmetrics;
