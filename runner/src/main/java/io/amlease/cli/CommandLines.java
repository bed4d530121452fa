package io.amlease.cli;

import io.amlease.lease.LeaseConfigException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.DefaultParser;
import org.apache.commons.cli.HelpFormatter;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;
import org.apache.commons.cli.ParseException;

/**
 * Parsing shared by the subcommands: flags map to {@code amlease.*} keys, {@code -D key=value} sets
 * any key, and configuration errors are reported with the flag the user typed.
 */
final class CommandLines {
  /** A usage error: message already names the flag. */
  static final class UsageException extends Exception {
    UsageException(String message) {
      super(message);
    }
  }

  private final String command;
  private final Options options = new Options();
  private final Map<String, String> flagToKey = new LinkedHashMap<>();

  CommandLines(String command) {
    this.command = command;
    options.addOption(Option.builder("h").longOpt("help").desc("print this help and exit").build());
    options.addOption(Option.builder("D").argName("key=value").numberOfArgs(2).valueSeparator('=')
        .desc("set any amlease.* configuration key").build());
  }

  /** A flag with a value that sets configuration {@code key}. */
  CommandLines keyed(String flag, String argName, String key, String description) {
    options.addOption(Option.builder().longOpt(flag).hasArg().argName(argName)
        .desc(description + " [" + key + "]").build());
    flagToKey.put(flag, key);
    return this;
  }

  CommandLines flag(String flag, String argName, String description) {
    Option.Builder b = Option.builder().longOpt(flag).desc(description);
    if (argName != null) {
      b.hasArg().argName(argName);
    }
    options.addOption(b.build());
    return this;
  }

  /**
   * Parses the flags before the first {@code --} strictly (an unknown flag is an error); what follows
   * {@code --}, and any plain argument before it, is in {@link Parsed#arguments()}.
   */
  Parsed parse(String[] args) throws UsageException {
    List<String> all = Arrays.asList(args);
    int dashes = all.indexOf("--");
    List<String> flags = dashes < 0 ? all : all.subList(0, dashes);
    try {
      CommandLine cl = DefaultParser.builder().setAllowPartialMatching(false).get()
          .parse(options, flags.toArray(String[]::new), false);
      List<String> arguments = new ArrayList<>(cl.getArgList());
      if (dashes >= 0) {
        arguments.addAll(all.subList(dashes + 1, all.size()));
      }
      return new Parsed(cl, List.copyOf(arguments));
    } catch (ParseException e) {
      throw new UsageException(e.getMessage() + (dashes < 0 ? " (put COMMAND and its flags after --)"
          : ""));
    }
  }

  /** Parsed flags plus the positional arguments. */
  record Parsed(CommandLine flags, List<String> arguments) {}

  /** The {@code amlease.*} keys set by flags and {@code -D}; flags win over {@code -D}. */
  Map<String, String> keys(CommandLine cl) {
    Map<String, String> conf = new LinkedHashMap<>();
    Properties d = cl.getOptionProperties("D");
    d.stringPropertyNames().forEach(k -> conf.put(k, d.getProperty(k)));
    flagToKey.forEach((flag, key) -> {
      if (cl.hasOption(flag)) {
        conf.put(key, cl.getOptionValue(flag));
      }
    });
    return conf;
  }

  /** The message of a config error, led by the flag that maps to the bad key. */
  String describe(LeaseConfigException e) {
    return flagToKey.entrySet().stream().filter(en -> en.getValue().equals(e.key()))
        .map(en -> "--" + en.getKey() + ": ").findFirst().orElse("") + e.getMessage();
  }

  String help(String syntax, String header, String footer) {
    StringWriter out = new StringWriter();
    HelpFormatter f = HelpFormatter.builder().get();
    f.printHelp(new PrintWriter(out), 100, syntax, header, options, 2, 4, footer);
    return out.toString();
  }

  String command() {
    return command;
  }
}
