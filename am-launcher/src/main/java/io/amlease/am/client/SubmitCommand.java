package io.amlease.am.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.amlease.am.AmSettings;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseConfigException;
import io.amlease.lease.LeaseException;
import io.amlease.lease.zk.ZkClients;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.DefaultParser;
import org.apache.commons.cli.HelpFormatter;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;
import org.apache.commons.cli.ParseException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * {@code amlease submit}: validates everything it can before touching YARN (flags, the G2 timing,
 * ZooKeeper reachability, queue and resource limits), so that bad input submits nothing. Runs through
 * {@code ToolRunner}, so {@code -conf FILE} and {@code -D key=value} work as in every Hadoop tool.
 */
public final class SubmitCommand extends Configured implements Tool {
  public static final int USAGE = 64;
  public static final int UNAVAILABLE = 69;

  private static final String[][] FLAGS = {
      {"name", "NAME", AmSettings.NAME, "application name (required)"},
      {"zk", "CONNECT", LeaseConfig.CONNECT, "ZooKeeper connect string (required)"},
      {"lease", "PATH", LeaseConfig.LEASE_PATH, "lease path (default /amlease/NAME)"},
      {"queue", "Q", AmSettings.QUEUE, "YARN queue (default default)"},
      {"am-memory", "MB", AmSettings.AM_MEMORY, "AM container memory (default 512)"},
      {"am-vcores", "N", AmSettings.AM_VCORES, "AM container vcores (default 1)"},
      {"session-timeout", "D", LeaseConfig.SESSION_TIMEOUT, "ZooKeeper session timeout (default 30s)"},
      {"grace", "D", LeaseConfig.GRACE, "lease grace (default min(2T/3, G2 bound))"},
      {"acl-credentials", "FILE", LeaseConfig.ACL_CREDENTIALS, "ZooKeeper digest credentials "
          + "(one line user:password); shipped privately to the AM"},
      {"stop-timeout", "D", LeaseConfig.STOP_TIMEOUT, "SIGKILL the master this long after SIGTERM "
          + "(default 5s)"},
      {"max-attempts", "N", AmSettings.MAX_ATTEMPTS, "AM attempts (default 4)"},
      {"attempt-validity", "D", AmSettings.ATTEMPT_VALIDITY, "attempt failures validity (default 1h)"},
      {"workers", "N", AmSettings.WORKERS, "worker containers (default 0)"},
      {"worker-max-failures", "N", AmSettings.WORKER_MAX_FAILURES, "fail the application after "
          + "more worker failures than this within --worker-failures-validity (default 2 x "
          + "workers, at least 3)"},
      {"worker-failures-validity", "D", AmSettings.WORKER_FAILURES_VALIDITY, "window in which "
          + "worker failures count (default 1h)"},
      {"worker-command", "CMD", AmSettings.WORKER_COMMAND, "shell command each worker runs"},
      {"worker-memory", "MB", AmSettings.WORKER_MEMORY, "worker memory (default 256)"},
      {"worker-vcores", "N", AmSettings.WORKER_VCORES, "worker vcores (default 1)"},
      {"node-label", "LABEL", AmSettings.NODE_LABEL, "node label (partition) for the workers, and "
          + "for the AM unless --am-node-label (default: the queue's)"},
      {"am-node-label", "LABEL", AmSettings.AM_NODE_LABEL, "node label for the AM container "
          + "(default: --node-label)"},
      {"principal", "P", AmSettings.PRINCIPAL, "Kerberos principal the AM logs in as, from "
          + "--keytab, for fresh delegation tokens on a secure cluster (and for ZooKeeper SASL: "
          + "-D " + LeaseConfig.SASL_PRINCIPAL + "=…)"},
      {"keytab", "FILE", AmSettings.KEYTAB, "keytab of --principal; shipped privately to the AM "
          + "container only"},
      {"am-java-opts", "OPTS", AmSettings.AM_JAVA_OPTS, "more options for the AM's JVM, e.g. "
          + "-Djava.security.krb5.conf=FILE"},
      {"metrics-port", "PORT", AmSettings.METRICS_PORT, "also serve /metrics alone on this port of "
          + "the AM host, open to scrapers (0: any free port; default none: the status page, "
          + "status.json and metrics only through the RM's web proxy)"},
  };

