package io.tsdbwriter.write.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Base64;
import java.util.List;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HttpClientSecurityTest {

    @TempDir
    Path dir;

    private static HttpAuthConfig cfg(String user, Path passwordFile, Path tokenFile, List<String> headers) {
        return new HttpAuthConfig(user, passwordFile, tokenFile, headers, null, null, null, null, false);
    }

    private static int get(OkHttpClient c, String url) throws Exception {
        try (Response r = c.newCall(new Request.Builder().url(url).build()).execute()) {
            return r.code();
        }
    }

    @Test
    void urlUserinfoIsBasicAuthForThatOriginOnly() throws Exception {
        try (MockWebServer a = new MockWebServer();
                MockWebServer b = new MockWebServer()) {
            a.enqueue(new MockResponse().setResponseCode(204));
            a.enqueue(new MockResponse().setResponseCode(200));
            b.enqueue(new MockResponse().setResponseCode(204));
            String withUser = "http://writer:pa%3Ass@" + a.getHostName() + ":" + a.getPort();
            OkHttpClient c = HttpClientSecurity.of(HttpAuthConfig.NONE, List.of(withUser))
                    .configure(new OkHttpClient.Builder())
                    .build();
            get(c, SafeUrl.parse(withUser).url() + "/api/v1/import");
            get(c, SafeUrl.parse(withUser).url() + "/metrics");
            get(c, b.url("/api/v1/import").toString());
            String expected =
                    "Basic " + Base64.getEncoder().encodeToString("writer:pa:ss".getBytes(StandardCharsets.UTF_8));
            assertThat(a.takeRequest().getHeader("Authorization")).isEqualTo(expected);
            assertThat(a.takeRequest().getHeader("Authorization")).isEqualTo(expected);
            assertThat(b.takeRequest().getHeader("Authorization")).isNull();
        }
    }

    @Test
    void basicAuthPasswordFileAndHeaders() throws Exception {
        Path pw = dir.resolve("pw");
        Files.writeString(pw, "filepass\n");
        try (MockWebServer s = new MockWebServer()) {
            s.enqueue(new MockResponse().setResponseCode(204));
            OkHttpClient c = HttpClientSecurity.of(cfg("u", pw, null, List.of("X-Scope-OrgID: 42", "AccountID:7")))
                    .configure(new OkHttpClient.Builder())
                    .build();
            get(c, s.url("/").toString());
            RecordedRequest r = s.takeRequest();
            assertThat(r.getHeader("Authorization"))
                    .isEqualTo("Basic "
                            + Base64.getEncoder().encodeToString("u:filepass".getBytes(StandardCharsets.UTF_8)));
            assertThat(r.getHeader("X-Scope-OrgID")).isEqualTo("42");
            assertThat(r.getHeader("AccountID")).isEqualTo("7");
        }
    }

    @Test
    void rotatedTokenIsPickedUpAt401AndTheRequestSentOnceMore() throws Exception {
        Path token = dir.resolve("token");
        Files.writeString(token, "old-token\n");
        try (MockWebServer s = new MockWebServer()) {
            s.enqueue(new MockResponse().setResponseCode(204));
            s.enqueue(new MockResponse().setResponseCode(401));
            s.enqueue(new MockResponse().setResponseCode(204));
            s.enqueue(new MockResponse().setResponseCode(401));
            OkHttpClient c = HttpClientSecurity.of(cfg(null, null, token, List.of()))
                    .configure(new OkHttpClient.Builder())
                    .build();
            assertThat(get(c, s.url("/").toString())).isEqualTo(204);
            Path tmp = dir.resolve("token.new");
            Files.writeString(tmp, "new-token");
            Files.move(tmp, token, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            assertThat(get(c, s.url("/").toString())).isEqualTo(204); // 401 with the old token, re-read, sent again
            assertThat(s.takeRequest().getHeader("Authorization")).isEqualTo("Bearer old-token");
            RecordedRequest second = s.takeRequest();
            RecordedRequest third = s.takeRequest();
            assertThat(List.of(second.getHeader("Authorization"), third.getHeader("Authorization")))
                    .endsWith("Bearer new-token");
            assertThat(get(c, s.url("/").toString())).isEqualTo(401); // unchanged secret: the 401 is returned as it is
        }
    }

    @Test
    void rotatedTokenIsPickedUpAtVmauths400ForAnUnknownTokenToo() throws Exception {
        Path token = dir.resolve("token400");
        Files.writeString(token, "old-token\n");
        try (MockWebServer s = new MockWebServer()) {
            s.enqueue(new MockResponse().setResponseCode(204));
            s.enqueue(new MockResponse().setResponseCode(400).setBody("cannot find the provided auth token"));
            s.enqueue(new MockResponse().setResponseCode(204));
            s.enqueue(new MockResponse().setResponseCode(400));
            OkHttpClient c = HttpClientSecurity.of(cfg(null, null, token, List.of()))
                    .configure(new OkHttpClient.Builder())
                    .build();
            assertThat(get(c, s.url("/").toString())).isEqualTo(204);
            Path tmp = dir.resolve("token400.new");
            Files.writeString(tmp, "new-token");
            Files.move(tmp, token, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            assertThat(get(c, s.url("/").toString())).isEqualTo(204); // 400 with the old token, re-read, sent again
            s.takeRequest();
            assertThat(s.takeRequest().getHeader("Authorization")).isEqualTo("Bearer old-token");
            assertThat(s.takeRequest().getHeader("Authorization")).isEqualTo("Bearer new-token");
            assertThat(get(c, s.url("/").toString()))
                    .isEqualTo(400); // unchanged secret: a real 400 is returned as it is
            assertThat(s.getRequestCount()).isEqualTo(4);
        }
    }

    @Test
    void badSettingsAreOneLineNamingTheFlag() {
        assertThatThrownBy(() -> HttpClientSecurity.of(cfg(null, null, dir.resolve("nope"), List.of())))
                .hasMessageContaining("--vm-bearer-token-file");
        assertThatThrownBy(() -> cfg(null, dir.resolve("pw"), null, List.of()))
                .hasMessageContaining("--vm-basic-auth-username");
        assertThatThrownBy(() -> cfg(null, null, null, List.of("no-colon-Sekr1t")))
                .hasMessageContaining("--vm-header")
                .hasMessageNotContaining("Sekr1t");
        assertThatThrownBy(() ->
                        new HttpAuthConfig(null, null, null, List.of(), null, dir.resolve("c"), null, null, false))
                .hasMessageContaining("--vm-tls-key-file");
        assertThatThrownBy(() ->
                        HttpClientSecurity.of(cfg(null, null, dir.resolve("t"), List.of()), List.of("http://u:PW@h:1")))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
