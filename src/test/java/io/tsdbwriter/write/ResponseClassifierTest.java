package io.tsdbwriter.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.wire.Output;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** The response policy of DESIGN §6. */
class ResponseClassifierTest {

    /** Wed, 21 Oct 2015 07:28:00 GMT. */
    private static final long DATE_MS = ZonedDateTime.parse(
                    "Wed, 21 Oct 2015 07:28:00 GMT", DateTimeFormatter.RFC_1123_DATE_TIME)
            .toInstant()
            .toEpochMilli();

    private static WriteOutcome.Kind kind(int status) {
        return ResponseClassifier.classify(status, null, "").kind();
    }

    @Test
    void status200IsSuccess() {
        WriteOutcome o = ResponseClassifier.classify(200, null, "");

        assertThat(o.kind()).isEqualTo(WriteOutcome.Kind.SUCCESS);
        assertThat(o.isSuccess()).isTrue();
        assertThat(o.status()).isEqualTo(200);
        assertThat(o.retryAfterMs()).isEqualTo(-1);
    }

    @Test
    void status204IsSuccess() {
        assertThat(kind(204)).isEqualTo(WriteOutcome.Kind.SUCCESS);
    }

    @Test
    void status400IsRejected() {
        assertThat(kind(400)).isEqualTo(WriteOutcome.Kind.REJECTED);
    }

    @Test
    void status413IsRejected() {
        assertThat(kind(413)).isEqualTo(WriteOutcome.Kind.REJECTED);
    }

    @Test
    void status415IsRejected() {
        assertThat(kind(415)).isEqualTo(WriteOutcome.Kind.REJECTED);
    }

    @Test
    void rejectedIgnoresRetryAfter() {
        WriteOutcome o = ResponseClassifier.classify(400, "5", "cannot parse line");

        assertThat(o.retryAfterMs()).isEqualTo(-1);
        assertThat(o.detail()).isEqualTo("cannot parse line");
        assertThat(o.isSuccess()).isFalse();
    }

    @Test
    void status429IsRetryable() {
        assertThat(kind(429)).isEqualTo(WriteOutcome.Kind.RETRYABLE);
    }

    @Test
    void status500IsRetryable() {
        assertThat(kind(500)).isEqualTo(WriteOutcome.Kind.RETRYABLE);
    }

    @Test
    void status502IsRetryable() {
        assertThat(kind(502)).isEqualTo(WriteOutcome.Kind.RETRYABLE);
    }

    @Test
    void status503IsRetryable() {
        assertThat(kind(503)).isEqualTo(WriteOutcome.Kind.RETRYABLE);
    }

    @Test
    void status504IsRetryable() {
        assertThat(kind(504)).isEqualTo(WriteOutcome.Kind.RETRYABLE);
    }

    @Test
    void configurationStatusesAreFaultsNotRefusalsNorRetries() {
        for (int status : new int[] {301, 302, 307, 308, 401, 403, 404, 405, 407}) {
            assertThat(kind(status)).as("%d", status).isEqualTo(WriteOutcome.Kind.FAULT);
            assertThat(ResponseClassifier.classify(Output.REMOTE_WRITE, status, null, "")
                            .kind())
                    .as("remote write %d", status)
                    .isEqualTo(WriteOutcome.Kind.FAULT);
        }
    }

    @Test
    void aRedirectNamesItsLocationWithoutUserInfo() {
        WriteOutcome o = ResponseClassifier.classify(
                Output.IMPORT, 301, null, "", "https://user:secret@vm.example:8428/api/v1/import");

        assertThat(o.kind()).isEqualTo(WriteOutcome.Kind.FAULT);
        assertThat(o.detail())
                .startsWith("redirect to https://vm.example:8428/api/v1/import: writes never follow a redirect")
                .doesNotContain("secret");
        assertThat(o.statusClass()).isEqualTo("3xx");
    }

    @Test
    void aNotFoundNamesTheLikelyCausePerProtocol() {
        assertThat(ResponseClassifier.classify(Output.IMPORT, 404, null, "404 page not found")
                        .detail())
                .isEqualTo(
                        "wrong path prefix? (Not Found: --vm-url is the base /api/v1/import is appended to) (404 page not found)");
        assertThat(ResponseClassifier.classify(Output.REMOTE_WRITE, 404, null, "")
                        .detail())
                .startsWith(
                        "receiver not enabled? wrong path? (Not Found: Prometheus needs --web.enable-remote-write-receiver;");
    }

