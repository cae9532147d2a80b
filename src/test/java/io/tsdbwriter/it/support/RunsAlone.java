package io.tsdbwriter.it.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks an integration test class whose assertions measure: an efficiency at a step, CPU per sample, a p99, a
 * receiver's CPU, memory and disk figures, a page's figures after a timed run; or whose outcome depends on a
 * deadline a broker holds it to (share-group record locks of 6 s in {@code ShareGroupIT}, which expired under a
 * neighbour's load and delivered records twice) or on the order of a TSDB's restart and the writer's retries
 * ({@code DurabilityIT}: a retry into a restarted Prometheus before the writer rewound). Another class's broker,
 * TSDB and writers on the same two cores would move those figures, so the failsafe execution {@code alone}
 * (pom.xml: JUnit tag {@value #TAG}, one fork) runs these one after another, after the default execution has run every
 * other class in {@code it.forks} forks side by side (their outcomes are counts, offsets and samples read back, which
 * a neighbour's load delays but does not change). A rate limiter's rate over whole minutes ({@code RateIT}: a
 * neighbour moves a write by milliseconds), where processes are placed ({@code PlacementIT}: affinity lists) and a
 * dashboard's queries and counts ({@code DashboardIT}) are such outcomes too: those classes run in the default
 * execution.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(RunsAlone.TAG)
public @interface RunsAlone {

    /** The JUnit tag the pom's executions select on. */
    String TAG = "alone";
}
