package io.amlease.cli;

import java.io.PrintStream;
import java.util.Arrays;

/** {@code bin/amlease}: dispatches to a subcommand; the only place that calls {@code System.exit}. */
public final class Main {
  private Main() {}

  static final String USAGE = """
      usage: amlease <command> [options]

      Commands:
        hold     wait for a lease, run a command while holding it, stop it when the lease is lost
        leader   print the current holder of a lease (--watch: every change)
        publish  from COMMAND or a master: add its endpoints to the leader info, fenced by its term
        submit   (bin/amlease) run a command as a long-running YARN application under the lease
        status   (bin/amlease) YARN state, attempts and the lease's leader of an application
        kill     (bin/amlease) kill an application and wait until it is KILLED
        flex     (bin/amlease) change the worker count of a running application
        zookeeper [PORT [DIR]]  (bin/amlease) a local ZooKeeper on 127.0.0.1 for trying it out
        demo     (bin/amlease) embedded ZooKeeper + YARN: a sample app, a blip, a failover
        bench    (bin/amlease) amlease vs Curator's latches on the same faults (--quick: < 5 min)
        field-cluster  (bin/amlease, as root) RM, NodeManagers, HDFS and ZooKeeper as separate
                 processes in a network namespace of their own; faults typed on standard input

      Run 'amlease <command> --help' for the flags of a command.
      """;

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 0) {
      err.print(USAGE);
      return ExitCodes.USAGE;
    }
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    try {
      return switch (args[0]) {
        case "hold" -> new HoldCommand(out, err).run(rest);
        case "leader" -> new LeaderCommand(out, err).run(rest);
        case "publish" -> new PublishCommand(out, err, System::getenv).run(rest);
        case "-h", "--help", "help" -> {
          out.print(USAGE);
          out.println();
          out.print(new HoldCommand(out, err).help());
          out.println();
          out.print(new LeaderCommand(out, err).help());
          out.println();
          out.print(new PublishCommand(out, err, System::getenv).help());
          yield ExitCodes.OK;
        }
        default -> {
          err.println("amlease: unknown command '" + args[0] + "'");
          err.print(USAGE);
          yield ExitCodes.USAGE;
        }
      };
    } catch (RuntimeException e) {
      err.println("amlease: internal error: " + e);
      e.printStackTrace(err);
      return ExitCodes.SOFTWARE;
    }
  }
}
