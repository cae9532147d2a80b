package io.tsdbwriter.lab;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** The installed version of a Debian package, via {@code dpkg-query}; empty elsewhere. Stateless; thread-safe. */
final class DpkgVersion {

    private DpkgVersion() {}

    static Optional<String> of(String pkg) {
        try {
            Process p = ChildProcess.of("dpkg-query", "-W", "-f=${Version}", pkg)
                    .redirectErrorStream(true)
                    .start();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.empty();
            }
            String v = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.exitValue() == 0 && !v.isEmpty() ? Optional.of(v) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
