package io.tsdbwriter.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The flags renamed so that one word means one thing across commands (docs/glossary.md): each old
 * name stays a second name of its option for one release, and its {@code TSDB_WRITER_*} variable ({@code run}'s) a
 * second variable, each with one WARN naming the new one. Giving an old and a new name of one option on one command
 * line is a usage error (exit 2: picocli's "should be specified only once", worded by {@link #bothGiven}); with both
 * variables set the new one wins and the old one's WARN says it is ignored. Immutable, thread-safe.
 */
final class DeprecatedNames {

    /** {@code run --rate}, now {@code --max-samples-per-second} (samples/s; produce's {@code --rate} counted records/s). */
    static final String RUN_RATE = "--rate";
    /** {@code run --duration}, now {@code --replay-duration} (bench's {@code --duration} was its live input's length). */
    static final String RUN_DURATION = "--duration";
    /** {@code produce --rate}, now {@code --records-per-second}. */
    static final String PRODUCE_RATE = "--rate";
    /** {@code bench --duration}, now {@code --live-duration} (beside {@code --live-grace}). */
    static final String BENCH_DURATION = "--duration";
    /** {@code capacity --topic}, now {@code --topic-prefix} (everywhere else {@code --topic} names a topic). */
    static final String CAPACITY_TOPIC = "--topic";
    /** {@code capacity --records}, now {@code --points-per-pass} (bench's {@code --records} counts records). */
    static final String CAPACITY_RECORDS = "--records";
    /** {@code capacity --drain-timeout}, now {@code --step-drain-timeout} (run's is its stop's bound after SIGTERM). */
    static final String CAPACITY_DRAIN_TIMEOUT = "--drain-timeout";
    /**
     * {@code capacity --start-rate}, now {@code --start-input-rate}: points/s produced, as bench's {@code --input-rate},
     * while the report counts samples/min (points x M x N; M may change per step, so no samples/min flag can replace it).
     */
    static final String CAPACITY_START_RATE = "--start-rate";

    /**
     * One renamed flag.
     *
     * @param command the command it belongs to ({@code run}, {@code produce}, {@code bench})
     * @param old     the deprecated name, still accepted
     * @param current the name to use
     */
    record Rename(String command, String old, String current) {}

    /** Every renamed flag, in the order the CHANGELOG names them. */
    static final List<Rename> RENAMES = List.of(
            new Rename("run", RUN_RATE, "--max-samples-per-second"),
            new Rename("run", RUN_DURATION, "--replay-duration"),
            new Rename("produce", PRODUCE_RATE, "--records-per-second"),
            new Rename("bench", BENCH_DURATION, "--live-duration"),
            new Rename("capacity", CAPACITY_TOPIC, "--topic-prefix"),
            new Rename("capacity", CAPACITY_RECORDS, "--points-per-pass"),
            new Rename("capacity", CAPACITY_DRAIN_TIMEOUT, "--step-drain-timeout"),
            new Rename("capacity", CAPACITY_START_RATE, "--start-input-rate"));

    private DeprecatedNames() {}

    /** The rename whose new name {@code current} is of {@code command}, if any. */
    static Optional<Rename> ofCurrent(String command, String current) {
        return RENAMES.stream()
                .filter(r -> r.command().equals(command) && r.current().equals(current))
                .findFirst();
    }

    /** True when {@code arg} is {@code name} or {@code name=value}. */
    private static boolean names(String arg, String name) {
        return arg.equals(name) || arg.startsWith(name + "=");
    }

    /**
     * One line for each deprecated name given on {@code command}'s command line (each once, however often given), e.g.
     * {@code --rate is a deprecated name of run --max-samples-per-second, accepted until the next release: use
     * --max-samples-per-second}.
     *
     * @param command the command parsed ({@code spec.name()})
     * @param args    the arguments as given (every token, the command's name included)
     */
    static List<String> used(String command, List<String> args) {
        List<String> lines = new ArrayList<>();
        for (Rename r : RENAMES) {
            if (r.command().equals(command) && args.stream().anyMatch(a -> names(a, r.old()))) {
                lines.add(r.old() + " is a deprecated name of " + command + " " + r.current()
                        + ", accepted until the next release: use " + r.current());
            }
        }
        return lines;
    }

    /**
     * The usage error's one line when {@code option} was given under an old and a new name at once, e.g.
     * {@code --rate and --max-samples-per-second are one option of run (--rate its deprecated name): give only
     * --max-samples-per-second}; empty when it was not.
     */
    static Optional<String> bothGiven(OptionSpec option, String[] args) {
        if (option.command() == null) {
            return Optional.empty();
        }
        String command = option.command().name();
        return ofCurrent(command, option.longestName())
                .filter(r -> List.of(args).stream().anyMatch(a -> names(a, r.old()))
                        && List.of(args).stream().anyMatch(a -> names(a, r.current())))
                .map(r -> r.old() + " and " + r.current() + " are one option of " + command + " (" + r.old()
                        + " its deprecated name): give only " + r.current());
    }

    /** The deprecated variables of {@code run}'s renamed options ({@code TSDB_WRITER_RATE}, …), each with its new one. */
    static Map<String, String> variables() {
        Map<String, String> variables = new LinkedHashMap<>();
        for (Rename r : RENAMES) {
            if (r.command().equals(EnvironmentDefaults.COMMAND)) {
                variables.put(EnvironmentDefaults.variableFor(r.old()), EnvironmentDefaults.variableFor(r.current()));
            }
        }
        return variables;
    }

    /**
     * One line for each deprecated variable set in {@code env}: read in place of its new one (e.g.
     * {@code TSDB_WRITER_RATE is a deprecated variable, read until the next release: set
     * TSDB_WRITER_MAX_SAMPLES_PER_SECOND (--max-samples-per-second)}), or ignored when the new one is set too.
     * Names only, never a value.
     */
    static List<String> variablesUsed(Map<String, String> env) {
        List<String> lines = new ArrayList<>();
        variables().forEach((old, current) -> {
            if (env.containsKey(old)) {
                String flag = "--"
                        + current.substring(EnvironmentDefaults.PREFIX.length())
                                .toLowerCase(Locale.ROOT)
                                .replace('_', '-');
                lines.add(old + " is a deprecated variable, "
                        + (env.containsKey(current)
                                ? "ignored as " + current + " is set too"
                                : "read until the next release")
                        + ": set " + current + " (" + flag + ")");
            }
        });
        return lines;
    }
}
