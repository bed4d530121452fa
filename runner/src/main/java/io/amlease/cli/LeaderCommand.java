package io.amlease.cli;

import io.amlease.lease.LeaderInfo;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseConfigException;
import io.amlease.lease.LeaseException;
import io.amlease.lease.zk.LeaderReader;
import io.amlease.lease.zk.ZkClients;
import io.amlease.process.Signals;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.apache.commons.cli.CommandLine;
import org.apache.curator.framework.CuratorFramework;

/** {@code amlease leader}: print who holds a lease, once or on every change. */
final class LeaderCommand {
  private final CommandLines cli = new CommandLines("leader")
      .keyed("zk", "CONNECT", LeaseConfig.CONNECT, "ZooKeeper connect string (required)")
      .keyed("lease", "PATH", LeaseConfig.LEASE_PATH, "lease path in ZooKeeper (required)")
      .keyed("connect-timeout", "D", LeaseConfig.CONNECTION_TIMEOUT,
          "give up if ZooKeeper is unreachable this long (default 15s)")
      .flag("json", null, "print the leader info as JSON")
      .flag("watch", null, "keep running and print one line per change");
  private final PrintStream out;
  private final PrintStream err;

  LeaderCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  String help() {
    return cli.help("amlease leader --zk CONNECT --lease PATH [--json] [--watch]",
        "Prints the current holder of a lease: epoch, holder id, host, URLs, YARN ids.\n\n",
        "\n" + ExitCodes.LEADER_TABLE);
  }

  int run(String[] args) {
    String connect;
    String path;
    Duration connectTimeout;
    CommandLine cl;
    try {
      CommandLines.Parsed parsed = cli.parse(args);
      cl = parsed.flags();
      if (cl.hasOption("help")) {
        out.print(help());
        return ExitCodes.OK;
      }
      if (!parsed.arguments().isEmpty()) {
        throw new CommandLines.UsageException("unexpected argument " + parsed.arguments().get(0));
      }
      Map<String, String> keys = cli.keys(cl);
      try {
        // Validates connect string and path with the same rules as a holder.
        LeaseConfig c = LeaseConfig.fromMap(keys).build();
        connect = c.connectString();
        path = c.leasePath();
        connectTimeout = c.connectionTimeout();
      } catch (LeaseConfigException e) {
        throw new CommandLines.UsageException(cli.describe(e));
      }
    } catch (CommandLines.UsageException e) {
      err.println("amlease leader: " + e.getMessage());
      err.println("(see amlease leader --help)");
      return ExitCodes.USAGE;
    }
    boolean json = cl.hasOption("json");
    try (CuratorFramework client = ZkClients.connectReader(connect, connectTimeout);
         LeaderReader reader = new LeaderReader(client, path)) {
      if (!cl.hasOption("watch")) {
        Optional<LeaderInfo> info = reader.current();
        if (info.isEmpty()) {
          err.println("amlease leader: no one holds " + path);
          return ExitCodes.NO_LEADER;
        }
        out.println(format(info.get(), json));
        return ExitCodes.OK;
      }
      CountDownLatch stop = new CountDownLatch(1);
      Signals.route(sig -> stop.countDown());
      reader.watch(s -> {
        out.println(s.info().map(i -> format(i, json)).orElse(json ? "null" : "none"));
        out.flush();
      }, bad -> err.println("amlease leader: " + bad.getMessage()));
      stop.await();
      return ExitCodes.OK;
    } catch (LeaseException e) {
      err.println("amlease leader: " + e.getMessage());
      return HoldCommand.exitFor(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return ExitCodes.OK;
    }
  }

  private static String format(LeaderInfo info, boolean json) {
    return json ? new String(info.toJson(), StandardCharsets.UTF_8) : info.toLine();
  }

}
