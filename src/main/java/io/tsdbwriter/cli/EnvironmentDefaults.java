package io.tsdbwriter.cli;

import io.tsdbwriter.write.http.SafeUrl;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Lets every option of {@code run} be set by an environment variable: {@code TSDB_WRITER_} + the long option name
 * upper-cased with dashes as underscores ({@code --time-multiplier} ← {@code TSDB_WRITER_TIME_MULTIPLIER}). A flag on
 * the command line wins over the variable; the variable wins over the built-in default. The variables are
 * {@value #COMMAND}'s only (and {@value #CHECK}'s, which checks {@value #COMMAND}'s configuration): the other commands
 * ignore them, so one variable never means two things
 * ({@code TSDB_WRITER_MAX_SAMPLES_PER_SECOND} is {@code run}'s, never {@code produce --records-per-second}). A renamed
 * option's old variable ({@link DeprecatedNames#variables}, e.g. {@code TSDB_WRITER_RATE}) is read when its new one is
 * not set, for one release. Below the variables lies the {@code --config} file of any command ({@link ConfigFile}):
 * flag > variable > file > built-in default. Not
 * thread-safe: one instance per command line, used by one thread.
 */
final class EnvironmentDefaults implements CommandLine.IDefaultValueProvider {

    /** Prefix of every variable. */
    static final String PREFIX = "TSDB_WRITER_";

    /** The command whose options take their defaults from the environment. */
    static final String COMMAND = "run";

    /** {@code check}: {@value #COMMAND}'s options, checked without running, so its variables too. */
    static final String CHECK = "check";

    /**
     * The {@value #PREFIX} variables that are no option of {@value #COMMAND} but are read elsewhere: the log level
     * (logback.xml), bench's Telegraf and OpenTelemetry Collector, the scripts' jar and the report test's Chromium. Not
     * warned of.
     */
    static final List<String> OTHER_VARIABLES = List.of(
            "TSDB_WRITER_LOG_LEVEL",
            "TSDB_WRITER_TELEGRAF_BINARY",
            "TSDB_WRITER_OTELCOL_BINARY",
            "TSDB_WRITER_JAR",
            "TSDB_WRITER_CHROMIUM");

    /**
     * What Kubernetes sets in every pod of a namespace for each Service (its "service links": a Service
     * {@code tsdb-writer-metrics} gives {@code TSDB_WRITER_METRICS_SERVICE_HOST}, {@code …_SERVICE_PORT[_NAME]},
     * {@code …_PORT_9464_TCP[_PROTO|_PORT|_ADDR]}); {@code …_PORT} itself is one only when its value is a
     * {@code tcp://}, {@code udp://} or {@code sctp://} address. Not warned of: the operator did not write them.
     */
    private static final Pattern SERVICE_LINK = Pattern.compile(
            ".+_SERVICE_HOST|.+_SERVICE_PORT(_[A-Z0-9_]+)?|.+_PORT_[0-9]+_(TCP|UDP|SCTP)(_PROTO|_PORT|_ADDR)?");

    private static final List<String> SECRET_VALUE_FLAGS =
            List.of("--kafka-property", "--consumer-property", "--vm-header");

    private final Map<String, String> env;
    private boolean suspended;
    /** {@code --config}'s file and the command it was given to, or null. */
    private ConfigFile file;

    private String fileCommand;

    EnvironmentDefaults(Map<String, String> env) {
        this.env = env;
    }

    /** The variable for a long option name such as {@code --vm-url}. */
    static String variableFor(String longName) {
        return PREFIX + longName.replaceFirst("^-+", "").replace('-', '_').toUpperCase(Locale.ROOT);
    }

    /**
     * The variable that gives {@code arg} its default: present when {@code arg} is an option of {@value #COMMAND}
     * (not {@code --help} nor {@code --version}) and its variable is set.
     */
    Optional<String> variableOf(ArgSpec arg) {
        if (arg instanceof OptionSpec o
                && !o.usageHelp()
                && !o.versionHelp()
                && o.command() != null
                && (COMMAND.equals(o.command().name())
                        || CHECK.equals(o.command().name()))) {
            String variable = variableFor(o.longestName());
            if (env.containsKey(variable)) {
                return Optional.of(variable);
            }
            Optional<String> old =
                    DeprecatedNames.ofCurrent(COMMAND, o.longestName()).map(r -> variableFor(r.old()));
            if (old.isPresent() && env.containsKey(old.get())) {
                return old; // its deprecated variable (DeprecatedNames.variablesUsed warns of it)
            }
        }
        return Optional.empty();
    }

    /**
     * One line for each {@value #PREFIX} variable of the environment that no option of {@code run} maps to (nor one of
     * {@link #OTHER_VARIABLES}, nor a Kubernetes service link such as {@code TSDB_WRITER_METRICS_SERVICE_HOST}), in name
     * order, naming the known variable nearest to it by edit distance, e.g.
     * {@code TSDB_WRITER_TOPICC is no variable of tsdb-writer run (no option maps to it), ignored: did you mean
     * TSDB_WRITER_TOPIC?}. Only names are shown, never a value (it may be a secret).
     *
     * @param run the spec of the {@value #COMMAND} command, whose options' variables are the known ones
     * @return the lines, empty when every such variable is known
     */
    List<String> unknownVariables(CommandSpec run) {
        List<String> known = new ArrayList<>(OTHER_VARIABLES);
        known.addAll(DeprecatedNames.variables().keySet()); // warned of as deprecated, not as unknown
        for (OptionSpec o : run.options()) {
            if (!o.usageHelp() && !o.versionHelp()) {
                known.add(variableFor(o.longestName()));
            }
        }
        List<String> lines = new ArrayList<>();
        env.keySet().stream()
                .filter(n -> n.startsWith(PREFIX))
                .filter(n -> !known.contains(n))
                .filter(n -> !serviceLink(n, env.get(n)))
                .sorted()
                .forEach(name -> {
                    String nearest = known.get(0);
                    int best = Integer.MAX_VALUE;
                    for (String k : known) {
                        int d = editDistance(name, k);
                        if (d < best) {
                            best = d;
                            nearest = k;
                        }
                    }
                    lines.add(name + " is no variable of tsdb-writer " + COMMAND
                            + " (no option maps to it), ignored: did you mean " + nearest + "?");
                });
        return lines;
    }

    /** One WARN line for each deprecated variable set ({@link DeprecatedNames#variablesUsed}). */
    List<String> deprecatedVariables() {
        return DeprecatedNames.variablesUsed(env);
    }

    /** True when {@code name=value} is what Kubernetes sets for a Service (see {@link #SERVICE_LINK}). */
    static boolean serviceLink(String name, String value) {
        if (SERVICE_LINK.matcher(name).matches()) {
            return true;
        }
        return name.endsWith("_PORT") && value != null && value.matches("(tcp|udp|sctp)://.*");
    }

    /** Levenshtein distance: the fewest single-character insertions, deletions and substitutions from {@code a} to {@code b}. */
    static int editDistance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitute = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(substitute, Math.min(prev[j], cur[j - 1]) + 1);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    /**
     * The value {@code option} takes from the environment as help may print it: URLs without their userinfo, and the
     * values of {@code --kafka-property}, {@code --consumer-property} and {@code --vm-header} as {@code KEY=***}.
     *
     * @throws java.util.NoSuchElementException when {@link #variableOf} is empty for it
     */
    String shownValue(OptionSpec option) {
        String value = env.get(variableOf(option).orElseThrow());
        if (SECRET_VALUE_FLAGS.contains(option.longestName())) {
            return SafeUrl.redactArgs(List.of(option.longestName(), value)).get(1);
        }
        String split = option.splitRegex();
        if (split == null || split.isEmpty()) {
            return SafeUrl.redact(value);
        }
        List<String> parts = new ArrayList<>();
        for (String part : value.split(split, -1)) {
            parts.add(SafeUrl.redact(part));
        }
        return String.join(",", parts);
    }

    /** What {@code help} returns with every option at its built-in default, as if no variable were set. */
    <T> T builtIn(Supplier<T> help) {
        boolean was = suspended;
        suspended = true;
        try {
            return help.get();
        } finally {
            suspended = was;
        }
    }

    /** Takes the options of {@code command} not given as flags (nor, for {@code run}, as variables) from {@code file}. */
    void useFile(String command, ConfigFile file) {
        this.fileCommand = command;
        this.file = file;
    }

    /** The value {@code arg} takes from the {@code --config} file, if any (below a flag and a variable). */
    Optional<String> fileValueOf(ArgSpec arg) {
        if (file != null
                && arg instanceof OptionSpec o
                && o.command() != null
                && fileCommand.equals(o.command().name())) {
            return file.valueOf(o);
        }
        return Optional.empty();
    }

    @Override
    public String defaultValue(ArgSpec argSpec) {
        if (!suspended) {
            Optional<String> variable = variableOf(argSpec);
            if (variable.isPresent()) {
                return env.get(variable.get());
            }
            Optional<String> fromFile = fileValueOf(argSpec);
            if (fromFile.isPresent()) {
                return fromFile.get();
            }
        }
        return argSpec.defaultValue();
    }
}
