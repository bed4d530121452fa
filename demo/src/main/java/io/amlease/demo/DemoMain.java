package io.amlease.demo;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.DefaultParser;
import org.apache.commons.cli.HelpFormatter;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;
import org.apache.commons.cli.ParseException;

/** {@code bin/amlease demo}: parse flags, run the demo, clean up, exit with a documented status. */
public final class DemoMain {
  static final int INTERNAL_ERROR = 70;
  static final int USAGE = 64;
  /** Set by demo/run.sh: the shaded AM jar it built. */
  static final String AM_JAR_PROPERTY = "amlease.am.jar";
  /** Set by demo/run.sh: where the last run's logs are kept. */
  static final String LOG_DIR_PROPERTY = "amlease.demo.log.dir";

  private DemoMain() {}

  static Options options() {
    Options o = new Options();
    o.addOption(Option.builder().longOpt("keep-running").desc("after the failover, leave the "
        + "cluster and the application up and print the ResourceManager's and the AM's URLs; "
        + "Ctrl-C stops and cleans up").get());
    o.addOption(Option.builder("h").longOpt("help").desc("print this help").get());
    return o;
  }

  static String help() {
    StringWriter s = new StringWriter();
    HelpFormatter.builder().get().printHelp(new PrintWriter(s), 100, "amlease demo [--keep-running]",
        "Starts ZooKeeper and a MiniYARNCluster (2 NodeManagers) in one JVM, submits a sample "
            + "application (a master that prints its epoch every second, 2 workers) and narrates: "
            + "attempt 1 leads; ZooKeeper blips shorter than the grace cost nothing; a partition "
            + "longer than the grace makes attempt 1 quit before its session ends and attempt 2 "
            + "lead in epoch 2 with the same workers; a clean finish. Ends with a summary table "
            + "and removes everything it started. One to two minutes.\n\n",
        options(), 2, 4,
        "\nExit status: 0 the demo behaved as designed, 1 a step did not (the output says which and "
            + "why),\n64 bad flags, 70 internal error. With --keep-running it runs until "
            + "interrupted.");
    return s.toString();
  }

  public static void main(String[] args) {
    CommandLine cl;
    try {
      cl = DefaultParser.builder().setAllowPartialMatching(false).get().parse(options(), args);
    } catch (ParseException e) {
      System.err.println("amlease demo: " + e.getMessage() + " (see amlease demo --help)");
      System.exit(USAGE);
      return;
    }
    if (cl.hasOption("help")) {
      System.out.print(help());
      System.exit(0);
    }
    if (!cl.getArgList().isEmpty()) {
      System.err.println("amlease demo: unexpected arguments " + cl.getArgList()
          + " (see amlease demo --help)");
      System.exit(USAGE);
    }
    DemoConfig config;
    try {
      String logDir = System.getProperty(LOG_DIR_PROPERTY);
      String amJar = System.getProperty(AM_JAR_PROPERTY);
      config = new DemoConfig(amJar == null ? null : Path.of(amJar),
          logDir == null ? null : Path.of(logDir), cl.hasOption("keep-running"));
    } catch (IllegalArgumentException e) {
      System.err.println("amlease demo: " + e.getMessage());
      System.exit(INTERNAL_ERROR);
      return;
    }
    System.exit(run(config));
  }

  private static int run(DemoConfig config) {
    Narrator say = new Narrator(System.out);
    Demo demo = new Demo(config, say);
    Thread hook = new Thread(() -> {
      try {
        demo.close();
      } catch (Exception e) {
        System.err.println("amlease demo: clean-up failed: " + e);
      }
    }, "demo-cleanup");
    Runtime.getRuntime().addShutdownHook(hook);
    int exit;
    try {
      exit = demo.run();
    } catch (Exception e) {
      System.err.println("amlease demo: internal error: " + e);
      e.printStackTrace();
      exit = INTERNAL_ERROR;
    }
    try {
      demo.close();
    } catch (Exception e) {
      System.err.println("amlease demo: clean-up failed: " + e);
      exit = exit == 0 ? INTERNAL_ERROR : exit;
    }
    if (config.logDir() != null) {
      say.plain("Logs of this run: " + config.logDir());
    }
    return exit;
  }
}
