package io.amlease.bench;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import io.amlease.lease.Durations;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.DefaultParser;
import org.apache.commons.cli.HelpFormatter;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;
import org.apache.commons.cli.ParseException;

/** {@code amlease bench}: parse flags, run, write the results, exit. The only {@code System.exit}. */
public final class BenchMain {
  static final int OK = 0;
  static final int EXPECTATION_FAILED = 1;
  static final int USAGE = 64;
  static final int SOFTWARE = 70;

  private static final String FOOTER = """

      Compares amlease with Curator's LeaderLatch (default and SessionConnectionStateErrorPolicy)
      on the same injected faults, against real in-process ZooKeeper servers on loopback.
      Writes a table to stdout, DIR/results.json and DIR/timeline.svg; progress goes to stderr.
      --quick: T = 4 s, a few trials each, 50 leases (about 2.5 minutes on 2 cores).
      Full: T = 10 s, more trials, 1,000 leases (about 10 minutes on 2 cores).
      --torture DURATION: instead, seeded randomized trials on a 3-server ensemble until DURATION
      has passed (T = 6 s unless -T says otherwise; trial i uses seed N + i; --seed N --trials 1
      replays one trial). Writes a table to stdout and DIR/results.json.
      --flink: instead of the lease and Curator's latch, the amlease Flink plugin's leader
      election and Flink's own ZooKeeper HA (2.3.0; tolerate-suspended-connections off and on),
      on blips, partitions (with the old leader's writes) and handovers.

      Exit status:
        0    finished; every binding expectation held (see 'checks': those that follow
             from DESIGN.md's guarantees; '[note]' lines ask more and do not count);
             --torture: amlease had no violation of any kind
        1    finished; at least one binding expectation did not hold (see 'checks');
             --torture: amlease had a violation (its seeds are printed)
        64   bad flags
        70   the benchmark could not run (e.g. ZooKeeper did not start); see stderr""";

  /** T of the torture mode unless -T says otherwise: trials short enough to run many. */
  static final Duration TORTURE_T = Duration.ofSeconds(6);

  private BenchMain() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  static int run(String[] args, PrintStream out, PrintStream err) {
    Options options = options();
    CommandLine cl;
    long seed;
    try {
      cl = DefaultParser.builder().setAllowPartialMatching(false).get().parse(options, args, false);
      if (!cl.getArgList().isEmpty()) {
        throw new ParseException("unexpected argument '" + cl.getArgList().get(0) + "'");
      }
      seed = cl.hasOption("seed") ? Long.parseLong(cl.getOptionValue("seed")) : 1;
    } catch (ParseException e) {
      err.println("amlease bench: " + e.getMessage());
      err.print(help(options));
      return USAGE;
    } catch (NumberFormatException e) {
      err.println("amlease bench: --seed: not a whole number");
      return USAGE;
    }
    if (cl.hasOption("help")) {
      out.print(help(options));
      return OK;
    }
    Path dir = Path.of(cl.getOptionValue("out", "bench-results"));
    if (cl.hasOption("torture") && cl.hasOption("flink")) {
      err.println("amlease bench: --flink and --torture are different modes; pick one");
      return USAGE;
    }
    if (cl.hasOption("torture")) {
      return torture(cl, dir, seed, out, err);
    }
    if (cl.hasOption("trials")) {
      err.println("amlease bench: --trials goes with --torture");
      return USAGE;
    }
    BenchConfig cfg = cl.hasOption("quick") ? BenchConfig.quick(dir, seed) : BenchConfig.full(dir, seed);
    if (cl.hasOption("flink")) {
      cfg = cfg.flink();
    }
    if (cl.hasOption("session-timeout")) {
      try {
        cfg = cfg.withSessionTimeout(
            Durations.parse("--session-timeout", cl.getOptionValue("session-timeout")));
      } catch (IllegalArgumentException e) {
        err.println("amlease bench: " + e.getMessage());
        return USAGE;
      }
    }
    return run(cfg, out, err);
  }

