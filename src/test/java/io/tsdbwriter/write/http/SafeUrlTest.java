package io.tsdbwriter.write.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SafeUrlTest {

    @Test
    void userinfoIsTakenOut() {
        SafeUrl u = SafeUrl.parse("http://writer:p%40ss:w0rd@vm.example:8428/insert/0/prometheus");
        assertThat(u.url()).isEqualTo("http://vm.example:8428/insert/0/prometheus");
        assertThat(u.username()).isEqualTo("writer");
        assertThat(u.password()).isEqualTo("p@ss:w0rd");
        assertThat(u.toString()).doesNotContain("w0rd");
    }

    @Test
    void urlsWithoutUserinfoStayAsGiven() {
        SafeUrl u = SafeUrl.parse("https://vm:8428");
        assertThat(u.url()).isEqualTo("https://vm:8428");
        assertThat(u.hasCredentials()).isFalse();
        assertThat(SafeUrl.redact("http://h/a@b")).isEqualTo("http://h/a@b");
        assertThat(SafeUrl.redact("not a url")).isEqualTo("not a url");
    }

    @Test
    void redactArgsHidesUrlsAndSecretValues() {
        List<String> r = SafeUrl.redactArgs(List.of(
                "run",
                "--vm-url",
                "http://u:SECRET1@h:1",
                "--kafka-property",
                "sasl.jaas.config=SECRET2",
                "--vm-header=Authorization:SECRET3",
                "--consumer-property",
                "x"));
        assertThat(String.join(" ", r))
                .doesNotContain("SECRET")
                .contains("http://h:1")
                .contains("sasl.jaas.config=***")
                .contains("--vm-header=Authorization:***");
    }

    @Test
    void redactArgsHidesSecretsPassedToTheWritersThroughWriterArg() {
        List<String> r = SafeUrl.redactArgs(List.of(
                "capacity",
                "--writer-arg=--kafka-property=sasl.jaas.config=SECRET1",
                "--writer-arg",
                "--vm-header",
                "--writer-arg",
                "Authorization: Bearer SECRET2",
                "--writer-arg=--vm-header=X-Token:SECRET3",
                "--writer-arg",
                "--kafka-property=ssl.key.password=SECRET4",
                "--writer-arg",
                "--vm-url=http://u:SECRET5@h:1",
                "--writer-arg=--batch-samples=5000"));
        assertThat(String.join(" ", r))
                .doesNotContain("SECRET")
                .contains("--writer-arg=--kafka-property=sasl.jaas.config=***")
                .contains("--writer-arg --vm-header --writer-arg Authorization:***")
                .contains("--writer-arg=--vm-header=X-Token:***")
                .contains("--writer-arg --kafka-property=ssl.key.password=***")
                .contains("--writer-arg --vm-url=http://h:1")
                .contains("--writer-arg=--batch-samples=5000");
    }

    @Test
    void redactArgsHidesTheUserinfoOfEveryUrlInACommaSeparatedValue() {
        List<String> r = SafeUrl.redactArgs(List.of(
                "capacity",
                "--target",
                "t=http://u:SECRET1@h:1/api/v1/write,output=remote-write,metrics-url=http://m:SECRET2@h:2/metrics",
                "--target=v=http://u:SECRET3@v:8428,metrics-url=http://m:SECRET4@v:8428/metrics",
                "--vm-url",
                "http://a:SECRET5@a,http://b:SECRET6@b"));
        assertThat(String.join(" ", r))
                .doesNotContain("SECRET")
                .contains("t=http://h:1/api/v1/write,output=remote-write,metrics-url=http://h:2/metrics")
                .contains("--target=v=http://v:8428,metrics-url=http://v:8428/metrics")
                .contains("http://a,http://b");
    }
}
