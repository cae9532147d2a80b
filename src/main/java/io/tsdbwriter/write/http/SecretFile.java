package io.tsdbwriter.write.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A secret held in a file (password, bearer token), re-read when the file changes so a rotated secret is picked up
 * without a restart (a Kubernetes secret volume swaps the file under a symlink). The modification time and size are
 * checked at most every {@link #CHECK_INTERVAL}; {@link #reload()} re-reads at once (after a 401). The content has
 * trailing whitespace (a final newline) removed, as vmagent does. The value is never logged; only the path is.
 *
 * <p>Thread-safe.
 */
final class SecretFile {

    /** How often the file's modification time and size are checked at most. */
    static final Duration CHECK_INTERVAL = Duration.ofSeconds(1);

    private static final Logger log = LoggerFactory.getLogger(SecretFile.class);

    private final Path path;
    private final String flag;
    private volatile String value;
    private volatile long checkedAtNanos;
    private volatile Object stamp;
    private boolean warned;

    /** Reads the file now. @throws IllegalArgumentException naming the flag and path when it cannot be read */
    SecretFile(Path path, String flag) {
        this.path = path;
        this.flag = flag;
        try {
            this.stamp = stamp();
            this.value = read();
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    flag + " " + path + ": cannot read it (" + e.getClass().getSimpleName() + ")");
        }
        this.checkedAtNanos = System.nanoTime();
    }

    /** The current secret, re-read when the file changed since the last check (at most every second). */
    String value() {
        if (System.nanoTime() - checkedAtNanos >= CHECK_INTERVAL.toNanos()) {
            refresh(false);
        }
        return value;
    }

    /** Re-reads the file now. @return true when the secret changed */
    boolean reload() {
        return refresh(true);
    }

    private synchronized boolean refresh(boolean force) {
        checkedAtNanos = System.nanoTime();
        try {
            Object s = stamp();
            if (!force && s.equals(stamp)) {
                return false;
            }
            String v = read();
            stamp = s;
            warned = false;
            if (v.equals(value)) {
                return false;
            }
            value = v;
            log.info("{} {} changed: using the new content", flag, path);
            return true;
        } catch (IOException e) {
            if (!warned) {
                warned = true;
                log.warn(
                        "{} {}: cannot read it ({}); keeping the previous content",
                        flag,
                        path,
                        e.getClass().getSimpleName());
            }
            return false;
        }
    }

    private Object stamp() throws IOException {
        BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
        return a.lastModifiedTime().toMillis() + "/" + a.size() + "/" + a.fileKey();
    }

    private String read() throws IOException {
        return Files.readString(path, StandardCharsets.UTF_8).stripTrailing();
    }

    @Override
    public String toString() {
        return flag + " " + path;
    }
}
