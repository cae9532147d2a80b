package io.tsdbwriter.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.it.support.Components.VmEndpoint;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The {@link Stack} fixture's own contract: what a test started through it is gone when the test ends — a writer still
 * running is killed, the test's VictoriaMetrics is stopped — and the next test gets a fresh VictoriaMetrics.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class StackIT {

    @RegisterExtension
    static final Stack stack = Stack.withKafka().withVmPerTest();

    static long writerPid;
    static String firstVmUrl;

    @Test
    @Order(1)
    void aTestLeavesAWriterRunning() throws Exception {
        String topic = stack.createTopic("left-running", 1);
        // a service (no --stop-at-end): it would run until killed
        WriterProcess w = stack.writer("left-running", stack.runArgs(topic, "g-left", 1, 1, 1));
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!w.output().contains("tsdb-writer run:") && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(w.isAlive()).as(w.output()).isTrue();
        writerPid = w.pid();
        firstVmUrl = stack.vmUrl();
    }

    @Test
    @Order(2)
    void theNextFindsItKilledAndAFreshVictoriaMetrics() {
        assertThat(writerPid).as("test 1 ran").isPositive();
        assertThat(ProcessHandle.of(writerPid).map(ProcessHandle::isAlive).orElse(false))
                .as("writer of test 1")
                .isFalse();
        assertThat(answers(firstVmUrl)).as("VictoriaMetrics of test 1 stopped").isFalse();
        VmEndpoint vm = stack.vm();
        assertThat(vm.url()).isNotEqualTo(firstVmUrl);
        assertThat(answers(vm.url())).isTrue();
        assertThat(stack.path("vm-aTestLeavesAWriterRunning")).isDirectory();
        assertThat(List.of(stack.path("left-running.log")))
                .allSatisfy(p -> assertThat(p).isRegularFile());
    }

    private static boolean answers(String url) {
        URI uri = URI.create(url);
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
