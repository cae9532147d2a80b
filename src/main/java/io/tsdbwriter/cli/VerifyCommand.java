package io.tsdbwriter.cli;

import io.tsdbwriter.verify.ExpectedSamples;
import io.tsdbwriter.produce.SourcePoint;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.nio.file.Path;
import io.tsdbwriter.verify.ReadBackVerifier;
import io.tsdbwriter.verify.VerificationResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import io.tsdbwriter.write.http.HttpClientSecurity;
import io.tsdbwriter.write.http.SafeUrl;
import java.util.List;

/**
 * {@code tsdb-writer verify}: checks that VictoriaMetrics holds exactly the samples the writer should have made of
 * the source points — given by the same flags as {@code produce} — amplified M × N (DESIGN §3). The files' timestamps
 * are moved to the present as {@code produce} moves them: give both the same {@code --now}, or {@code --keep-timestamps}.
 *
 * <p>Prints a summary ({@code expected samples}, {@code found}, {@code missing}, {@code unexpected series},
 * {@code value mismatches}, … with up to 5 examples of each problem) to stdout. Exit codes: 0 VictoriaMetrics
 * holds exactly the expected samples; 1 it does not, or it (or the input) could not be read; 2 bad flags.
 *
 * <p>Not thread-safe: picocli makes one instance per execution. For the check as a library call see
 * {@link ReadBackVerifier}.
 */
@Command(name = "verify", mixinStandardHelpOptions = true, versionProvider = Main.Version.class, sortOptions = false, usageHelpAutoWidth = true,
        description = {"Read back VictoriaMetrics and compare it sample by sample with the source points (same flags as produce)",
                "amplified M x N: every expected sample present with its value, no unexpected series, no extra samples.",
                "Calls /internal/force_flush, then streams /api/v1/export?match[]=<match>."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:VictoriaMetrics holds exactly the expected samples", "1:it does not, or it could not be read",
                "2:invalid flags"})
public final class VerifyCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    SourceOptions source = new SourceOptions();

    @Option(names = "--time-multiplier", defaultValue = "1", paramLabel = "M",
            description = "Samples per source point in time, t + i*source-interval/M for i in [0,M) (default: ${DEFAULT-VALUE})")
    int timeMultiplier;

    @Option(names = "--instance-multiplier", defaultValue = "1", paramLabel = "N",
            description = "Instance variants per series: instanceNo, instanceNo-1 … instanceNo-(N-1) (default: ${DEFAULT-VALUE})")
    int instanceMultiplier;

    @Option(names = "--vm-url", defaultValue = ReadBackVerifier.DEFAULT_VM_URL, paramLabel = "URL",
            description = {"VictoriaMetrics single-node base URL; user:password@ is basic auth.", "Default: " + ReadBackVerifier.DEFAULT_VM_URL})
    String vmUrl;

    @Mixin
    VmHttpOptions vmHttp = new VmHttpOptions();

    @Option(names = "--match", defaultValue = ReadBackVerifier.ALL_SERIES, paramLabel = "SELECTOR",
            description = "Series selector to read back; any other series is ignored (default: every series, ${DEFAULT-VALUE})")
    String match;

    @Option(names = "--value-tolerance", defaultValue = "1e-12", paramLabel = "REL",
            description = {"Relative value tolerance; VictoriaMetrics stores values with 12-15 significant digits, so 0 (bit-exact)",
                    "fails doubles like 41.178000000000004 (default: ${DEFAULT-VALUE})"})
    double valueTolerance;

    @Option(names = "--wait", defaultValue = "0s", converter = Converters.DurationConverter.class, paramLabel = "DURATION",
            description = "Retry every 2 s until the check passes or this time has passed, for a writer still catching up (default: ${DEFAULT-VALUE})")
    Duration wait;

    @Option(names = "--replay-summary", paramLabel = "FILE",
            description = "The --summary-json of a replay (run --rebase-time/--loop): the expected samples are the input's, shifted "
                    + "as each complete pass was (its shift_ms), so the check follows --rebase-time and --loop; a pass cut short by --duration or a "
                    + "signal wrote samples the check does not expect (verify a replay that ended after its last pass). Churned series "
                    + "(--churn-interval) are not expected. The files must give the timestamps the topic holds: --keep-timestamps for "
                    + "real traffic's scrapes, the --now of produce for what it sent")
    Path replaySummary;

    /** The shifts of the complete passes of a replay's summary; {0} without one. */
    static List<Long> passShifts(Path summary) throws IOException {
        if (summary == null) {
            return List.of(0L);
        }
        JsonNode passes = new ObjectMapper().readTree(summary.toFile()).get("passes");
        if (passes == null || !passes.isArray()) {
            throw new IllegalArgumentException("--replay-summary " + summary + " holds no passes: give the --summary-json of a replay");
        }
        List<Long> shifts = new ArrayList<>();
        for (JsonNode p : passes) {
            if (p.path("complete").asBoolean(false)) {
                shifts.add(p.path("shift_ms").asLong());
            }
        }
        return shifts;
    }

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!(valueTolerance >= 0 && valueTolerance < 1)) {
            throw new ParameterException(spec.commandLine(), "--value-tolerance must be in [0, 1), got " + valueTolerance);
        }
        if (wait.isNegative()) {
            throw new ParameterException(spec.commandLine(), "--wait must not be negative");
        }
        ReadBackVerifier verifier;
        ExpectedSamples expected;
        try {
            okhttp3.OkHttpClient client = HttpClientSecurity.of(vmHttp.toConfig(), List.of(vmUrl))
                    .configure(ReadBackVerifier.defaultClient().newBuilder()).build();
            verifier = new ReadBackVerifier(SafeUrl.parse(vmUrl).url(), match, valueTolerance, client);
            ExpectedSamples.Builder builder = ExpectedSamples.builder(timeMultiplier, instanceMultiplier, source.sourceInterval.toMillis());
            SourceOptions.Source src = source.open(System.currentTimeMillis());
            err.println("verify: " + src.description());
            if (src.timestamps() != null) {
                err.println("verify: " + src.timestamps() + " (give the --now produce was given, or it printed)");
            }
            err.flush();
            Iterable<SourcePoint> points = src.points();
            for (long shift : passShifts(replaySummary)) {
                for (SourcePoint p : points) {
                    builder.add(shift == 0 ? p : new SourcePoint(p.metric(), p.labels(), p.productKey(), p.timestampMs() + shift, p.value()));
                }
            }
            expected = builder.build();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        } catch (IOException e) {
            err.println("verify: cannot read the input: " + e.getMessage());
            err.flush();
            return 1;
        }
        if (expected.collapsedSamples() > 0) {
            err.println("verify: note: " + expected.collapsedSamples()
                    + " amplified samples share a series and timestamp with another; each such set counts once");
        }
        VerificationResult result;
        try {
            result = wait.isZero() ? verifier.verify(expected) : verifier.verifyWithin(expected, wait, Duration.ofSeconds(2));
        } catch (IOException e) {
            err.println("verify: cannot read back from " + verifier.vmUrl() + ": " + e.getMessage());
            err.flush();
            return 1;
        }
        out.print(result.summary());
        out.flush();
        return result.passed() ? 0 : 1;
    }
}