    @Test
    void refusedConnectionUnknownHostAndTlsFailuresAreFaults() {
        WriteOutcome refused = ResponseClassifier.noResponse(new ConnectException("Connection refused"));
        WriteOutcome dns = ResponseClassifier.noResponse(new UnknownHostException("vm.invalid"));
        WriteOutcome tls = ResponseClassifier.noResponse(new IOException("wrapped", new SSLHandshakeException("PKIX")));

        assertThat(refused.kind()).isEqualTo(WriteOutcome.Kind.FAULT);
        assertThat(refused.statusClass()).isEqualTo("connect");
        assertThat(dns.kind()).isEqualTo(WriteOutcome.Kind.FAULT);
        assertThat(dns.statusClass()).isEqualTo("dns");
        assertThat(tls.kind()).isEqualTo(WriteOutcome.Kind.FAULT);
        assertThat(tls.statusClass()).isEqualTo("tls");
    }

    @Test
    void retryableCarriesRetryAfterSeconds() {
        WriteOutcome o = ResponseClassifier.classify(503, "2", "busy");

        assertThat(o.kind()).isEqualTo(WriteOutcome.Kind.RETRYABLE);
        assertThat(o.status()).isEqualTo(503);
        assertThat(o.retryAfterMs()).isEqualTo(2000);
        assertThat(o.statusTag()).isEqualTo("503");
    }

    @Test
    void retryableWithoutRetryAfterHasMinusOne() {
        assertThat(ResponseClassifier.classify(503, null, "").retryAfterMs()).isEqualTo(-1);
    }

    @Test
    void noResponseIsRetryableWithIoTag() {
        WriteOutcome o = ResponseClassifier.noResponse(new IOException("connection refused"));

        assertThat(o.kind()).isEqualTo(WriteOutcome.Kind.RETRYABLE);
        assertThat(o.status()).isZero();
        assertThat(o.retryAfterMs()).isEqualTo(-1);
        assertThat(o.detail()).isEqualTo("IOException: connection refused");
        assertThat(o.statusTag()).isEqualTo("io");
    }

    @Test
    void noResponseTimeoutHasTimeoutTag() {
        WriteOutcome o =
                ResponseClassifier.noResponse(new IOException("timeout: read", new SocketTimeoutException("read")));

        assertThat(o.statusTag()).isEqualTo("timeout");
    }

    @Test
    void parsesRetryAfterSeconds() {
        assertThat(ResponseClassifier.parseRetryAfterMs("120", 0)).isEqualTo(120_000);
    }

    @Test
    void parsesRetryAfterZero() {
        assertThat(ResponseClassifier.parseRetryAfterMs("0", 0)).isZero();
    }

    @Test
    void parsesRetryAfterWithSurroundingWhitespace() {
        assertThat(ResponseClassifier.parseRetryAfterMs(" 3 ", 0)).isEqualTo(3_000);
    }

    @Test
    void parsesRetryAfterHttpDate() {
        assertThat(ResponseClassifier.parseRetryAfterMs("Wed, 21 Oct 2015 07:28:00 GMT", DATE_MS - 30_000))
                .isEqualTo(30_000);
    }

    @Test
    void pastHttpDateMeansNoWait() {
        assertThat(ResponseClassifier.parseRetryAfterMs("Wed, 21 Oct 2015 07:28:00 GMT", DATE_MS + 5_000))
                .isZero();
    }

    @Test
    void capsRetryAfterSeconds() {
        assertThat(ResponseClassifier.parseRetryAfterMs("3600", 0))
                .isEqualTo(ResponseClassifier.MAX_RETRY_AFTER.toMillis());
        assertThat(ResponseClassifier.MAX_RETRY_AFTER.toMillis()).isEqualTo(300_000);
    }

    @Test
    void capsRetryAfterHttpDate() {
        assertThat(ResponseClassifier.parseRetryAfterMs("Wed, 21 Oct 2015 07:28:00 GMT", DATE_MS - 3_600_000))
                .isEqualTo(300_000);
    }

    @Test
    void capsHugeRetryAfterSecondsWithoutOverflow() {
        assertThat(ResponseClassifier.parseRetryAfterMs("9223372036854775807", 0))
                .isEqualTo(300_000);
    }

    @Test
    void garbageRetryAfterIsMinusOne() {
        assertThat(ResponseClassifier.parseRetryAfterMs("soon", 0)).isEqualTo(-1);
    }

    @Test
    void fractionalRetryAfterIsMinusOne() {
        assertThat(ResponseClassifier.parseRetryAfterMs("1.5", 0)).isEqualTo(-1);
    }

    @Test
    void negativeRetryAfterIsMinusOne() {
        assertThat(ResponseClassifier.parseRetryAfterMs("-5", 0)).isEqualTo(-1);
    }

    @Test
    void nonRfc1123DateIsMinusOne() {
        assertThat(ResponseClassifier.parseRetryAfterMs("2015-10-21T07:28:00Z", 0))
                .isEqualTo(-1);
    }

