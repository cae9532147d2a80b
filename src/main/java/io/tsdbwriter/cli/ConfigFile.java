package io.tsdbwriter.cli;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code --config FILE}: one YAML file of a command's settings, as Telegraf, the OpenTelemetry Collector and Vector
 * take one. Its keys are the command's long flag names without the dashes ({@code topic: metrics},
 * {@code time-multiplier: 12}); a key may sit under one of the command's help headings, written in lower case with
 * dashes ({@code kafka-connection-and-consumption:} → {@code topic: …}), as {@code --help} groups them. A value is a
 * scalar, or a list for an option that takes several values. Precedence: a flag on the command line, then its
 * {@code TSDB_WRITER_*} variable ({@code run}'s), then the file, then the built-in default. An unknown key is an error
 * naming the nearest known one. The file's values are never printed (they may be secrets). Immutable once loaded.
 */
final class ConfigFile {

    /** The flag's name. */
    static final String FLAG = "--config";

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private final Path path;
    private final Map<String, String> values;

    private ConfigFile(Path path, Map<String, String> values) {
        this.path = path;
        this.values = values;
    }

    /** The file. */
    Path path() {
        return path;
    }

    /** The file's value of {@code option} as picocli takes a default (several values joined by its split), if set. */
    Optional<String> valueOf(OptionSpec option) {
        return Optional.ofNullable(values.get(option.longestName()));
    }

    /** The {@code --config} value of {@code args} ({@code --config FILE} or {@code --config=FILE}), if given. */
    static Optional<Path> given(List<String> args) {
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--")) {
                break;
            }
            if (a.equals(FLAG) && i + 1 < args.size()) {
                return Optional.of(Path.of(args.get(i + 1)));
            }
            if (a.startsWith(FLAG + "=")) {
                return Optional.of(Path.of(a.substring(FLAG.length() + 1)));
            }
        }
        return Optional.empty();
    }

    /**
     * Reads {@code file} for {@code command}.
     *
     * @throws IllegalArgumentException one line naming the file and what is wrong: missing or unreadable, not YAML, not
     *     a mapping, an unknown key (with the nearest known one), a list for an option that takes one value
     */
    static ConfigFile load(Path file, CommandSpec command) {
        JsonNode root;
        try {
            root = YAML.readTree(Files.newBufferedReader(file));
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(FLAG + " " + file + ": no such file");
        } catch (JsonProcessingException e) { // its original message and place only: never the file's text
            JsonLocation at = e.getLocation();
            throw new IllegalArgumentException(FLAG + " " + file + ": not YAML"
                    + (at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr()) + ": "
                    + firstLine(e.getOriginalMessage()));
        } catch (IOException e) {
            throw new IllegalArgumentException(FLAG + " " + file + ": not readable: " + firstLine(e.getMessage()));
        }
        Map<String, String> values = new LinkedHashMap<>();
        if (root == null || root.isMissingNode() || root.isNull()) {
            return new ConfigFile(file, values); // an empty file sets nothing
        }
        if (!root.isObject()) {
            throw new IllegalArgumentException(FLAG + " " + file + ": expected a mapping of flag names to values");
        }
        Map<String, OptionSpec> options = new LinkedHashMap<>();
        for (OptionSpec o : command.options()) {
            if (!o.usageHelp() && !o.versionHelp() && !o.longestName().equals(FLAG)) {
                options.put(o.longestName().replaceFirst("^-+", ""), o);
            }
        }
        List<String> groups = new ArrayList<>();
        for (HelpGroups.Group g : HelpGroups.of(command)) {
            groups.add(groupKey(g.heading()));
        }
        read(file, root, "", options, groups, values);
        return new ConfigFile(file, values);
    }

    private static void read(
            Path file,
            JsonNode node,
            String under,
            Map<String, OptionSpec> options,
            List<String> groups,
            Map<String, String> values) {
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String key = e.getKey();
            OptionSpec o = options.get(key);
            if (o == null
                    && under.isEmpty()
                    && groups.contains(key)
                    && e.getValue().isObject()) {
                read(file, e.getValue(), key, options, groups, values);
                continue;
            }
            if (o == null) {
                List<String> known = new ArrayList<>(options.keySet());
                if (under.isEmpty()) {
                    known.addAll(groups);
                }
                throw new IllegalArgumentException(
                        FLAG + " " + file + ": unknown key '" + (under.isEmpty() ? "" : under + ".") + key + "'"
                                + nearest(key, known)
                                        .map(n -> ": did you mean '" + n + "'?")
                                        .orElse(""));
            }
            if (values.containsKey(o.longestName())) {
                throw new IllegalArgumentException(FLAG + " " + file + ": '" + key + "' is given twice");
            }
            values.put(o.longestName(), value(file, key, o, e.getValue()));
        }
    }

    private static String value(Path file, String key, OptionSpec o, JsonNode v) {
        if (v.isObject()) {
            if (!o.isMultiValue()) {
                throw new IllegalArgumentException(
                        FLAG + " " + file + ": '" + key + "' takes one value, not a mapping");
            }
            List<String> entries = new ArrayList<>();
            v.fields()
                    .forEachRemaining(
                            f -> entries.add(f.getKey() + "=" + f.getValue().asText()));
            return joined(file, key, o, entries);
        }
        if (v.isArray()) {
            if (!o.isMultiValue()) {
                throw new IllegalArgumentException(FLAG + " " + file + ": '" + key + "' takes one value, not a list");
            }
            List<String> items = new ArrayList<>();
            v.forEach(item -> items.add(item.asText()));
            return joined(file, key, o, items);
        }
        return v.isNull() ? "" : v.asText();
    }

    /** Several values as one default: joined by the option's split; one value needs none. */
    private static String joined(Path file, String key, OptionSpec o, List<String> items) {
        if (items.size() == 1) {
            return items.get(0);
        }
        String split = o.splitRegex();
        if (split == null || split.isEmpty()) {
            throw new IllegalArgumentException(FLAG + " " + file + ": '" + key
                    + "' takes one value in a file (give the others on the command line)");
        }
        String separator = split.replace("\\", "");
        for (String item : items) {
            if (item.contains(separator)) {
                throw new IllegalArgumentException(
                        FLAG + " " + file + ": a value of '" + key + "' contains '" + separator + "', its separator");
            }
        }
        return String.join(separator, items);
    }

    /** A help heading as a key: lower case, runs of other characters as one dash ("Kafka connection" → kafka-connection). */
    static String groupKey(String heading) {
        return heading.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-|-$", "");
    }

    private static Optional<String> nearest(String key, List<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String k : known) {
            int d = EnvironmentDefaults.editDistance(key, k);
            if (d < bestDistance) {
                bestDistance = d;
                best = k;
            }
        }
        return Optional.ofNullable(best);
    }

    private static String firstLine(String message) {
        String m = String.valueOf(message);
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
