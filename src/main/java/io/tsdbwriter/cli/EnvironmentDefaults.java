package io.tsdbwriter.cli;

import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;

/**
 * Lets every option be set by an environment variable: {@code TSDB_WRITER_} + the long option name upper-cased
 * with dashes as underscores ({@code --time-multiplier} ← {@code TSDB_WRITER_TIME_MULTIPLIER}). A flag on the
 * command line wins over the variable; the variable wins over the built-in default.
 */
final class EnvironmentDefaults implements CommandLine.IDefaultValueProvider {

    /** Prefix of every variable. */
    static final String PREFIX = "TSDB_WRITER_";

    private final Map<String, String> env;

    EnvironmentDefaults(Map<String, String> env) {
        this.env = env;
    }

    /** The variable for a long option name such as {@code --vm-url}. */
    static String variableFor(String longName) {
        return PREFIX + longName.replaceFirst("^-+", "").replace('-', '_').toUpperCase(Locale.ROOT);
    }

    @Override
    public String defaultValue(CommandLine.Model.ArgSpec argSpec) {
        if (argSpec instanceof CommandLine.Model.OptionSpec opt) {
            String v = env.get(variableFor(opt.longestName()));
            if (v != null) {
                return v;
            }
        }
        return argSpec.defaultValue();
    }
}
