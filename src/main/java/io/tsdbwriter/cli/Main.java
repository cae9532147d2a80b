package io.tsdbwriter.cli;

import java.io.PrintWriter;
import picocli.CommandLine;

/**
 * {@code tsdb-writer}: Kafka → VictoriaMetrics writer with M × N amplification and an efficiency report.
 * Exit codes: 0 done, 1 a fault, 2 bad flags, 3 done with samples refused and not dead-lettered, 4 a {@code --stop-at-end}
 * job stopped by a signal before its end ({@code run --help} says each).
 */
@CommandLine.Command(name = "tsdb-writer", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = {"Reads time-series points from Kafka and writes them into VictoriaMetrics through /api/v1/import,",
                "optionally amplifying each point M times in time and N times across instances, and reports efficiency",
                "(samples written per minute / samples expected per minute).",
                "Every option can also be set by an environment variable: TSDB_WRITER_<OPTION>, e.g. TSDB_WRITER_TIME_MULTIPLIER."},
        subcommands = {RunCommand.class, ProduceCommand.class, VerifyCommand.class, BenchCommand.class, CapacityCommand.class,
                CommandLine.HelpCommand.class})
public final class Main {

    /** Exit code of a job that is done (DESIGN §5). */
    public static final int EXIT_OK = 0;
    /** Exit code of a fault: Kafka unreachable or refusing us, a configuration fault past its timeout, a thread died. */
    public static final int EXIT_FAULT = 1;
    /** Exit code for bad flags. */
    public static final int EXIT_USAGE = 2;
    /** Exit code of a job that is done, but with samples the receiver refused and that were not dead-lettered. */
    public static final int EXIT_REFUSED = 3;
    /** Exit code of a {@code --stop-at-end} job stopped by SIGTERM/SIGINT before the group committed every recorded end. */
    public static final int EXIT_STOPPED = 4;

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs the command line and returns the exit code (does not exit). */
    public static int execute(String... args) {
        CommandLine cl = commandLine();
        return cl.execute(args);
    }

    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setDefaultValueProvider(new EnvironmentDefaults(System.getenv()));
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setParameterExceptionHandler((ex, args) -> {
            PrintWriter err = ex.getCommandLine().getErr();
            String message = ex.getMessage();
            if (ex.getArgSpec() instanceof CommandLine.Model.OptionSpec o
                    && java.util.Set.of("--kafka-property", "--consumer-property", "--vm-header").contains(o.longestName())) {
                message = "invalid value for " + o.longestName() + " (value not shown: it may be a secret); expected " + o.paramLabel();
            }
            err.println("tsdb-writer: " + message + " (see '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help')");
            return EXIT_USAGE;
        });
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            if (ex instanceof IllegalArgumentException) {
                commandLine.getErr().println("tsdb-writer: " + ex.getMessage());
                return EXIT_USAGE;
            }
            throw ex;
        });
        return cl;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"tsdb-writer " + (v == null ? "dev" : v)};
        }
    }
}
