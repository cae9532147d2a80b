package io.tsdbwriter.cli;

import java.util.List;
import java.util.Stack;
import picocli.CommandLine.IParameterConsumer;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * Takes an option's value verbatim even when it looks like one of this command's own options: {@code bench
 * --writer-arg=--kafka-property=check.crcs=false} passes {@code --kafka-property=check.crcs=false} on to every writer,
 * where picocli's default would refuse it ("Expected parameter for option '--writer-arg'") because {@code bench} has a
 * {@code --kafka-property} too. For repeatable {@code List<String>} options ({@code --writer-arg},
 * {@code --writer-jvm-option}). Stateless and thread-safe.
 */
public final class VerbatimParameter implements IParameterConsumer {

    @Override
    public void consumeParameters(Stack<String> args, ArgSpec argSpec, CommandSpec commandSpec) {
        if (args.isEmpty()) {
            throw new ParameterException(
                    commandSpec.commandLine(),
                    "Missing required parameter for option '"
                            + ((picocli.CommandLine.Model.OptionSpec) argSpec).longestName() + "' ("
                            + argSpec.paramLabel() + ")");
        }
        List<String> values = argSpec.getValue();
        values.add(args.pop());
    }
}
