package io.amlease.am.client;

import io.amlease.lease.LeaderInfo;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseException;
import io.amlease.lease.zk.LeaderReader;
import io.amlease.lease.zk.ZkClients;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptReport;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException;

/**
 * {@code amlease status APP_ID [--zk CONNECT [--lease PATH]]}: the YARN state and attempts, and the
 * lease's current epoch and leader: on the ZooKeeper and lease path the application was submitted
 * with (read from its staged settings), or on those given.
 */
public final class StatusCommand extends Configured implements Tool {
  private final PrintStream out;
  private final PrintStream err;

  public StatusCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  static final String USAGE = "usage: amlease status [generic options] APP_ID [--zk CONNECT "
      + "[--lease PATH]]\nExit status: 0 printed, 1 no such application, 64 bad arguments, "
      + "69 ZooKeeper unreachable.";

  @Override
  public int run(String[] args) throws Exception {
    String appId = null;
    String zkConnect = null;
    String lease = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--zk" -> zkConnect = i + 1 < args.length ? args[++i] : null;
        case "--lease" -> lease = i + 1 < args.length ? args[++i] : null;
        case "-h", "--help" -> {
          out.println(USAGE);
          return 0;
        }
        default -> appId = args[i];
      }
    }
    ApplicationId id;
    try {
      id = ApplicationId.fromString(appId);
    } catch (IllegalArgumentException | NullPointerException e) {
      err.println("amlease status: '" + appId + "' is not an application id\n" + USAGE);
      return SubmitCommand.USAGE;
    }
    YarnClient yarn = YarnClient.createYarnClient();
    yarn.init(getConf());
    yarn.start();
    try {
      ApplicationReport r;
      try {
        r = yarn.getApplicationReport(id);
      } catch (ApplicationNotFoundException e) {
        err.println("amlease status: no application " + id);
        return 1;
      }
      out.printf("application %s (%s) queue %s: %s, final status %s%n", id, r.getName(),
          r.getQueue(), r.getYarnApplicationState(), r.getFinalApplicationStatus());
      out.println("tracking URL " + r.getTrackingUrl());
      for (ApplicationAttemptReport a : yarn.getApplicationAttempts(id)) {
        out.printf("attempt %s: %s on %s%s%n", a.getApplicationAttemptId(),
            a.getYarnApplicationAttemptState(), a.getHost(),
            a.getDiagnostics() == null || a.getDiagnostics().isEmpty() ? ""
                : " (" + a.getDiagnostics().lines().findFirst().orElse("") + ")");
      }
      if (zkConnect == null) {
        // The application's own settings, staged by its submit, name its ZooKeeper and lease.
        Configuration staged = Staging.settings(getConf(), id, err);
        if (staged != null) {
          zkConnect = staged.get(LeaseConfig.CONNECT);
          lease = lease != null ? lease : staged.get(LeaseConfig.LEASE_PATH);
        } else {
          out.println("lease: unknown (the application's staging directory is gone or not "
              + "yours; pass --zk CONNECT [--lease PATH])");
        }
      }
      if (zkConnect != null) {
        String path = lease != null ? lease : "/amlease/" + r.getName();
        try (CuratorFramework zk = ZkClients.connectReader(zkConnect, Duration.ofSeconds(15));
             LeaderReader reader = new LeaderReader(zk, path)) {
          Optional<LeaderInfo> leader = reader.current();
          out.println("lease " + path + ": " + leader.map(LeaderInfo::toLine).orElse("no leader"));
        } catch (LeaseException e) {
          err.println("amlease status: " + e.getMessage());
          return SubmitCommand.UNAVAILABLE;
        }
      }
      return 0;
    } finally {
      yarn.stop();
    }
  }

}
