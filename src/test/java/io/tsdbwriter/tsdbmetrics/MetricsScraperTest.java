package io.tsdbwriter.tsdbmetrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Reading /metrics pages: what is asked, and what is not asked again (issue 53 item 5). */
class MetricsScraperTest {

    private HttpServer server;
    private final AtomicInteger asked = new AtomicInteger();

    private String serve(int status) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/metrics", x -> {
            asked.incrementAndGet();
            byte[] b = "up 1\n".getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(status, b.length);
            x.getResponseBody().write(b);
            x.close();
        });
        server.start();
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/metrics";
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void aPageThatAnswers404IsNotAskedAgain() throws IOException {
        String url = serve(404);
        MetricsScraper scraper = new MetricsScraper(new OkHttpClient(), Duration.ofSeconds(5));

        assertThat(scraper.scrape(url)).isNull();
        assertThat(scraper.scrape(url)).isNull();
        assertThat(scraper.scrapeAll(List.of(url, url))).containsOnlyNulls();
        assertThat(asked.get()).isEqualTo(1);
    }

    @Test
    void aPageThatFailsOtherwiseIsAskedEveryTime() throws IOException {
        String url = serve(503);
        MetricsScraper scraper = new MetricsScraper(new OkHttpClient(), Duration.ofSeconds(5));

        assertThat(scraper.scrape(url)).isNull();
        assertThat(scraper.scrape(url)).isNull();
        assertThat(asked.get()).isEqualTo(2);
    }
}
