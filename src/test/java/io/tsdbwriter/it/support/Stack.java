package io.tsdbwriter.it.support;

import io.tsdbwriter.it.Scenario;
import io.tsdbwriter.it.Scenario.Fixture;
import io.tsdbwriter.it.support.Components.KafkaEndpoint;
import io.tsdbwriter.it.support.Components.KafkaOptions;
import io.tsdbwriter.it.support.Components.PrometheusEndpoint;
import io.tsdbwriter.it.support.Components.PrometheusVersion;
import io.tsdbwriter.it.support.Components.VmEndpoint;
import io.tsdbwriter.it.support.Components.VmVersion;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.verify.ExpectedSamples;
import io.tsdbwriter.verify.VerificationResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The one fixture of the integration tests: starts the real components a test class declares, gives the helpers every
 * scenario repeats, and owns the cleanup of everything started through it.
 *
 * <pre>
 * &#64;RegisterExtension
 * static final Stack stack = Stack.withKafka().withVm();          // one broker and one VictoriaMetrics for the class
 * static final Stack stack = Stack.withKafka().withVmPerTest();   // one broker; a fresh VictoriaMetrics for every test
 * static final Stack stack = Stack.withKafka();                   // a broker; the tests start what else they need
 * </pre>
 *
 * <p><b>Why an extension registered on a static field</b> (not an annotation, not a base class): what the classes
 * declare differs in ways only code can say — a SASL_SSL listener whose key store the class makes in the work dir, a
 * VictoriaMetrics per test, extra servers started mid-scenario — which annotation constants cannot carry; the static
 * field is a typed handle to the running components and the helpers, with no parameter-resolution plumbing in every
 * signature; and a class keeps its own hierarchy (composition, not inheritance). Static registration makes it a
 * class-level extension: components start in {@code beforeAll} (before the class's {@code @BeforeAll} methods, which
 * may use them) and stop in {@code afterAll}; the per-test parts start in {@code beforeEach} and stop in
 * {@code afterEach}, after the class's {@code @AfterEach} methods.
 *
 * <p><b>Lifetimes.</b> Once per class: the work dir, the broker ({@code <work>/stack/kafka}) and, with {@link #withVm},
 * the class's VictoriaMetrics ({@code <work>/stack/vm-data}); each on free loopback ports. No class shared components
 * with another before this fixture, so none does now: each class gets its own (one failsafe JVM runs the classes one
 * after another). Per test: with {@link #withVmPerTest}, a fresh VictoriaMetrics ({@code <work>/vm-<test method>}), which
 * {@link #vm()} returns during that test.
 *
 * <p><b>Cleanup it owns.</b> Every writer process started through {@link #writer} and every component started or
 * handed over through {@link #startVm}, {@link #startPrometheus}, {@link #startKafka}, {@link #own} belongs to the
 * scope it was started in — the running test, or the class when started outside a test ({@code @BeforeAll}). When
 * the scope ends, pass or fail (an assertion, an exception, a {@code @Timeout} interrupt), its writers are killed
 * first ({@code destroyForcibly} and wait, descendants too; one still running is named on stderr), then its other
 * resources are closed in reverse order; then the per-test VictoriaMetrics, and after the class the broker and the
 * class's VictoriaMetrics. A test that stops its writers itself ({@code sigterm}, {@code waitFor}) changes nothing:
 * closing an exited process is a no-op. The work dir is a temp dir deleted after the class unless a test of it
 * failed (then kept for the logs, and its path printed) or {@link #keepWorkUnder} names a place.
 *
 * <p><b>Where components come from</b>: {@link Components#choose()}, decided once per JVM: Docker containers
 * ({@link ContainerComponents}) where a Docker engine answers and the local images exist or can be built, else local
 * child processes ({@link LocalComponents}); {@code -Dtsdbwriter.it.components=local|containers} forces either (with
 * {@code containers}, every IT fails at its start when no engine answers). The tests see only the endpoint
 * interfaces of {@link Components}.
 *
 * <p>Not thread-safe for configuration (done in a static initializer); the running helpers may be called from any
 * thread of a test, the ownership lists are synchronized.
 */
public final class Stack implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

    /** What a class declares. */
    private record Config(
            Components components,
            Function<Path, KafkaOptions> kafka,
            boolean classVm,
            boolean vmPerTest,
            List<String> vmFlags,
            Path keepUnder,
            List<VmVersion> required) {}

    private final Config config;

    private volatile Path work;
    private volatile boolean tempWork;
    private volatile boolean failed;
    private volatile KafkaEndpoint kafka;
    private volatile VmEndpoint classVm;
    private volatile VmEndpoint testVm;
    private final Scope classScope = new Scope("class");
    private volatile Scope testScope;

    private Stack(Config config) {
        this.config = config;
    }

    // ------------------------------------------------------------------------------------------------ declaration

    /** A Kafka broker (PLAINTEXT) for the class. */
    public static Stack withKafka() {
        return withKafka(work -> KafkaOptions.PLAIN);
    }

    /**
     * A Kafka broker for the class with {@code options}, computed from the work dir at start (e.g. a key store made
     * there for a SASL_SSL listener).
     */
    public static Stack withKafka(Function<Path, KafkaOptions> options) {
        return new Stack(new Config(Components.choose(), options, false, false, List.of(), null, List.of()));
    }

    /** Plus one VictoriaMetrics ({@link VmVersion#CONFIGURED}) for the class, with {@code flags}. */
    public Stack withVm(String... flags) {
        Config c = config;
        return new Stack(
                new Config(c.components(), c.kafka(), true, false, List.of(flags), c.keepUnder(), c.required()));
    }

    /**
     * Plus a fresh VictoriaMetrics ({@link VmVersion#CONFIGURED}) for every test (none for the class), with
     * {@code flags}: {@link #vm()} during the test.
     */
    public Stack withVmPerTest(String... flags) {
        Config c = config;
        return new Stack(
                new Config(c.components(), c.kafka(), false, true, List.of(flags), c.keepUnder(), c.required()));
    }

    /** The work dir is {@code <dir>/<class>-<millis>}, kept after the run (instead of a temp dir). */
    public Stack keepWorkUnder(Path dir) {
        Config c = config;
        return new Stack(
                new Config(c.components(), c.kafka(), c.classVm(), c.vmPerTest(), c.vmFlags(), dir, c.required()));
    }

    /** The whole class is skipped (an assumption, before anything starts) when {@code version} cannot be started here. */
    public Stack assuming(VmVersion version) {
        Config c = config;
        List<VmVersion> required = new ArrayList<>(c.required());
        required.add(version);
        return new Stack(new Config(
                c.components(),
                c.kafka(),
                c.classVm(),
                c.vmPerTest(),
                c.vmFlags(),
                c.keepUnder(),
                List.copyOf(required)));
    }

    // ------------------------------------------------------------------------------------------------ lifecycle

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        config.required().forEach(this::assumeAvailable);
        String name = context.getRequiredTestClass().getSimpleName();
        if (config.keepUnder() == null) {
            work = Files.createTempDirectory("tsdbwriter-it-" + name + "-").toAbsolutePath();
            tempWork = true;
        } else {
            work = Files.createDirectories(
                    config.keepUnder().toAbsolutePath().resolve(name + "-" + System.currentTimeMillis()));
        }
        failed = false;
        try {
            if (config.kafka() != null) {
                kafka = classScope.own(config.components()
                        .startKafka(work.resolve("stack"), config.kafka().apply(work)));
            }
            if (config.classVm()) {
                classVm = classScope.own(config.components()
                        .startVictoriaMetrics(work.resolve("stack"), VmVersion.CONFIGURED, config.vmFlags()));
            }
        } catch (RuntimeException | Error e) {
            failed = true;
            try {
                classScope.close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        String testName = context.getRequiredTestMethod().getName();
        Scope scope = new Scope(testName);
        testScope = scope;
        if (config.vmPerTest()) {
            testVm = scope.own(config.components()
                    .startVictoriaMetrics(freshDir("vm-" + testName), VmVersion.CONFIGURED, config.vmFlags()));
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (context.getExecutionException().isPresent()) {
            failed = true;
        }
        Scope scope = testScope;
        testScope = null;
        testVm = null;
        if (scope != null) {
            scope.close();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (context.getExecutionException().isPresent()) {
            failed = true;
        }
        try {
            classScope.close();
        } finally {
            kafka = null;
            classVm = null;
            if (tempWork && work != null) {
                if (failed) {
                    System.err.println(
                            "[Stack] " + context.getRequiredTestClass().getSimpleName() + " failed: its work dir "
                                    + work + " is kept for the logs");
                } else {
                    deleteQuietly(work);
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ components

    /** The work dir of the class (logs, summaries, data). */
    public Path work() {
        return requireStarted(work, "work dir");
    }

    /** {@code work().resolve(name)}. */
    public Path path(String name) {
        return work().resolve(name);
    }

    /** The class's broker. */
    public KafkaEndpoint kafka() {
        return requireStarted(kafka, "Kafka broker (Stack.withKafka())");
    }

    /** The class's broker's PLAINTEXT {@code host:port}. */
    public String bootstrapServers() {
        return kafka().bootstrapServers();
    }

    /** The running test's VictoriaMetrics ({@link #withVmPerTest}), else the class's ({@link #withVm}). */
    public VmEndpoint vm() {
        VmEndpoint t = testVm;
        return requireStarted(t != null ? t : classVm, "VictoriaMetrics (Stack...withVm() or withVmPerTest())");
    }

    /** {@code vm().url()}. */
    public String vmUrl() {
        return vm().url();
    }

    /** Starts another VictoriaMetrics ({@link VmVersion#CONFIGURED}) in {@code <work>/<name>}, owned by the current scope. */
    public VmEndpoint startVm(String name, String... flags) {
        return startVm(name, VmVersion.CONFIGURED, flags);
    }

    /** Starts another VictoriaMetrics of {@code version} in {@code <work>/<name>}, owned by the current scope. */
    public VmEndpoint startVm(String name, VmVersion version, String... flags) {
        return scope().own(config.components().startVictoriaMetrics(freshDir(name), version, List.of(flags)));
    }

    /** Starts a Prometheus 2.42 remote write receiver (out-of-order window 30 days) in {@code <work>/<name>}, owned. */
    public PrometheusEndpoint startPrometheus(String name) {
        return startPrometheus(name, PrometheusVersion.DEBIAN, Duration.ofDays(30), true);
    }

    /** Starts a Prometheus in {@code <work>/<name>}, owned by the current scope (see {@link Components#startPrometheus}). */
    public PrometheusEndpoint startPrometheus(
            String name,
            PrometheusVersion version,
            Duration outOfOrderWindow,
            boolean remoteWriteReceiver,
            String... acceptedMessages) {
        return scope().own(config.components()
                .startPrometheus(freshDir(name), version, outOfOrderWindow, remoteWriteReceiver, acceptedMessages));
    }

    /** Starts another Kafka broker in {@code <work>/<name>}, owned by the current scope. */
    public KafkaEndpoint startKafka(String name, KafkaOptions options) {
        return scope().own(config.components().startKafka(freshDir(name), options));
    }

    /** Closes {@code resource} when the current scope (the test, or the class outside a test) ends. */
    public <T extends AutoCloseable> T own(T resource) {
        return scope().own(resource);
    }

    /** Skips the test (an assumption) when {@code version} cannot be started here. */
    public void assumeAvailable(VmVersion version) {
        String why = config.components().unavailable(version);
        Assumptions.assumeTrue(why == null, why);
    }

    /** Skips the test (an assumption) when {@code version} cannot be started here. */
    public void assumeAvailable(PrometheusVersion version) {
        String why = config.components().unavailable(version);
        Assumptions.assumeTrue(why == null, why);
    }

    // ------------------------------------------------------------------------------------------------ the writer

    /** Starts the writer jar with {@code args}, output to {@code <work>/<name>.log}; killed when the scope ends. */
    public WriterProcess writer(String name, List<String> args) {
        return writer(name, List.of(), args);
    }

    /** As {@link #writer(String, List)}, with JVM arguments. */
    public WriterProcess writer(String name, List<String> jvmArgs, List<String> args) {
        Scope scope = scope();
        WriterProcess w = WriterProcess.start(work().resolve(name + ".log"), jvmArgs, args);
        scope.writer(name, w);
        return w;
    }

    /** Starts the remote write job {@code run}, output to {@code <work>/<name>.log}; killed when the scope ends. */
    public WriterProcess writer(String name, RemoteWriteRun run) {
        return writer(name, run.args(this));
    }

    /**
     * {@code run} against the class's broker and {@code vmUrl}, with the flags every scenario passes
     * ({@link Scenario#runArgs}: no metrics port, 5 s reports; {@link WriterProcess} adds the ITs' durability window).
     */
    public List<String> runArgs(String vmUrl, String topic, String group, int m, int n, int p, String... more) {
        return Scenario.runArgs(bootstrapServers(), vmUrl, topic, group, m, n, p, more);
    }

    /** {@link #runArgs(String, String, String, int, int, int, String...)} against {@link #vm()}. */
    public List<String> runArgs(String topic, String group, int m, int n, int p, String... more) {
        return runArgs(vmUrl(), topic, group, m, n, p, more);
    }

    // ------------------------------------------------------------------------------------------------ Kafka

    /** Creates a topic on the class's broker (replication factor 1), waiting for its leaders. */
    public String createTopic(String name, int partitions) {
        kafka().createTopic(name, partitions);
        return name;
    }

    /** As {@link #createTopic(String, int)}, with topic configs. */
    public String createTopic(String name, int partitions, Map<String, String> configs) {
        kafka().createTopic(name, partitions, configs);
        return name;
    }

    /** A fresh topic {@code <name>-<n>} holding {@code points}, one a record, record i in partition i % partitions. */
    public Fixture realInput(String name, int partitions, List<SourcePoint> points) {
        return Scenario.realInput(kafka(), name, partitions, points);
    }

    /** {@link Scenario#produce(String, String, int, List, int)} to the class's broker; the record count. */
    public int produce(String topic, int partitions, List<SourcePoint> points, int pointsPerRecord) {
        return Scenario.produce(bootstrapServers(), topic, partitions, points, pointsPerRecord);
    }

    /** {@link Scenario#produceRaw}: values in order, record i to partition i % partitions, checked. */
    public void produceRaw(String topic, int partitions, List<byte[]> values) {
        Scenario.produceRaw(bootstrapServers(), topic, partitions, values);
    }

    /** {@link Scenario#produce(String, List)}: records in order, every send checked. */
    public void produce(List<ProducerRecord<byte[], byte[]>> records) {
        Scenario.produce(bootstrapServers(), records);
    }

    /** Every record of {@code topic} from its beginning to its end offsets (within 20 s). */
    public List<ConsumerRecord<byte[], byte[]>> readAll(String topic) {
        return Scenario.readAll(bootstrapServers(), topic, 0);
    }

    /** Log end offsets of every partition of {@code topic}. */
    public Map<TopicPartition, Long> endOffsets(String topic) throws Exception {
        return Scenario.endOffsets(bootstrapServers(), topic);
    }

    /** Offsets {@code group} committed for {@code topic} (absent partitions left out). */
    public Map<TopicPartition, Long> committedOffsets(String group, String topic) throws Exception {
        return Scenario.committedOffsets(bootstrapServers(), group, topic);
    }

    /** The fixture's group committed every partition of its topic at its end offset. */
    public void assertCommittedAtEnd(Fixture f) throws Exception {
        Scenario.assertCommittedAtEnd(bootstrapServers(), f);
    }

    // ------------------------------------------------------------------------------------------------ read-back

    /** {@link Scenario#assertExactReadBack}: force_flush, export and exact comparison against {@link #vm()}. */
    public VerificationResult assertExactReadBack(ExpectedSamples expected) throws IOException {
        return Scenario.assertExactReadBack(vmUrl(), expected);
    }

    /** {@link Scenario#assertPresent}: everything of {@code expected} is in {@link #vm()}. */
    public void assertPresent(ExpectedSamples expected) throws IOException {
        Scenario.assertPresent(vmUrl(), expected);
    }

    // ------------------------------------------------------------------------------------------------ internals

    private Scope scope() {
        Scope t = testScope;
        return t != null ? t : classScope;
    }

    /** {@code <work>/<name>}, or {@code <work>/<name>-2}, -3 ... when taken (parameterized tests repeat names). */
    private Path freshDir(String name) {
        Path dir = work().resolve(name);
        for (int i = 2; Files.exists(dir); i++) {
            dir = work().resolve(name + "-" + i);
        }
        return dir;
    }

    private static <T> T requireStarted(T value, String what) {
        if (value == null) {
            throw new IllegalStateException("no " + what + ": not declared, or used outside the class's run");
        }
        return value;
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // best effort, as a temp dir
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // best effort
        }
    }

    /** What one test (or the class) started: writers, killed first at the end, then the rest in reverse order. */
    private static final class Scope {
        private final String name;
        private final List<WriterProcess> writers = new ArrayList<>();
        private final List<String> writerNames = new ArrayList<>();
        private final List<AutoCloseable> owned = new ArrayList<>();

        Scope(String name) {
            this.name = name;
        }

        synchronized <T extends AutoCloseable> T own(T resource) {
            owned.add(resource);
            return resource;
        }

        synchronized void writer(String writerName, WriterProcess w) {
            writers.add(w);
            writerNames.add(writerName);
        }

        /** Kills the writers (waiting for each), then closes the rest, newest first; rethrows the first failure. */
        void close() {
            List<WriterProcess> ws;
            List<String> names;
            List<AutoCloseable> rest;
            synchronized (this) {
                ws = List.copyOf(writers);
                names = List.copyOf(writerNames);
                rest = new ArrayList<>(owned);
                writers.clear();
                writerNames.clear();
                owned.clear();
            }
            RuntimeException failure = null;
            for (int i = ws.size() - 1; i >= 0; i--) {
                WriterProcess w = ws.get(i);
                try {
                    if (w.isAlive()) {
                        System.err.println("[Stack] " + name + ": writer " + names.get(i) + " (pid " + w.pid()
                                + ") still running: kill -9");
                    }
                    w.close();
                } catch (RuntimeException e) {
                    failure = add(failure, e);
                }
            }
            for (int i = rest.size() - 1; i >= 0; i--) {
                try {
                    rest.get(i).close();
                } catch (Exception e) {
                    failure = add(failure, e);
                }
            }
            if (failure != null) {
                throw failure;
            }
        }

        private RuntimeException add(RuntimeException failure, Exception e) {
            if (failure == null) {
                return new IllegalStateException("cleaning up after " + name + " failed", e);
            }
            failure.addSuppressed(e);
            return failure;
        }
    }
}
