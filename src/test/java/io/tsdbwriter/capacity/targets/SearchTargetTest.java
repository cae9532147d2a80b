package io.tsdbwriter.capacity.targets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tsdbwriter.wire.Output;
import io.tsdbwriter.write.RemoteWriteVersion;
import io.tsdbwriter.write.http.SafeUrl;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code capacity --target NAME=URL[,option…]}: what a value means, and every refusal as one line without credentials. */
class SearchTargetTest {

    private static void refused(String value, String fragment) {
        assertThatThrownBy(() -> SearchTarget.parse(value))
                .isInstanceOf(IllegalArgumentException.class)
                .satisfies(e -> assertThat(e.getMessage())
                        .startsWith("--target ")
                        .contains(fragment)
                        .doesNotContain("\n"));
    }

    @Test
    void aTargetWithoutAnEqualsSignIsRefusedInOneLine() {
        refused("http://vm:8428", "expected NAME=URL[,option…], found no '='");
    }

    @Test
    void anEmptyOrIllFormedNameIsRefused() {
        refused("=http://vm:8428", "the NAME before '=' is empty");
        refused("my vm=http://vm:8428", "must match [A-Za-z0-9_.-]+");
        refused("a/b=http://vm:8428", "must match [A-Za-z0-9_.-]+");
        refused("..=http://vm:8428", "neither . nor ..");
    }

    @Test
    void aNameGivenTwiceIsRefused() {
        assertThatThrownBy(() -> SearchTarget.parseAll(List.of("vm=http://a:8428", "vm=http://b:8428")))
                .hasMessage("--target: the NAME 'vm' is given twice (each target needs its own)");
    }

    @Test
    void aMissingOrBadUrlIsRefused() {
        refused("vm=", "no URL after 'vm='");
        refused("vm=vm:8428", "expected http(s)://host[:port][/path]");
        refused("prom=http://prom:9090/api/v1/write", "this one is a remote write URL: add ,output=remote-write");
        refused("vm=http://vm:8428,metrics-url=vm:8428/metrics", "metrics-url: ");
    }

    @Test
    void unknownRepeatedOrMalformedOptionsAreRefused() {
        refused(
                "vm=http://vm:8428,tenant=1",
                "unknown option 'tenant' (known: output, remote-write-version, metrics-url, query-url, tsdb-cpus, writer-cpus)");
        refused("vm=http://vm:8428,output=import,output=import", "option 'output' is given twice");
        refused("vm=http://vm:8428,import", "option 'import' is not KEY=VALUE");
        refused("vm=http://vm:8428,output=otlp", "output must be import or remote-write, got 'otlp'");
    }

    @Test
    void aBadVersionIsRefused() {
        refused(
                "p=http://p:9090/api/v1/write,output=remote-write,remote-write-version=3",
                "remote-write-version must be 1 or 2, got '3'");
        refused("vm=http://vm:8428,remote-write-version=2", "remote-write-version needs output=remote-write");
    }

    @Test
    void anImportTargetDefaultsToItsHostsMetricsAndNoProtocolFlags() {
        SearchTarget t = SearchTarget.parse("vm=http://vminsert:8480/insert/0/prometheus");
        assertThat(t.name()).isEqualTo("vm");
        assertThat(t.output()).isEqualTo(Output.IMPORT);
        assertThat(t.metricsUrl()).isEqualTo("http://vminsert:8480/metrics");
        assertThat(t.searchUrl()).isEqualTo("http://vminsert:8480/insert/0/prometheus");
        assertThat(t.writerArgs()).isEmpty();
        assertThat(t.protocol()).isEqualTo("import");
    }

