package io.tsdbwriter.cli;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.encoder.Encoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * {@code --log-format}: how the log lines on stderr are written. {@link #TEXT} is logback.xml's pattern (ISO-8601
 * date, time to the millisecond and zone offset, level, thread, logger, message); {@link #JSON} is one JSON object a
 * line through logback's own {@link JsonEncoder} ({@code time} first, the text line's ISO-8601 time, then the
 * encoder's {@code timestamp} in epoch milliseconds, {@code level}, {@code threadName}, {@code loggerName},
 * {@code formattedMessage}, {@code throwable}): the same text as a
 * {@link #TEXT} line and nothing more — no {@code arguments}, raw {@code message}, MDC, key-value pairs or logger
 * context, so what the writer redacts before logging (URL userinfo, header and Kafka property values) is all a JSON
 * line holds too.
 */
enum LogFormat {
    TEXT,
    JSON;

    /** Name of the appender of logback.xml whose encoder {@link #apply()} replaces. */
    static final String APPENDER = "STDERR";

    /** The encoder logback.xml gave {@link #APPENDER}, kept to restore {@link #TEXT} after {@link #JSON}. */
    private static Encoder<ILoggingEvent> configured;

    /**
     * Makes the root logger's {@value #APPENDER} appender write this format from the next line on. A no-op when
     * SLF4J is not bound to logback or logback.xml has no such appender. Calls are serialised; call it at start, before
     * the command's threads log (a line written meanwhile may come out in either format, or be lost while it swaps).
     */
    void apply() {
        synchronized (LogFormat.class) {
            if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx)) {
                return;
            }
            Appender<ILoggingEvent> a = ctx.getLogger(Logger.ROOT_LOGGER_NAME).getAppender(APPENDER);
            if (!(a instanceof OutputStreamAppender<ILoggingEvent> out)) {
                return;
            }
            if (configured == null) {
                configured = out.getEncoder();
            }
            Encoder<ILoggingEvent> encoder = this == JSON ? jsonEncoder(ctx) : configured;
            if (out.getEncoder() == encoder || (this == JSON && out.getEncoder() instanceof JsonEncoder)) {
                return;
            }
            out.stop();
            out.setEncoder(encoder);
            out.start();
        }
    }

    /** The JSON encoder with the fields this class's Javadoc lists, started. */
    static JsonEncoder jsonEncoder(LoggerContext ctx) {
        JsonEncoder e = new IsoTimeJsonEncoder();
        e.setContext(ctx);
        e.setWithSequenceNumber(false);
        e.setWithNanoseconds(false);
        e.setWithContext(false);
        e.setWithMDC(false);
        e.setWithKVPList(false);
        e.setWithMarkers(false);
        e.setWithMessage(false);
        e.setWithArguments(false);
        e.setWithFormattedMessage(true);
        e.start();
        return e;
    }

    /**
     * logback's {@link JsonEncoder} with a first member {@code "time"}: the event's time as a text line shows it
     * ({@code 2026-12-02T05:36:40.035Z}, the JVM's zone). Thread-safe as its parent is.
     */
    static final class IsoTimeJsonEncoder extends JsonEncoder {
        private static final DateTimeFormatter ISO = DateTimeFormatter.ofPattern(
                        "yyyy-MM-dd'T'HH:mm:ss.SSSXXX", Locale.ROOT)
                .withZone(ZoneId.systemDefault());

        @Override
        public byte[] encode(ILoggingEvent event) {
            byte[] json = super.encode(event);
            if (json.length == 0 || json[0] != '{') {
                return json; // not the object this class knows how to extend
            }
            byte[] time = ("{\"time\":\"" + ISO.format(Instant.ofEpochMilli(event.getTimeStamp())) + "\",")
                    .getBytes(StandardCharsets.UTF_8);
            byte[] out = new byte[time.length + json.length - 1];
            System.arraycopy(time, 0, out, 0, time.length);
            System.arraycopy(json, 1, out, time.length, json.length - 1);
            return out;
        }
    }

    /** Accepts {@code text} or {@code json} (any case); anything else is one line naming both. */
    static final class Converter implements CommandLine.ITypeConverter<LogFormat> {
        @Override
        public LogFormat convert(String value) {
            return switch (value.trim().toLowerCase(Locale.ROOT)) {
                case "text" -> TEXT;
                case "json" -> JSON;
                default ->
                    throw new CommandLine.TypeConversionException(
                            "--log-format must be text or json, got '" + value + "'");
            };
        }
    }
}
