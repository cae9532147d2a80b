package io.tsdbwriter.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tsdbwriter.app.ExitCodes;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.verify.ExpectedSamples;
import io.tsdbwriter.verify.ReadApi;
import io.tsdbwriter.verify.ReadBackVerifier;
import io.tsdbwriter.verify.VerificationResult;
import io.tsdbwriter.write.http.HttpClientSecurity;
import io.tsdbwriter.write.http.SafeUrl;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tsdb-writer verify}: checks that VictoriaMetrics holds exactly the samples the writer should have made of
 * the source points — given by the same flags as {@code produce} — amplified M × N (DESIGN §3). The files' timestamps
 * are moved to the present as {@code produce} moves them: give both the same {@code --now}, or {@code --keep-timestamps}.
 *
 * <p>What is read: without {@code --match} only the series the input names ({@link io.tsdbwriter.verify.InputSeriesSelectors}:
 * each metric name with its points' {@code productKey} values), so the other series of a shared TSDB are neither read
 * nor reported; with {@code --match} exactly the series it selects.
 *
 * <p>Prints a summary ({@code expected samples}, {@code found}, {@code missing}, {@code unexpected series},
 * {@code value mismatches}, … with up to 5 examples of each problem) to stdout. Reads back from one {@code --vm-url}: a
 * single-node, or a cluster's vmselect (then {@code --flush-url} names every vmstorage, or it waits for the samples to
 * become searchable, {@code --search-timeout}); or, {@code --read-api}, from any Prometheus-compatible query API
 * ({@link ReadBackVerifier#queryAndCompare}). Exit codes ({@link ExitCodes}): 0 VictoriaMetrics holds exactly the
 * expected samples; 1 it does not; 2 bad flags or an input that cannot be read; 5 ({@link ExitCodes#UNREACHABLE})
 * VictoriaMetrics could not be read back (one line on stderr says which URL and why).
 *
 * <p>Not thread-safe: picocli makes one instance per execution. For the check as a library call see
 * {@link ReadBackVerifier}.
 */
@Command(
        name = "verify",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Read back VictoriaMetrics and compare it sample by sample with the source points (same flags as produce) "
                    + "amplified M x N: every expected sample present with its value, no unexpected series, no extra samples.",
            "Calls /internal/force_flush (on --vm-url, or on every --flush-url), then streams /api/v1/export from --vm-url. What is read: "
                    + "without --match only the series the input names, every metric name with the productKey values its points carry "
                    + "({__name__=\"m\",productKey=~\"k1|k2\"}, POSTed in batches of at most 16 KiB of selectors), so a shared "
                    + "TSDB's other series are neither read nor reported; with --match exactly what it selects.",
            "Any other Prometheus-compatible query API (Prometheus 2 and 3, Thanos query, Mimir: --read-api prometheus, or auto where "
                    + "the export answers 404) is read sample by sample the same way: instant queries of range-vector selectors "
                    + "({…}[WINDOW]) at the end of each window, which answer the raw samples with their exact timestamps and values, "
                    + "over the expected span and 10 minutes (or a source interval) beyond it on each side, in windows of at most 11,000 "
                    + "samples per series."
        })
public final class VerifyCommand implements Callable<Integer> {

    /** {@code --log-format}: applied by {@link Main} before {@link #call()}. */
    @picocli.CommandLine.Mixin
    LogOptions logs = new LogOptions();

    @Spec
    CommandSpec spec;

    @Mixin
    SourceOptions source = new SourceOptions();

    @Option(
            names = "--time-multiplier",
            defaultValue = "1",
            paramLabel = "M",
            description =
                    "Samples per source point in time, t + i*source-interval/M for i in [0,M) (default: ${DEFAULT-VALUE})")
    int timeMultiplier;

    @Option(
            names = "--instance-multiplier",
            defaultValue = "1",
            paramLabel = "N",
            description =
                    "Instance variants per series: instanceNo, instanceNo-1 … instanceNo-(N-1) (default: ${DEFAULT-VALUE})")
    int instanceMultiplier;

    @Option(
            names = "--vm-url",
            defaultValue = ReadBackVerifier.DEFAULT_VM_URL,
            paramLabel = "URL",
            description =
                    "The one VictoriaMetrics URL to read back from: single node, or vmselect with the tenant's path; or the base of a "
                            + "Prometheus query API, e.g. http://prometheus:9090 (default: ${DEFAULT-VALUE})")
    String vmUrl;

    @Option(
            names = "--flush-url",
            paramLabel = "URL",
            description = "Base URL of each vmstorage, flushed before every read-back (repeatable)")
    List<String> flushUrls = new ArrayList<>();

    @Option(
            names = "--search-timeout",
            defaultValue = "60s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description =
                    "On a cluster, how long at most to read back until the samples are searchable (default: ${DEFAULT-VALUE})")
    Duration searchTimeout;

    @Option(
            names = "--read-api",
            defaultValue = "auto",
            paramLabel = "auto|vm-export|prometheus",
            converter = ReadApiConverter.class,
            description =
                    "vm-export (VictoriaMetrics' /api/v1/export, after a flush), prometheus (/api/v1/query of range-vector "
                            + "selectors: Prometheus, Thanos query, Mimir), or auto: the export, the query API where it answers 404 "
                            + "(default: ${DEFAULT-VALUE})")
    ReadApi readApi;

    @Option(
            names = "--ignore-label",
            paramLabel = "NAME",
            description =
                    "Label removed from every series read back before it is compared, e.g. tenant_id, an external label a "
                            + "Thanos query adds (repeatable)")
    List<String> ignoredLabels = new ArrayList<>();

    @Mixin
    VmHttpOptions vmHttp = new VmHttpOptions();

    @Option(
            names = "--match",
            paramLabel = "SELECTOR",
            description = "Series selector to read back instead of the input's series, e.g. '"
                    + ReadBackVerifier.ALL_SERIES + "' for "
                    + "every series of the TSDB; any series it does not select is ignored (default: the input's metric names and "
                    + "productKey values)")
    String match;

    @Option(
            names = "--value-tolerance",
            defaultValue = "1e-12",
            paramLabel = "REL",
            description =
                    "Relative value tolerance; VictoriaMetrics stores values with 12-15 significant digits, so 0 (bit-exact) "
                            + "fails doubles like 41.178000000000004 (default: ${DEFAULT-VALUE})")
    double valueTolerance;

    @Option(
            names = "--wait",
            defaultValue = "0s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description =
                    "Retry every 2 s until the check passes or this time has passed, for a writer still catching up (default: ${DEFAULT-VALUE})")
    Duration wait;

    @Option(
            names = "--replay-summary",
            paramLabel = "FILE",
            description = "The --summary-json of a replay: expect the samples shifted as each complete pass was")
    Path replaySummary;

    /** The shifts of the complete passes of a replay's summary; {0} without one. */
    static List<Long> passShifts(Path summary) throws IOException {
        if (summary == null) {
            return List.of(0L);
        }
        JsonNode passes = new ObjectMapper().readTree(summary.toFile()).get("passes");
        if (passes == null || !passes.isArray()) {
            throw new IllegalArgumentException(
                    "--replay-summary " + summary + " holds no passes: give the --summary-json of a replay");
        }
        List<Long> shifts = new ArrayList<>();
        for (JsonNode p : passes) {
            if (p.path("complete").asBoolean(false)) {
                shifts.add(p.path("shift_ms").asLong());
            }
        }
        return shifts;
    }

    /** {@code --read-api}: {@link ReadApi#parse}, its message on a bad value. */
    static final class ReadApiConverter implements CommandLine.ITypeConverter<ReadApi> {
        @Override
        public ReadApi convert(String value) {
            try {
                return ReadApi.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /** Time between read-backs while waiting ({@code --wait}, {@code --search-timeout}). */
    static final Duration POLL = Duration.ofSeconds(2);

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!(valueTolerance >= 0 && valueTolerance < 1)) {
            throw new ParameterException(
                    spec.commandLine(), "--value-tolerance must be in [0, 1), got " + valueTolerance);
        }
        if (wait.isNegative()) {
            throw new ParameterException(spec.commandLine(), "--wait must not be negative");
        }
        if (searchTimeout.isNegative()) {
            throw new ParameterException(spec.commandLine(), "--search-timeout must not be negative");
        }
        if (readApi == ReadApi.PROMETHEUS && !flushUrls.isEmpty()) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--flush-url names VictoriaMetrics' vmstorage nodes: not with --read-api prometheus (nothing to flush)");
        }
        ReadBackVerifier verifier;
        ExpectedSamples expected;
        try {
            List<String> urls = new ArrayList<>(flushUrls);
            urls.add(0, vmUrl);
            okhttp3.OkHttpClient client = HttpClientSecurity.of(vmHttp.toConfig(), urls)
                    .configure(ReadBackVerifier.defaultClient().newBuilder())
                    .build();
            verifier = new ReadBackVerifier(
                            SafeUrl.parse(vmUrl).url(),
                            flushUrls.stream().map(u -> SafeUrl.parse(u).url()).toList(),
                            match,
                            valueTolerance,
                            client)
                    .withReadApi(readApi)
                    .ignoringLabels(Set.copyOf(ignoredLabels));
            ExpectedSamples.Builder builder =
                    ExpectedSamples.builder(timeMultiplier, instanceMultiplier, source.sourceInterval.toMillis());
            SourceOptions.Source src = source.open(System.currentTimeMillis());
            err.println("verify: " + src.description());
            if (src.timestamps() != null) {
                err.println("verify: " + src.timestamps() + " (give the --now produce was given, or it printed)");
            }
            err.flush();
            Iterable<SourcePoint> points = src.points();
            for (long shift : passShifts(replaySummary)) {
                for (SourcePoint p : points) {
                    builder.add(
                            shift == 0
                                    ? p
                                    : new SourcePoint(
                                            p.metric(),
                                            p.labels(),
                                            p.productKey(),
                                            p.timestampMs() + shift,
                                            p.value()));
                }
            }
            expected = builder.build();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        } catch (IOException e) {
            err.println("verify: cannot read the input: " + e.getMessage());
            err.flush();
            return ExitCodes.USAGE;
        }
        if (expected.collapsedSamples() > 0) {
            err.println("verify: note: " + expected.collapsedSamples()
                    + " amplified samples share a series and timestamp with another; each such set counts once");
        }
        VerificationResult result;
        try {
            result = verifier.verifySearchable(expected, wait, searchTimeout, POLL, note -> {
                err.println("verify: " + note);
                err.flush();
            });
        } catch (ReadBackVerifier.Unreachable e) {
            err.println("verify: cannot reach " + (verifier.readsQueryApi() ? "the query API" : "VictoriaMetrics")
                    + ": " + e.getMessage());
            err.flush();
            return ExitCodes.UNREACHABLE;
        } catch (IOException e) {
            err.println("verify: cannot read back: " + e.getMessage());
            err.flush();
            return ExitCodes.UNREACHABLE;
        }
        out.print(result.summary());
        out.flush();
        return result.passed() ? 0 : 1;
    }
}