    @Test
    void absentOrBlankRetryAfterIsMinusOne() {
        assertThat(ResponseClassifier.parseRetryAfterMs(null, 0)).isEqualTo(-1);
        assertThat(ResponseClassifier.parseRetryAfterMs("", 0)).isEqualTo(-1);
        assertThat(ResponseClassifier.parseRetryAfterMs("   ", 0)).isEqualTo(-1);
    }

    @Test
    void remoteWrite2IsWrittenOnlyWhenTheReceiverConfirmsEverySample() {
        assertThat(ResponseClassifier.classifyRemoteWrite2(204, null, "", null, 72, "72")
                        .kind())
                .isEqualTo(WriteOutcome.Kind.SUCCESS);
        WriteOutcome partial = ResponseClassifier.classifyRemoteWrite2(200, null, "", null, 72, "70");
        assertThat(partial.kind()).as("a partial write is a data refusal").isEqualTo(WriteOutcome.Kind.REJECTED);
        assertThat(partial.detail()).contains("wrote 70 of 72 samples");
        assertThat(ResponseClassifier.classifyRemoteWrite2(204, null, "", null, 0, null)
                        .kind())
                .as("an empty request needs no confirmation")
                .isEqualTo(WriteOutcome.Kind.SUCCESS);
    }

    @Test
    void aOneZeroReceiverIsAConfigurationFaultWhetherItAnswers415OrAnUnconfirmed2xx() {
        WriteOutcome unsupported = ResponseClassifier.classifyRemoteWrite2(415, null, "unsupported", null, 72, null);
        assertThat(unsupported.kind()).isEqualTo(WriteOutcome.Kind.FAULT);
        assertThat(unsupported.detail()).contains("--remote-write-version 1").contains("accepted-protobuf-messages");
        WriteOutcome silent = ResponseClassifier.classifyRemoteWrite2(204, null, "", null, 72, null);
        assertThat(silent.kind())
                .as("Prometheus < 2.54 reads a 2.0 body as an empty 1.0 request")
                .isEqualTo(WriteOutcome.Kind.FAULT);
        assertThat(silent.detail())
                .contains("X-Prometheus-Remote-Write-Samples-Written")
                .contains("--remote-write-version 1");
        assertThat(ResponseClassifier.classifyRemoteWrite2(200, null, "", null, 72, "many")
                        .kind())
                .isEqualTo(WriteOutcome.Kind.FAULT);
    }

    @Test
    void remoteWrite2KeepsTheOneZeroRulesForEveryOtherStatus() {
        assertThat(ResponseClassifier.classifyRemoteWrite2(400, null, "bad", null, 72, null)
                        .kind())
                .isEqualTo(WriteOutcome.Kind.REJECTED);
        assertThat(ResponseClassifier.classifyRemoteWrite2(503, null, "", null, 72, null)
                        .kind())
                .isEqualTo(WriteOutcome.Kind.RETRYABLE);
        assertThat(ResponseClassifier.classifyRemoteWrite2(404, null, "", null, 72, null)
                        .kind())
                .isEqualTo(WriteOutcome.Kind.FAULT);
    }

    /**
     * {@code --on-configuration-fault refuse}, the specification's sender: every remote write 4xx but 429 — a data
     * refusal's status or a configuration fault's — is refused as it came; 429, 5xx, redirects and no answer are not.
     */
    @Test
    void underRefuseEveryRemoteWrite4xxBut429IsRefusedAndNothingElse() {
        for (int status : new int[] {400, 401, 403, 404, 405, 407, 409, 413, 415, 422}) {
            WriteOutcome o = ResponseClassifier.classify(Output.REMOTE_WRITE, status, null, "");
            assertThat(o.kind()).as("%d", status).isIn(WriteOutcome.Kind.REJECTED, WriteOutcome.Kind.FAULT);
            assertThat(ConfigurationFaultPolicy.REFUSE.refuses(o))
                    .as("%d refused", status)
                    .isTrue();
            assertThat(ConfigurationFaultPolicy.HOLD.refuses(o))
                    .as("%d under hold", status)
                    .isFalse();
        }
        for (int status : new int[] {301, 307, 429, 500, 503}) {
            WriteOutcome o = ResponseClassifier.classify(Output.REMOTE_WRITE, status, "1", "");
            assertThat(ConfigurationFaultPolicy.REFUSE.refuses(o) && o.kind() != WriteOutcome.Kind.RETRYABLE)
                    .as("%d", status)
                    .isFalse();
        }
        assertThat(ConfigurationFaultPolicy.REFUSE.refuses(
                        ResponseClassifier.noResponse(new ConnectException("refused"))))
                .as("no answer")
                .isFalse();
    }
}