  private static int torture(CommandLine cl, Path dir, long seed, PrintStream out, PrintStream err) {
    TortureConfig cfg;
    try {
      if (cl.hasOption("quick")) {
        throw new IllegalArgumentException("--quick and --torture are different modes; pick one");
      }
      Duration t = cl.hasOption("session-timeout")
          ? Durations.parse("--session-timeout", cl.getOptionValue("session-timeout"))
          : TORTURE_T;
      Duration length = Durations.parse("--torture", cl.getOptionValue("torture"));
      int trials = cl.hasOption("trials") ? Integer.parseInt(cl.getOptionValue("trials"))
          : Integer.MAX_VALUE;
      int parallel = cl.hasOption("parallel") ? Integer.parseInt(cl.getOptionValue("parallel"))
          : 1;
      cfg = TortureConfig.of(dir, seed, length, trials, t, parallel, cl.hasOption("keep-records"));
    } catch (NumberFormatException e) {
      err.println("amlease bench: --trials and --parallel take whole numbers");
      return USAGE;
    } catch (IllegalArgumentException e) {
      err.println("amlease bench: " + e.getMessage());
      return USAGE;
    }
    return run(cfg, out, err);
  }

  static int run(TortureConfig cfg, PrintStream out, PrintStream err) {
    try {
      Files.createDirectories(cfg.out());
      TortureResults r = TortureRun.run(cfg, err);
      r.writeJson(cfg.out().resolve("results.json"));
      TortureTable.print(r, out);
      out.println();
      out.println("wrote " + cfg.out().resolve("results.json"));
      if (r.trials() == 0) {
        err.println("amlease bench: no torture trial could run; see the errors above");
        return SOFTWARE;
      }
      return r.get(Contender.AMLEASE) == null || r.get(Contender.AMLEASE).violations() == 0 ? OK
          : EXPECTATION_FAILED;
    } catch (Exception e) {
      err.println("amlease bench: failed: " + e);
      e.printStackTrace(err);
      return SOFTWARE;
    }
  }

  static int run(BenchConfig cfg, PrintStream out, PrintStream err) {
    try {
      Files.createDirectories(cfg.out());
      Results r = Benchmark.run(cfg, err);
      r.writeJson(cfg.out().resolve("results.json"));
      if (!r.traces().isEmpty()) {
        TimelineSvg.write(r.traces(), cfg.out().resolve("timeline.svg"));
      }
      Table.print(r, out);
      out.println();
      out.println("wrote " + cfg.out().resolve("results.json")
          + (r.traces().isEmpty() ? "" : " and " + cfg.out().resolve("timeline.svg")));
      return r.checks().stream().allMatch(c -> c.held() || !c.binding()) ? OK : EXPECTATION_FAILED;
    } catch (Exception e) {
      err.println("amlease bench: failed: " + e);
      e.printStackTrace(err);
      return SOFTWARE;
    }
  }

  private static Options options() {
    Options o = new Options();
    o.addOption(Option.builder("h").longOpt("help").desc("print this help and exit").build());
    o.addOption(Option.builder().longOpt("quick").desc("short run: T = 4 s, few trials").build());
    o.addOption(Option.builder().longOpt("flink").desc("compare the amlease Flink plugin with "
        + "Flink's own ZooKeeper HA (tolerate-suspended-connections off and on) on blips, "
        + "partitions and handovers, instead of the lease with Curator's latch").build());
    o.addOption(Option.builder().longOpt("out").hasArg().argName("DIR")
        .desc("where results.json and timeline.svg go (default: bench-results)").build());
    o.addOption(Option.builder("T").longOpt("session-timeout").hasArg().argName("DURATION")
        .desc("T for every contender, within [2s, 10s] (default: 4s with --quick, else 10s; "
            + "--torture: within [4s, 10s], default 6s)")
        .build());
    o.addOption(Option.builder().longOpt("seed").hasArg().argName("N")
        .desc("base seed of the randomized trials (default: 1); trial i uses N + i").build());
    o.addOption(Option.builder().longOpt("torture").hasArg().argName("DURATION")
        .desc("torture mode: randomized trials on a 3-server ensemble for DURATION (e.g. 10m)")
        .build());
    o.addOption(Option.builder().longOpt("trials").hasArg().argName("N")
        .desc("with --torture: at most N trials (--seed N --trials 1 replays trial N)").build());
    o.addOption(Option.builder().longOpt("parallel").hasArg().argName("N")
        .desc("with --torture: N trials at once, each on its own ensemble (default 1)").build());
    o.addOption(Option.builder().longOpt("keep-records").desc("with --torture: keep every "
        + "trial's records (processes' stamps, writes, holder logs) under OUT/work/, not only "
        + "those of trials in which amlease violated something").build());
    return o;
  }

  private static String help(Options options) {
    StringWriter s = new StringWriter();
    HelpFormatter.builder().get().printHelp(new PrintWriter(s), 100,
        "amlease bench [--quick] [--flink | --torture DURATION [--trials N]] [--out DIR] [--seed N] "
            + "[-T DURATION]", "", options, 2, 4, FOOTER);
    return s.toString();
  }
}