  private final PrintStream out;
  private final PrintStream err;
  private final List<String> masterCommand;

  public SubmitCommand(PrintStream out, PrintStream err) {
    this(out, err, List.of());
  }

  private SubmitCommand(PrintStream out, PrintStream err, List<String> masterCommand) {
    this.out = out;
    this.err = err;
    this.masterCommand = List.copyOf(masterCommand);
  }

  /**
   * {@code amlease submit ARGS}: what comes before the first {@code --} goes through
   * {@link ToolRunner} (Hadoop's generic options, then ours), and everything after it is
   * MASTER-COMMAND, verbatim. Hadoop's {@code GenericOptionsParser} must never see MASTER-COMMAND:
   * it drops every {@code --} it meets, so {@code -- java -Xmx1g …} would reach our parser as
   * options.
   */
  public static int submit(Configuration conf, PrintStream out, PrintStream err, String... args)
      throws Exception {
    int dashes = Arrays.asList(args).indexOf("--");
    if (dashes < 0) {
      return ToolRunner.run(conf, new SubmitCommand(out, err), args);
    }
    List<String> master = Arrays.asList(args).subList(dashes + 1, args.length);
    return ToolRunner.run(conf, new SubmitCommand(out, err, master),
        Arrays.copyOfRange(args, 0, dashes));
  }

  static Options options() {
    Options o = new Options();
    for (String[] f : FLAGS) {
      o.addOption(Option.builder().longOpt(f[0]).hasArg().argName(f[1])
          .desc(f[3] + " [" + f[2] + "]").build());
    }
    o.addOption(Option.builder().longOpt("file").hasArg().argName("LOCAL")
        .desc("ship a local file to the working directory of the master and of every worker "
            + "(repeatable)").build());
    o.addOption(Option.builder().longOpt("archive").hasArg().argName("LOCAL")
        .desc("ship a local archive (" + String.join(", ", AmSettings.ARCHIVE_SUFFIXES) + "), "
            + "unpacked by YARN into a directory of its name in the working directory of the "
            + "master and of every worker (repeatable)").build());
    o.addOption(Option.builder().longOpt("env").hasArg().argName("K=V")
        .desc("environment for the master and workers (repeatable)").build());
    o.addOption(Option.builder().longOpt("am-jar").hasArg().argName("JAR")
        .desc("the shaded AM jar (default: the jar this command runs from)").build());
    o.addOption(Option.builder().longOpt("wait").desc("print state changes until the end; exit 0 "
        + "on SUCCEEDED, 1 otherwise").build());
    o.addOption(Option.builder("h").longOpt("help").desc("print this help").build());
    return o;
  }

  public static String help() {
    StringWriter s = new StringWriter();
    HelpFormatter.builder().get().printHelp(new PrintWriter(s), 100,
        "amlease submit --name NAME --zk CONNECT [options] -- MASTER-COMMAND [ARGS...]",
        "Submits a long-running YARN application whose AM holds the amlease lease.\n"
            + "Hadoop generic options (-conf FILE, -D key=value) come first.\n\n", options(), 2, 4,
        "\nExit status: 0 submitted (with --wait: SUCCEEDED), 1 (--wait) the application did not "
            + "succeed,\n64 bad input (nothing submitted), 69 ZooKeeper or YARN unreachable.");
    return s.toString();
  }

