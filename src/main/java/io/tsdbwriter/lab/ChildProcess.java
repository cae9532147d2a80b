package io.tsdbwriter.lab;

import java.util.List;

/**
 * The one maker of the processes that {@code bench} and {@code capacity} start (writer {@code run} processes, fresh
 * receivers, the floor and the peer, taskset, dpkg-query): a {@link ProcessBuilder} whose environment is this
 * process's less every {@value #PREFIX}{@code *} variable. Those variables give {@code run}'s options their defaults,
 * so an exported {@code TSDB_WRITER_MAX_SAMPLES_PER_SECOND} would throttle every cell silently; what the parent wants a child to have,
 * it passes as flags ({@code --writer-arg}, {@code --writer-jvm-option}: a child's log level is
 * {@code -DTSDB_WRITER_LOG_LEVEL=DEBUG}, which logback reads as a system property). Stateless and thread-safe.
 */
public final class ChildProcess {

    /** Prefix of the variables no child gets (the writer's own, {@code cli.EnvironmentDefaults}). */
    public static final String PREFIX = "TSDB_WRITER_";

    private ChildProcess() {}

    /**
     * A builder for {@code command} (program then arguments, not empty) without any {@value #PREFIX} variable.
     *
     * @throws NullPointerException when {@code command} or one of its elements is null
     */
    public static ProcessBuilder of(List<String> command) {
        return withoutWriterVariables(new ProcessBuilder(command));
    }

    /** {@link #of(List)} for a command written out. */
    public static ProcessBuilder of(String... command) {
        return of(List.of(command));
    }

    /** Removes every {@value #PREFIX} variable from {@code builder}'s environment; returns {@code builder}. */
    static ProcessBuilder withoutWriterVariables(ProcessBuilder builder) {
        builder.environment().keySet().removeIf(name -> name.startsWith(PREFIX));
        return builder;
    }
}
