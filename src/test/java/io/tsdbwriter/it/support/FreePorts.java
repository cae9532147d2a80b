package io.tsdbwriter.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks free TCP ports on the loopback interface (127.0.0.1) for servers that a test or the demo starts as child
 * processes.
 *
 * <p>A port is chosen at random below the kernel's ephemeral range (read from
 * {@code /proc/sys/net/ipv4/ip_local_port_range}; ports there are also handed out to outgoing connections, so a
 * listener could lose them between "picked" and "bound"), checked by binding it on 127.0.0.1, and then
 * <em>reserved</em>: an exclusive {@link FileLock} on {@code ${java.io.tmpdir}/tsdbwriter-ports/<port>.lock} is held
 * until {@link Reservation#close()} (or the JVM's exit). Every fixture of this package reserves its ports this way,
 * so two test runs on the same machine at the same time never hand out the same port, even though the check-bind is
 * released before the child process binds it. The lock files are left in place on purpose (deleting a lock file
 * that another process may be opening would break the exclusion); they are empty.
 *
 * <p>Thread-safe: any thread may call any method.
 */
public final class FreePorts {

    private static final Path LOCK_DIR = Path.of(System.getProperty("java.io.tmpdir"), "tsdbwriter-ports");
    /** Ports reserved by this JVM (a FileLock is per JVM, so this guards against double use within one JVM). */
    private static final Set<Integer> HELD = ConcurrentHashMap.newKeySet();

    private static final int ATTEMPTS = 500;

    private FreePorts() {}

    /**
     * Reserves a free loopback port until {@link Reservation#close()}.
     *
     * @throws IllegalStateException when no free port was found
     */
    public static Reservation reserve() {
        int[] range = candidateRange();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            int port = attempt < ATTEMPTS - 20 ? random.nextInt(range[0], range[1]) : osAssignedPort();
            Reservation reservation = tryReserve(port);
            if (reservation != null) {
                return reservation;
            }
        }
        throw new IllegalStateException("no free loopback port found after " + ATTEMPTS + " attempts");
    }

    /** Reserves {@code count} distinct free loopback ports; close each when done. */
    public static List<Reservation> reserve(int count) {
        Reservation[] out = new Reservation[count];
        for (int i = 0; i < count; i++) {
            out[i] = reserve();
        }
        return List.of(out);
    }

    /**
     * Picks a free loopback port and keeps it reserved for the rest of this JVM's life. Convenient for code that does
     * not manage a {@link Reservation}; fixtures use {@link #reserve()}.
     */
    public static int pick() {
        return reserve().port();
    }

    /** True when nothing listens on 127.0.0.1:{@code port} right now (a bind succeeds). */
    public static boolean isBindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            // Kafka (Java NIO) and VictoriaMetrics (Go) both listen with SO_REUSEADDR, so a port with only TIME_WAIT
            // leftovers is usable by them; test the bind the same way.
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static Reservation tryReserve(int port) {
        if (port <= 0 || !HELD.add(port)) {
            return null;
        }
        FileChannel channel = null;
        try {
            Files.createDirectories(LOCK_DIR);
            channel = FileChannel.open(
                    LOCK_DIR.resolve(port + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null || !isBindable(port)) {
                channel.close();
                HELD.remove(port);
                return null;
            }
            return new Reservation(port, channel);
        } catch (IOException e) {
            HELD.remove(port);
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // nothing to do
                }
            }
            throw new UncheckedIOException("cannot reserve port " + port + " under " + LOCK_DIR, e);
        }
    }

    private static int osAssignedPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            return -1;
        }
    }

    /** [from, to) below the ephemeral range, or a fixed range when the kernel setting cannot be read. */
    private static int[] candidateRange() {
        int low = 32768;
        try {
            String[] parts = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                    .trim()
                    .split("\\s+");
            low = Integer.parseInt(parts[0]);
        } catch (IOException | RuntimeException e) {
            // not Linux or not readable: keep the IANA-ish default
        }
        if (low > 12000) {
            return new int[] {Math.max(10000, low - 16000), low};
        }
        return new int[] {20000, 30000};
    }

    /**
     * A reserved port: no other {@link FreePorts} user (in this or another JVM) gets it until {@link #close()}.
     * Closing does not touch whatever listens on the port.
     */
    public static final class Reservation implements AutoCloseable {
        private final int port;
        private final FileChannel channel;

        private Reservation(int port, FileChannel channel) {
            this.port = port;
            this.channel = channel;
        }

        /** The reserved port number. */
        public int port() {
            return port;
        }

        /** Releases the reservation (idempotent). */
        @Override
        public void close() {
            try {
                if (channel.isOpen()) {
                    channel.close(); // releases the lock
                    HELD.remove(port);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public String toString() {
            return "Reservation[" + port + "]";
        }
    }
}