    @Test
    void aRemoteWriteTargetWritesItsWholeUrlAndProbesItsHost() {
        SearchTarget t = SearchTarget.parse(
                "thanos=http://127.0.0.1:19291/api/v1/receive,output=remote-write,remote-write-version=2,"
                        + "metrics-url=http://127.0.0.1:10902/metrics");
        assertThat(t.remoteWriteVersion()).isEqualTo(RemoteWriteVersion.V2);
        assertThat(t.metricsUrl()).isEqualTo("http://127.0.0.1:10902/metrics");
        assertThat(t.searchUrl()).isEqualTo("http://127.0.0.1:19291");
        assertThat(t.writerArgs())
                .containsExactly(
                        "--output",
                        "remote-write",
                        "--remote-write-url",
                        "http://127.0.0.1:19291/api/v1/receive",
                        "--remote-write-version",
                        "2");
        assertThat(t.protocol()).isEqualTo("remote write 2.0");
        assertThat(SearchTarget.parse("p=http://p:9090/api/v1/write,output=remote-write")
                        .remoteWriteVersion())
                .isEqualTo(RemoteWriteVersion.V1);
        assertThat(SearchTarget.parse("p=http://p:9090/api/v1/write,output=remote-write")
                        .metricsUrl())
                .isEqualTo("http://p:9090/metrics");
    }

    @Test
    void aQueryUrlIsKeptAsGivenAndShownWithoutUserinfo() {
        SearchTarget t = SearchTarget.parse(
                "prom=http://p:9090/api/v1/write,output=remote-write,query-url=http://u:SECRET@p:9090");
        assertThat(t.queryUrl()).isEqualTo("http://u:SECRET@p:9090");
        assertThat(t.toString()).endsWith(",query-url=http://p:9090").doesNotContain("SECRET");
        assertThat(SearchTarget.parse("vm=http://vm:8428").queryUrl()).isNull();
        assertThat(SearchTarget.parse("vm=http://vm:8428").toString()).doesNotContain("query-url");
        refused("prom=http://p:9090/api/v1/write,output=remote-write,query-url=ftp://p", "query-url: ");
        refused("vm=http://vm:8428,query-url=http://a,query-url=http://b", "option 'query-url' is given twice");
    }

    @Test
    void theReadBackCountsOnTheQueryUrlElseOnAnImportTargetsOwnUrlElseNowhere() {
        assertThat(SearchTarget.parse(
                                "prom=http://p:9090/api/v1/write,output=remote-write,query-url=http://u:S@p:9090/api/v1/query_range")
                        .readBackUrl())
                .isEqualTo("http://u:S@p:9090");
        assertThat(SearchTarget.parse("vm=http://vm:8428/,query-url=http://vmselect:8481/select/0/prometheus/")
                        .readBackUrl())
                .isEqualTo("http://vmselect:8481/select/0/prometheus");
        assertThat(SearchTarget.parse("vm=http://vm:8428").readBackUrl()).isEqualTo("http://vm:8428");
        assertThat(SearchTarget.parse("thanos=http://t:19291/api/v1/receive,output=remote-write")
                        .readBackUrl())
                .isNull();
    }

    @Test
    void credentialsAreKeptForTheWritersAndNeverShown() {
        SearchTarget t = SearchTarget.parse("p=https://w:SECRET1@p:9090/api/v1/write,output=remote-write,"
                + "metrics-url=https://m:SECRET2@p:9090/metrics");
        assertThat(t.url()).contains("SECRET1");
        assertThat(t.searchUrl()).isEqualTo("https://w:SECRET1@p:9090");
        assertThat(t.toString()).doesNotContain("SECRET").contains("p=https://p:9090/api/v1/write");
        assertThat(t.shownUrl()).isEqualTo("https://p:9090/api/v1/write");
        assertThatThrownBy(() -> SearchTarget.parse(
                        "p=https://w:SECRET1@p:9090/api/v1/write,metrics-url=http://m:SECRET2@x,nope=1"))
                .satisfies(e ->
                        assertThat(e.getMessage()).doesNotContain("SECRET").contains("p=https://p:9090/api/v1/write"));
        assertThat(SafeUrl.redactEach("a=http://u:SECRET1@h,metrics-url=http://u:SECRET2@m/metrics"))
                .isEqualTo("a=http://h,metrics-url=http://m/metrics");
    }
}