  @Override
  public int run(String[] args) throws Exception {
    List<String> all = Arrays.asList(args);
    int dashes = all.indexOf("--");
    CommandLine cl;
    try {
      cl = DefaultParser.builder().setAllowPartialMatching(false).get()
          .parse(options(), (dashes < 0 ? all : all.subList(0, dashes)).toArray(String[]::new));
    } catch (ParseException e) {
      return usage(e.getMessage());
    }
    if (cl.hasOption("help")) {
      out.print(help());
      return 0;
    }
    List<String> master = new ArrayList<>(cl.getArgList());
    if (dashes >= 0) {
      master.addAll(all.subList(dashes + 1, all.size()));
    }
    master.addAll(masterCommand);
    Configuration conf = new YarnConfiguration(getConf());
    for (String[] f : FLAGS) {
      if (cl.hasOption(f[0])) {
        conf.set(f[2], cl.getOptionValue(f[0]));
      }
    }
    Map<String, String> env = new LinkedHashMap<>();
    for (String kv : cl.getOptionValues("env") == null ? new String[0] : cl.getOptionValues("env")) {
      int eq = kv.indexOf('=');
      if (eq < 1) {
        return usage("--env: '" + kv + "' must be KEY=VALUE");
      }
      env.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    List<Path> files = new ArrayList<>();
    for (String f : cl.getOptionValues("file") == null ? new String[0] : cl.getOptionValues("file")) {
      Path p = Path.of(f);
      if (!p.toFile().isFile()) {
        return usage("--file: " + f + " is not a readable file");
      }
      files.add(p);
    }
    List<Path> archives = new ArrayList<>();
    for (String a : cl.getOptionValues("archive") == null ? new String[0]
        : cl.getOptionValues("archive")) {
      Path p = Path.of(a);
      if (!p.toFile().isFile()) {
        return usage("--archive: " + a + " is not a readable file");
      }
      archives.add(p);
    }
    ObjectMapper json = new ObjectMapper();
    conf.set(AmSettings.MASTER_COMMAND, json.writeValueAsString(master));
    conf.set(AmSettings.ENV, json.writeValueAsString(env));
    conf.set(AmSettings.FILES, json.writeValueAsString(
        files.stream().map(p -> p.getFileName().toString()).toList()));
    conf.set(AmSettings.ARCHIVES, json.writeValueAsString(
        archives.stream().map(p -> p.getFileName().toString()).toList()));
    AmSettings settings;
    try {
      settings = AmSettings.from(conf);
    } catch (LeaseConfigException e) {
      return usage(flagFor(e.key()) + e.getMessage());
    }
    java.io.File keytab = new java.io.File(settings.keytab());
    if (!settings.keytab().isEmpty() && !(keytab.isFile() && keytab.canRead())) {
      return usage("--keytab: " + settings.keytab() + " is not a readable file");
    }
    try (CuratorFramework zk = ZkClients.connectReader(settings.lease().connectString(),
        settings.lease().connectionTimeout())) {
      // Reachable: the AM will be able to campaign (the server's clamping is checked by the AM).
    } catch (LeaseException.Unavailable e) {
      err.println("amlease submit: " + e.getMessage() + "; nothing submitted");
      return UNAVAILABLE;
    }
    Path amJar = cl.hasOption("am-jar") ? Path.of(cl.getOptionValue("am-jar")) : ownJar();
    if (amJar == null || !amJar.toFile().isFile()) {
      return usage("--am-jar: no AM jar (" + amJar + "); build with mvn package or pass --am-jar");
    }
    try (YarnSubmitter submitter = new YarnSubmitter(conf, out, err)) {
      return submitter.submit(settings, amJar, files, archives, cl.hasOption("wait"));
    } catch (YarnSubmitter.Rejected e) {
      return usage(e.getMessage());
    }
  }

  private int usage(String message) {
    err.println("amlease submit: " + message);
    err.println("(see amlease submit --help)");
    return USAGE;
  }

  private static String flagFor(String key) {
    if (AmSettings.FILES.equals(key)) {
      return "--file: ";
    }
    if (AmSettings.ARCHIVES.equals(key)) {
      return "--archive: ";
    }
    for (String[] f : FLAGS) {
      if (f[2].equals(key)) {
        return "--" + f[0] + ": ";
      }
    }
    return "";
  }

  /** bin/amlease names the shaded jar it built; a jar-packaged install is its own AM jar. */
  private static Path ownJar() {
    String named = System.getProperty("amlease.am.jar");
    if (named != null && !named.isBlank()) {
      return Path.of(named);
    }
    try {
      Path p = Path.of(SubmitCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return p.toString().endsWith(".jar") ? p : null;
    } catch (Exception e) {
      return null;
    }
  }
}
