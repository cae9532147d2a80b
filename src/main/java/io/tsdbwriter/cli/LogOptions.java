package io.tsdbwriter.cli;

import picocli.CommandLine.Option;

/**
 * {@code --log-format}, a mixin of every command (they share logback.xml): {@link Main} applies it after parsing,
 * before the command runs. Not thread-safe: picocli fills it once.
 */
final class LogOptions {

    /** The flag's name ({@link Main} finds the option by it). */
    static final String FLAG = "--log-format";

    @Option(
            names = FLAG,
            defaultValue = "text",
            paramLabel = "text|json",
            converter = LogFormat.Converter.class,
            description =
                    "Log lines on stderr: text (ISO-8601 date, time and zone, level, thread, logger, message) or json "
                            + "(one JSON object a line: time as text shows it, timestamp in epoch ms, level, threadName, loggerName, formattedMessage, "
                            + "throwable; redacted as text is) (default: ${DEFAULT-VALUE})")
    LogFormat logFormat = LogFormat.TEXT;
}
