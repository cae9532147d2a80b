package io.tsdbwriter.kafka.segment;

/**
 * Faults injected on purpose by integration tests, read once from system properties and inert when unset (the
 * default): {@code -Dtsdbwriter.test.throwInSegment=<Error>@[<partition>:]<offset>} makes the segment thread that
 * reaches that offset throw {@code StackOverflowError}, {@code OutOfMemoryError} or {@code IllegalStateException}
 * (any other name: {@code Error}) just before processing it. Not a user feature; not in {@code --help}.
 */
final class TestHooks {

    /** True when a fault is armed (a constant: the check costs nothing otherwise). */
    static final boolean ARMED;

    private static final String KIND;
    private static final int PARTITION;
    private static final long OFFSET;

    static {
        String spec = System.getProperty("tsdbwriter.test.throwInSegment");
        String kind = null;
        int partition = -1;
        long offset = -1;
        if (spec != null && spec.contains("@")) {
            kind = spec.substring(0, spec.indexOf('@'));
            String at = spec.substring(spec.indexOf('@') + 1);
            if (at.contains(":")) {
                partition = Integer.parseInt(at.substring(0, at.indexOf(':')));
                at = at.substring(at.indexOf(':') + 1);
            }
            offset = Long.parseLong(at);
        }
        ARMED = kind != null;
        KIND = kind;
        PARTITION = partition;
        OFFSET = offset;
    }

    private TestHooks() {}

    /** Throws the armed fault when {@code partition}/{@code offset} is its place. */
    static void beforeRecord(int partition, long offset) {
        if (offset == OFFSET && (PARTITION < 0 || PARTITION == partition)) {
            String msg = "test hook tsdbwriter.test.throwInSegment at partition " + partition + " offset " + offset;
            switch (KIND) {
                case "StackOverflowError" -> throw new StackOverflowError(msg);
                case "OutOfMemoryError" -> throw new OutOfMemoryError(msg);
                case "IllegalStateException" -> throw new IllegalStateException(msg);
                default -> throw new Error(msg);
            }
        }
    }
}
