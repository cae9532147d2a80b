package io.tsdbwriter.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A test that needs a Go-built binary waits for it while scripts/test.sh builds, and never on a stale marker. */
class GoBuildsTest {

    @Test
    void aBinaryBuiltWhileTheMarkerNamesALiveProcessIsWaitedFor(@TempDir Path dir) throws Exception {
        Path marker = Files.writeString(
                dir.resolve("go-builds.running"), ProcessHandle.current().pid() + "\nprometheus\nthanos\n");
        Path binary = dir.resolve("thanos");
        Thread builder = Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(1500);
                Path part = Files.writeString(dir.resolve("thanos.part"), "#!/bin/sh\n");
                Files.setPosixFilePermissions(part, PosixFilePermissions.fromString("rwxr-xr-x"));
                Files.move(part, binary);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(GoBuilds.built(binary, marker, Duration.ofSeconds(30))).isTrue();
        builder.join();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void withoutAMarkerWithOneWhoseProcessIsGoneOrWithoutTheBinaryListedNothingIsWaitedFor(@TempDir Path dir)
            throws Exception {
        Path binary = dir.resolve("prometheus");
        assertThat(GoBuilds.built(binary, dir.resolve("none"), Duration.ofMinutes(5)))
                .isFalse();
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path stale = Files.writeString(dir.resolve("go-builds.running"), gone.pid() + "\nprometheus\n");
        assertThat(GoBuilds.built(binary, stale, Duration.ofMinutes(5))).isFalse(); // the @Timeout fails a wait
        // a build that ended without its binary (the cluster's tag not served) is no longer listed: not waited for
        Path live = Files.writeString(
                dir.resolve("go-builds.running"), ProcessHandle.current().pid() + "\nthanos\n");
        assertThat(GoBuilds.built(dir.resolve("vmstorage"), live, Duration.ofMinutes(5)))
                .isFalse();
    }
}
