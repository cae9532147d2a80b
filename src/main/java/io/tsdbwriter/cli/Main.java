package io.tsdbwriter.cli;

import io.tsdbwriter.app.ExitCodes;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * {@code tsdb-writer}: Kafka → VictoriaMetrics (or any remote write receiver) writer with M × N amplification and an
 * efficiency report.
 * Exit codes: 0 done, 1 a fault, 2 bad flags, 3 done with samples refused and not dead-lettered, 4 a {@code --stop-at-end}
 * job stopped by a signal before its end ({@code run --help} says each).
 */
@CommandLine.Command(
        name = "tsdb-writer",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = {
            "Reads time-series points from Kafka and writes them into VictoriaMetrics (/api/v1/import) or any "
                    + "remote write receiver (Prometheus, Mimir, Thanos receive, VictoriaMetrics; Remote-Write 1.0 and 2.0), "
                    + "optionally amplifying each point M times in time and N times across instances, and reports efficiency "
                    + "(samples written per minute / samples expected per minute).",
            "Every option of run can also be set by an environment variable: TSDB_WRITER_<OPTION>, e.g. "
                    + "TSDB_WRITER_TIME_MULTIPLIER; check (run's configuration checked without running) reads them too, "
                    + "the other commands ignore them."
        },
        subcommands = {
            RunCommand.class,
            CheckCommand.class,
            ProduceCommand.class,
            VerifyCommand.class,
            BenchCommand.class,
            CapacityCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Main {

    private static final Logger LOG = LoggerFactory.getLogger(Main.class);

    /** Exit code of a job that is done (DESIGN §5). */
    public static final int EXIT_OK = ExitCodes.OK;
    /** Exit code of a fault: Kafka unreachable or refusing us, a configuration fault past its timeout, a thread died. */
    public static final int EXIT_FAULT = ExitCodes.FAULT;
    /** Exit code for bad flags. */
    public static final int EXIT_USAGE = ExitCodes.USAGE;
    /** Exit code of a job that is done, but with samples the receiver refused and that were not dead-lettered. */
    public static final int EXIT_REFUSED = ExitCodes.REFUSED;
    /** Exit code of a {@code --stop-at-end} job stopped by SIGTERM/SIGINT before the group committed every recorded end. */
    public static final int EXIT_STOPPED = ExitCodes.STOPPED;
    /** Exit code of {@code verify} when VictoriaMetrics could not be read back (unreachable or answering an error). */
    public static final int EXIT_UNREACHABLE = ExitCodes.UNREACHABLE;

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs the command line and returns the exit code (does not exit). */
    public static int execute(String... args) {
        return execute(commandLine(), args);
    }

    /**
     * Runs {@code cl} on {@code args}: with {@code --config FILE} the file is read first, for the subcommand named, and
     * its values become that command's defaults below its flags and variables; a bad file is one line and exit 2.
     */
    static int execute(CommandLine cl, String... args) {
        Optional<String> bad = readConfigFile(cl, Arrays.asList(args));
        if (bad.isPresent()) {
            cl.getErr().println("tsdb-writer: " + bad.get());
            return EXIT_USAGE;
        }
        return cl.execute(args);
    }

    /**
     * Reads {@code --config FILE} of {@code args}, if given, into the defaults of the subcommand {@code args} name.
     *
     * @return what is wrong with the file, in one line, or empty when it was read (or none was given)
     */
    static Optional<String> readConfigFile(CommandLine cl, List<String> args) {
        Optional<Path> file = ConfigFile.given(args);
        CommandLine sub = args.stream()
                .map(cl.getSubcommands()::get)
                .filter(Objects::nonNull)
                .findFirst()
                .orElse(null);
        if (file.isEmpty() || sub == null || !(cl.getDefaultValueProvider() instanceof EnvironmentDefaults defaults)) {
            return Optional.empty();
        }
        try {
            defaults.useFile(sub.getCommandName(), ConfigFile.load(file.get(), sub.getCommandSpec()));
            return Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.of(e.getMessage());
        }
    }

    static CommandLine commandLine() {
        return commandLine(System.getenv());
    }

    /** The command line with {@code env} as the environment its {@code TSDB_WRITER_*} defaults come from (tests). */
    static CommandLine commandLine(Map<String, String> env) {
        CommandLine cl = new CommandLine(new Main());
        // 120 columns where the terminal's width is unknown (a pipe, a log): the descriptions' URLs fit unbroken
        cl.setUsageHelpWidth(120);
        EnvironmentDefaults defaults = new EnvironmentDefaults(env);
        cl.setDefaultValueProvider(defaults);
        HelpRenderer.install(cl, defaults);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setExecutionStrategy(parseResult -> {
            atStart(parseResult, defaults);
            return new CommandLine.RunLast().execute(parseResult);
        });
        cl.setParameterExceptionHandler((ex, args) -> {
            PrintWriter err = ex.getCommandLine().getErr();
            String message = ex.getMessage();
            if (ex.getArgSpec() instanceof CommandLine.Model.OptionSpec o
                    && Set.of("--kafka-property", "--consumer-property", "--vm-header")
                            .contains(o.longestName())) {
                message = "invalid value for " + o.longestName() + " (value not shown: it may be a secret); expected "
                        + o.paramLabel();
            }
            if (ex instanceof CommandLine.OverwrittenOptionException over
                    && over.getOverwritten() instanceof CommandLine.Model.OptionSpec o) {
                message = DeprecatedNames.bothGiven(o, args).orElse(message); // an old and a new name of one option
            }
            if (ex.getArgSpec() instanceof CommandLine.Model.OptionSpec o && fromEnvironment(o, args, defaults)) {
                // the value came from the environment, not the command line: name the variable the operator must fix
                message = "environment variable " + defaults.variableOf(o).orElseThrow() + ": " + message;
            }
            err.println("tsdb-writer: " + message + " (see '"
                    + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help')");
            return EXIT_USAGE;
        });
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            if (ex instanceof IllegalArgumentException) {
                String message = ex.getMessage();
                Matcher flag = Pattern.compile("^(--[a-z0-9-]+)").matcher(message == null ? "" : message);
                if (flag.find()
                        && commandLine.getCommandSpec().findOption(flag.group(1))
                                instanceof CommandLine.Model.OptionSpec o
                        && fromEnvironment(o, parseResult.originalArgs().toArray(String[]::new), defaults)) {
                    message = "environment variable " + defaults.variableOf(o).orElseThrow() + ": " + message;
                }
                commandLine.getErr().println("tsdb-writer: " + message);
                return EXIT_USAGE;
            }
            throw ex;
        });
        return cl;
    }

    /**
     * What every command does after parsing and before it runs (not for {@code --help} nor {@code --version}): its
     * {@code --log-format} applied, and for {@code run} and {@code check} one WARN for each unknown {@code TSDB_WRITER_*} variable
     * ({@link EnvironmentDefaults#unknownVariables}).
     */
    private static void atStart(CommandLine.ParseResult parseResult, EnvironmentDefaults defaults) {
        CommandLine.ParseResult leaf = parseResult;
        while (leaf.subcommand() != null) {
            leaf = leaf.subcommand();
        }
        if (leaf.isUsageHelpRequested() || leaf.isVersionHelpRequested()) {
            return;
        }
        CommandLine.Model.CommandSpec spec = leaf.commandSpec();
        if (spec.findOption(LogOptions.FLAG) instanceof CommandLine.Model.OptionSpec format
                && format.getValue() instanceof LogFormat f) {
            f.apply();
        }
        if (spec.findOption(LogOptions.LEVEL_FLAG) instanceof CommandLine.Model.OptionSpec level
                && level.getValue() instanceof LogOptions.LogLevel l) {
            l.apply();
        }
        DeprecatedNames.used(spec.name(), parseResult.originalArgs())
                .forEach(LOG::warn); // troubleshooting: is a deprecated name of
        if (EnvironmentDefaults.COMMAND.equals(spec.name()) || EnvironmentDefaults.CHECK.equals(spec.name())) {
            defaults.unknownVariables(spec)
                    .forEach(LOG::warn); // troubleshooting: is no variable of tsdb-writer run (no option maps to
            // it), ignored: did you mean
            defaults.deprecatedVariables().forEach(LOG::warn); // troubleshooting: is a deprecated variable
        }
    }

    /** True when option {@code o} is not on the command line and took its value from its {@code TSDB_WRITER_*} variable. */
    private static boolean fromEnvironment(
            CommandLine.Model.OptionSpec o, String[] args, EnvironmentDefaults defaults) {
        if (defaults.variableOf(o).isEmpty()) {
            return false;
        }
        for (String a : args) {
            for (String name : o.names()) {
                if (a.equals(name) || a.startsWith(name + "=")) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Two lines: {@code tsdb-writer <version> (commit <abbrev>)} from the jar's manifest ({@code dev} when run from
     * classes, no commit when built outside a git checkout), then {@code JDK <version> (<vendor>, <java.home>)} of the
     * JVM running it.
     */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            String commit = null;
            try (InputStream in = Main.class.getResourceAsStream("/META-INF/MANIFEST.MF")) {
                if (in != null) {
                    commit = new Manifest(in).getMainAttributes().getValue("Build-Commit");
                }
            } catch (IOException e) {
                // no commit to show
            }
            boolean known = commit != null
                    && !commit.isBlank()
                    && !commit.startsWith("${"); // built outside a git checkout: none
            return new String[] {
                "tsdb-writer " + (v == null ? "dev" : v) + (known ? " (commit " + commit + ")" : ""),
                "JDK " + Runtime.version() + " (" + System.getProperty("java.vendor") + ", "
                        + System.getProperty("java.home") + ")"
            };
        }
    }
}
