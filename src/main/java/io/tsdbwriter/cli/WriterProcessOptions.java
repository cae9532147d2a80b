package io.tsdbwriter.cli;

import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.config.RunConfig;
import io.tsdbwriter.lab.SourceFeed;
import io.tsdbwriter.produce.BundledScrapes;
import io.tsdbwriter.write.http.SafeUrl;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * How {@code bench} and {@code capacity} start their writer processes ({@code java [--writer-jvm-option…] -jar
 * <--writer-jar> run … [--writer-arg…]}): one declaration for both commands (a picocli mixin). Not thread-safe; filled
 * by picocli once per parse.
 */
public final class WriterProcessOptions {

    @Option(
            names = "--writer-jar",
            paramLabel = "JAR",
            description = "Jar to run the writers from (default: the jar this command runs from)")
    Path writerJar;

    @Option(
            names = "--writer-jvm-option",
            paramLabel = "OPTION",
            parameterConsumer = VerbatimParameter.class,
            description = "JVM option for every writer process (repeatable; taken verbatim), e.g. -Xmx512m")
    List<String> writerJvmOptions = new ArrayList<>();

    @Option(
            names = "--writer-arg",
            paramLabel = "ARG",
            parameterConsumer = VerbatimParameter.class,
            description = "Extra argument for every writer's run command (repeatable; taken verbatim)")
    List<String> writerArgs = new ArrayList<>();

    @Option(
            names = "--segment-size",
            defaultValue = "50000",
            paramLabel = "RECORDS",
            description = "The writers' --segment-size (default: ${DEFAULT-VALUE})")
    long segmentSize;

    /**
     * The jar the writers run from: {@code --writer-jar} made absolute, else the jar this class was loaded from.
     *
     * @throws ParameterException when no {@code --writer-jar} was given and this code does not run from a jar
     */
    Path jar(CommandSpec spec) {
        if (writerJar != null) {
            return writerJar.toAbsolutePath();
        }
        try {
            Path p = Path.of(WriterProcessOptions.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
            if (!Files.isRegularFile(p) || !p.toString().endsWith(".jar")) {
                throw new ParameterException(
                        spec.commandLine(),
                        "not running from a jar (" + p + "): give --writer-jar target/tsdb-writer.jar");
            }
            return p;
        } catch (URISyntaxException | RuntimeException e) {
            if (e instanceof ParameterException pe) {
                throw pe;
            }
            throw new ParameterException(
                    spec.commandLine(), "cannot locate this jar: give --writer-jar (" + e.getMessage() + ")");
        }
    }

    /** The java command of the writers: the one this process runs on ({@code java.home}'s when unknown). */
    static List<String> javaCommand() {
        return List.of(ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    }

    /**
     * The arguments every writer's {@code run} gets besides its cell's: the Kafka client and VictoriaMetrics auth/TLS
     * settings of this command, then {@code --writer-arg}s.
     */
    List<String> runArgs(KafkaClientOptions kafkaClient, VmHttpOptions vmHttp) {
        List<String> runArgs = new ArrayList<>(kafkaClient.asArgs());
        runArgs.addAll(vmHttp.asArgs());
        runArgs.addAll(writerArgs);
        return runArgs;
    }

    /** {@code tsdb-writer <command> <its arguments>}, secrets redacted: the command line a report prints. */
    static String commandLine(CommandSpec spec) {
        List<String> args = new ArrayList<>(spec.commandLine().getParseResult().originalArgs());
        if (!args.isEmpty() && args.get(0).equals(spec.name())) {
            args.remove(0); // the parse result of a subcommand lists the command line from the top
        }
        return "tsdb-writer " + spec.name() + " " + String.join(" ", SafeUrl.redactArgs(args));
    }

    /**
     * {@link io.tsdbwriter.lab.SourceFeed#promFiles} of {@code --data-dir}, or of the bundled scrapes when it is not
     * given; its refusal as a usage error of this command.
     */
    static List<Path> promFiles(CommandSpec spec, Path dataDir) throws IOException {
        try {
            return SourceFeed.promFiles(dataDir != null ? dataDir : BundledScrapes.directory());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /**
     * The writers' limits that {@code run} would refuse (exit 2) checked before anything starts: {@code --segment-size}
     * in 1..{@value io.tsdbwriter.config.RunConfig#MAX_SEGMENT_SIZE}, and every M × N of the run within
     * {@value io.tsdbwriter.amplify.AmplificationPlan#MAX_SAMPLES_PER_POINT} samples per point.
     *
     * @throws IllegalArgumentException naming the flag, its value and the limit
     */
    void checkWriterLimits(Collection<Integer> timeMultipliers, Collection<Integer> instanceMultipliers) {
        if (segmentSize < 1 || segmentSize > RunConfig.MAX_SEGMENT_SIZE) {
            throw new IllegalArgumentException(
                    "--segment-size must be in 1.." + RunConfig.MAX_SEGMENT_SIZE + " offsets, got " + segmentSize);
        }
        for (int m : timeMultipliers) {
            for (int n : instanceMultipliers) {
                AmplificationPlan.of(m, n, AmplificationPlan.DEFAULT_SOURCE_INTERVAL);
            }
        }
    }
}
