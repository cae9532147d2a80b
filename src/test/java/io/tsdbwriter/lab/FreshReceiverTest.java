package io.tsdbwriter.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FreshReceiverTest {

    @Test
    void victoriaMetricsStartsWithTheStacksFlagsOnLoopback() {
        assertThat(FreshReceiver.victoriaMetricsCommand(
                        Path.of("/usr/bin/victoria-metrics"), Path.of("/w/cell-01-victoria-metrics"), 8428))
                .containsExactly(
                        "/usr/bin/victoria-metrics",
                        "-storageDataPath=/w/cell-01-victoria-metrics/data",
                        "-httpListenAddr=127.0.0.1:8428",
                        "-retentionPeriod=100y",
                        "-dedup.minScrapeInterval=1ms",
                        "-search.disableCache",
                        "-loggerLevel=ERROR");
    }

    @Test
    void prometheusTakesBothRemoteWriteMessagesOnLoopback() {
        assertThat(FreshReceiver.command(Path.of("/bin/prometheus"), Path.of("/w/p"), 9090))
                .contains(
                        "--web.listen-address=127.0.0.1:9090",
                        "--web.enable-remote-write-receiver",
                        "--web.remote-write-receiver.accepted-protobuf-messages=io.prometheus.write.v2.Request");
        assertThat(FreshReceiver.config()).contains("out_of_order_time_window: 2592000s");
        assertThat(FreshReceiver.config(Duration.ZERO)).doesNotContain("out_of_order_time_window");
    }

    @Test
    void aStartIsRetriedOnlyWhenItsPortWasTaken() {
        assertThat(
                        FreshReceiver.lostThePort(
                                new IOException(
                                        "victoria-metrics exited with code 1: cannot start http server at"
                                                + " http://127.0.0.1:41015/: listen tcp 127.0.0.1:41015: bind: address already in use")))
                .isTrue();
        assertThat(FreshReceiver.lostThePort(new IOException("prometheus exited with code 1: permission denied")))
                .isFalse();
        assertThat(FreshReceiver.lostThePort(new IOException((String) null))).isFalse();
    }

    @Test
    void eachKindNamesItsDirectoryAndItsProgressLines() {
        assertThat(FreshReceiver.Kind.VICTORIA_METRICS.label()).isEqualTo("victoria-metrics");
        assertThat(FreshReceiver.Kind.VICTORIA_METRICS.displayName()).isEqualTo("VictoriaMetrics");
        assertThat(FreshReceiver.Kind.PROMETHEUS.label()).isEqualTo("prometheus");
    }
}
