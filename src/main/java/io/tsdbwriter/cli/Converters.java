package io.tsdbwriter.cli;

import io.tsdbwriter.write.OnWriteFailure;
import io.tsdbwriter.write.RemoteWriteVersion;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * picocli converters for durations ({@code 500ms}, {@code 60s}, {@code 5m}, {@code 1h}, ISO {@code PT1M}) and byte
 * sizes ({@code 256MiB}).
 */
final class Converters {

    private Converters() {}

    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d)");
    private static final Pattern SIZE =
            Pattern.compile("(\\d+)\\s*(B|KiB|MiB|GiB|KB|MB|GB)?", Pattern.CASE_INSENSITIVE);

    /** Duration with a unit: ms, s, m, h, d; or ISO-8601. */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            String v = value.trim();
            Matcher m = DURATION.matcher(v);
            if (m.matches()) {
                try {
                    long n = Long.parseLong(m.group(1));
                    return switch (m.group(2)) {
                        case "ms" -> Duration.ofMillis(n);
                        case "s" -> Duration.ofSeconds(n);
                        case "m" -> Duration.ofMinutes(n);
                        case "h" -> Duration.ofHours(n);
                        default -> Duration.ofDays(n);
                    };
                } catch (ArithmeticException | NumberFormatException e) {
                    throw new CommandLine.TypeConversionException("'" + value + "' is too long a duration");
                }
            }
            try {
                return Duration.parse(v.toUpperCase(Locale.ROOT));
            } catch (RuntimeException e) {
                throw new CommandLine.TypeConversionException(
                        "'" + value + "' is not a duration (use e.g. 500ms, 60s, 5m, 1h)");
            }
        }
    }

    /** Write permits: {@code auto} (= 0: each target's {@code vm_concurrent_insert_capacity}) or a count 0..10000. */
    /** {@code --durability-window}: {@code auto} (null: read from the TSDB), {@code 0} (at once) or a duration. */
    static final class DurabilityWindowConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            String v = value.trim();
            if (v.equalsIgnoreCase("auto")) {
                return null;
            }
            if (v.equals("0")) {
                return Duration.ZERO;
            }
            return new DurationConverter().convert(v);
        }
    }

    static final class PermitsConverter implements CommandLine.ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            String v = value.trim();
            if (v.equalsIgnoreCase("auto")) {
                return 0;
            }
            try {
                int n = Integer.parseInt(v);
                if (n >= 0 && n <= 10_000) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // the message below
            }
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' is not auto nor a permit count in 0..10000 (0 = auto)");
        }
    }

    /** An instant: RFC 3339 ({@code 2000-01-01T00:00:00Z}) or epoch milliseconds; converted to epoch ms. */
    static final class EpochMillisConverter implements CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            String v = value.trim();
            if (v.chars().allMatch(Character::isDigit) && !v.isEmpty()) {
                try {
                    return Long.parseLong(v);
                } catch (NumberFormatException e) {
                    throw new CommandLine.TypeConversionException(
                            "'" + value + "' is too large for epoch milliseconds");
                }
            }
            try {
                return OffsetDateTime.parse(v).toInstant().toEpochMilli();
            } catch (RuntimeException e) {
                throw new CommandLine.TypeConversionException(
                        "'" + value + "' is not an RFC 3339 time (e.g. 2000-01-01T00:00:00Z) nor epoch milliseconds");
            }
        }
    }

    /** Byte size: a number with an optional unit B, KiB, MiB, GiB (KB/MB/GB are read as powers of 1024 too). */
    static final class SizeConverter implements CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            Matcher m = SIZE.matcher(value.trim());
            if (!m.matches()) {
                throw new CommandLine.TypeConversionException(
                        "'" + value + "' is not a size (use e.g. 1048576, 512KiB, 256MiB)");
            }
            String unit = m.group(2) == null ? "B" : m.group(2).toUpperCase(Locale.ROOT);
            long factor =
                    switch (unit) {
                        case "KIB", "KB" -> 1024L;
                        case "MIB", "MB" -> 1024L * 1024;
                        case "GIB", "GB" -> 1024L * 1024 * 1024;
                        default -> 1L;
                    };
            try {
                return Math.multiplyExact(Long.parseLong(m.group(1)), factor);
            } catch (ArithmeticException | NumberFormatException e) {
                throw new CommandLine.TypeConversionException("'" + value + "' is too large a size");
            }
        }
    }

    /** Accepts pause / dead-letter (and the enum names). */
    static final class FailurePolicyConverter implements CommandLine.ITypeConverter<OnWriteFailure> {
        @Override
        public OnWriteFailure convert(String value) {
            return switch (value.trim().toLowerCase(Locale.ROOT)) {
                case "pause" -> OnWriteFailure.PAUSE;
                case "dead-letter", "dead_letter", "deadletter" -> OnWriteFailure.DEAD_LETTER;
                default -> throw new CommandLine.TypeConversionException("'" + value + "' is not pause or dead-letter");
            };
        }
    }

    /** {@code --remote-write-version}: {@link RemoteWriteVersion#parse}, its message on a bad value. */
    static final class RemoteWriteVersionConverter implements CommandLine.ITypeConverter<RemoteWriteVersion> {
        @Override
        public RemoteWriteVersion convert(String value) {
            try {
                return RemoteWriteVersion.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
