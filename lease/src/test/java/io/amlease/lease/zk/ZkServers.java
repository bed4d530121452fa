package io.amlease.lease.zk;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;

/**
 * Real ZooKeeper servers for tests, on loopback. A tick of 500 ms lets sessions be negotiated between
 * 1 s and 10 s (ZooKeeper clamps to [2, 20] ticks), so timing tests run in seconds, not minutes.
 */
public final class ZkServers {
  public static final int TICK_MS = 500;

  private ZkServers() {}

  public static TestingServer standalone() throws Exception {
    return new TestingServer(spec(-1, Map.of()), true);
  }

  /**
   * An ensemble whose leader changes fit G1's bound at T = 10 s: a stumbling election leaves the new
   * leader waiting initLimit ticks for followers, and a lease renews only through a leader, so the
   * limits are 4 and 2 ticks (2 s and 1 s) instead of Curator's 10 and 5.
   */
  public static TestingCluster cluster(int size) {
    List<InstanceSpec> specs = new ArrayList<>();
    for (int id = 1; id <= size; id++) {
      specs.add(spec(id, Map.of("initLimit", "4", "syncLimit", "2")));
    }
    return new TestingCluster(specs);
  }

  /** Bound to loopback: without clientPortAddress the server listens on every interface. */
  private static InstanceSpec spec(int serverId, Map<String, Object> props) {
    Map<String, Object> all = new java.util.HashMap<>(props);
    all.put("clientPortAddress", "127.0.0.1");
    return new InstanceSpec(null, -1, -1, -1, true, serverId, TICK_MS, -1, all, "127.0.0.1");
  }
}
