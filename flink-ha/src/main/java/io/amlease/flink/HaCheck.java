package io.amlease.flink;

import io.amlease.flink.leader.ComponentPaths;
import io.amlease.flink.leader.LeaderInformations;
import io.amlease.lease.Durations;
import io.amlease.lease.LeaderInfo;
import io.amlease.lease.LeaseException;
import io.amlease.lease.LeaseTiming;
import io.amlease.lease.zk.LeaderReader;
import io.amlease.lease.zk.ZkClients;
import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.runtime.leaderelection.LeaderInformation;
import org.apache.zookeeper.KeeperException;

/**
 * What an operator runs on a JobManager host after installing the jar: reads Flink's
 * configuration as the JobManager would, validates the amlease keys, connects to ZooKeeper with
 * the plugin's own (relocated) client, and prints who leads and where each component is.
 *
 * <pre>java -cp "$FLINK_HOME/lib/*" io.amlease.flink.HaCheck [CONF_DIR] [-Dkey=value …]</pre>
 *
 * Exit status: 0 checked; 64 bad arguments or configuration; 69 ZooKeeper not reachable.
 */
public final class HaCheck {
  static final int OK = 0;
  static final int USAGE = 64;
  static final int UNAVAILABLE = 69;

  private HaCheck() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  static int run(String[] args, PrintStream out, PrintStream err) {
    Configuration dynamic = new Configuration();
    String confDir = System.getenv("FLINK_CONF_DIR");
    for (String a : args) {
      if (a.equals("-h") || a.equals("--help")) {
        out.println("usage: java -cp \"$FLINK_HOME/lib/*\" io.amlease.flink.HaCheck [CONF_DIR] "
            + "[-Dkey=value ...]\nExit status: 0 checked, 64 bad configuration, "
            + "69 ZooKeeper not reachable.");
        return OK;
      } else if (a.startsWith("-D") && a.indexOf('=') > 2) {
        dynamic.setString(a.substring(2, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
      } else if (!a.startsWith("-")) {
        confDir = a;
      } else {
        err.println("amlease HA check: unknown argument '" + a + "' (see --help)");
        return USAGE;
      }
    }
    AmleaseHaSettings settings;
    try {
      Configuration conf = confDir == null ? dynamic
          : GlobalConfiguration.loadConfiguration(confDir, dynamic);
      settings = AmleaseHaSettings.from(conf);
    } catch (IllegalConfigurationException e) {
      err.println("amlease HA check: " + e.getMessage());
      return USAGE;
    }
    LeaseTiming timing = settings.lease().requestedTiming();
    out.println("lease " + settings.base() + " on " + settings.lease().connectString()
        + ": session timeout " + Durations.format(settings.lease().sessionTimeout()) + ", grace "
        + Durations.format(timing.grace()) + ", renew every "
        + Durations.format(timing.renewInterval()));
    try (CuratorFramework client = ZkClients.connectReader(settings.lease().connectString(),
        settings.lease().connectionTimeout());
         LeaderReader reader = new LeaderReader(client, settings.base())) {
      Optional<LeaderInfo> leader = reader.current();
      out.println(leader.map(l -> "leader: " + l.toLine()).orElse("leader: none"));
      ComponentPaths paths = new ComponentPaths(settings.base());
      for (String component : components(client, paths)) {
        LeaderInformation info = LeaderInformations.read(client, paths, component);
        out.println("  " + component + ": " + (info.isEmpty() ? "(none)"
            : info.getLeaderAddress() + " session " + info.getLeaderSessionID()));
      }
      return OK;
    } catch (LeaseException.Unavailable e) {
      err.println("amlease HA check: " + e.getMessage());
      return UNAVAILABLE;
    } catch (Exception e) {
      err.println("amlease HA check: " + e);
      return UNAVAILABLE;
    }
  }

  private static List<String> components(CuratorFramework client, ComponentPaths paths)
      throws Exception {
    try {
      return client.getChildren().forPath(paths.components()).stream().sorted().toList();
    } catch (KeeperException.NoNodeException e) {
      return List.of();
    }
  }
}
