package io.tsdbwriter.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Option;

/**
 * {@code --log-format}, {@code --log-level} and {@code --config}, a mixin of every command (they share logback.xml):
 * {@link Main} applies the first two after parsing, before the command runs, and reads the file before parsing
 * ({@link ConfigFile}). Not thread-safe: picocli fills it once.
 */
final class LogOptions {

    /** The flag's name ({@link Main} finds the option by it). */
    static final String FLAG = "--log-format";

    @Option(
            names = FLAG,
            defaultValue = "text",
            paramLabel = "text|json",
            converter = LogFormat.Converter.class,
            description = "Log lines on stderr: text or json (default: ${DEFAULT-VALUE})")
    LogFormat logFormat = LogFormat.TEXT;

    /** {@code --log-level}'s name ({@link Main} finds the option by it). */
    static final String LEVEL_FLAG = "--log-level";

    /** The levels {@code --log-level} takes, least logged first. */
    enum LogLevel {
        ERROR,
        WARN,
        INFO,
        DEBUG,
        TRACE;

        /** Sets logback's root level (every logger without its own level follows it). */
        void apply() {
            if (LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx) {
                ctx.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.toLevel(name()));
            }
        }
    }

    @Option(
            names = LEVEL_FLAG,
            paramLabel = "LEVEL",
            description =
                    "The least severe level logged: ${COMPLETION-CANDIDATES} (default: INFO, or the TSDB_WRITER_LOG_LEVEL variable)")
    LogLevel logLevel;

    @Option(
            names = ConfigFile.FLAG,
            paramLabel = "FILE",
            description = "YAML file of this command's settings, keys the long flag names (default: none)")
    Path config;
}
