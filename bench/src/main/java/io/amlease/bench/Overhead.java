package io.amlease.bench;

import io.amlease.lease.zk.ZkClients;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooKeeper;

/**
 * Scenario 7: what fencing costs. Sequential fenced writes ({@code multi(check(epoch), setData)}
 * through {@code ZkLease.fencedWrite}) against plain {@code setData} on the same server, alternating in
 * short rounds so that both see the same machine load (this machine is shared), after a warm-up of
 * both paths that is not counted (the first calls also pay for class loading and the JIT).
 *
 * @param plainPerSecond plain setData calls completed per second
 * @param fencedPerSecond fenced writes completed per second
 * @param ratio fenced / plain
 */
record Overhead(double plainPerSecond, double fencedPerSecond, double ratio) {
  private static final int ROUNDS = 10;
  private static final Duration WARM_UP = Duration.ofSeconds(1);

  static Overhead run(BenchConfig cfg) throws Exception {
    Duration slice = cfg.measureWindow().dividedBy(2L * ROUNDS);
    byte[] value = "0123456789abcdef".getBytes(StandardCharsets.UTF_8);
    try (ZkServer server = ZkServer.start();
         CuratorFramework plain = ZkClients.connectReader(server.connectString(), Duration.ofSeconds(5));
         Participant holder = Contender.AMLEASE.participant("w", server.connectString(),
             "/bench/overhead/lease", cfg.sessionTimeout(), new Timeline(), false)) {
      plain.create().creatingParentsIfNeeded().forPath("/bench/overhead/plain");
      plain.create().forPath("/bench/overhead/fenced");
      holder.start();
      Pair.require(Waits.until(holder::acting, Pair.SETUP), Contender.AMLEASE, "did not acquire",
          Pair.SETUP);
      ZooKeeper zk = plain.getZookeeperClient().getZooKeeper();
      long warm = System.nanoTime() + WARM_UP.toNanos();
      while (System.nanoTime() - warm < 0) {
        zk.setData("/bench/overhead/plain", value, -1);
        holder.write("/bench/overhead/fenced", value);
      }
      long plainOps = 0;
      long fencedOps = 0;
      long plainNanos = 0;
      long fencedNanos = 0;
      for (int round = 0; round < ROUNDS; round++) {
        long start = System.nanoTime();
        long until = start + slice.toNanos();
        while (System.nanoTime() - until < 0) {
          zk.setData("/bench/overhead/plain", value, -1);
          plainOps++;
        }
        plainNanos += System.nanoTime() - start;
        start = System.nanoTime();
        until = start + slice.toNanos();
        while (System.nanoTime() - until < 0) {
          if (holder.write("/bench/overhead/fenced", value).isEmpty()) {
            throw new IllegalStateException("overhead: a fenced write was refused");
          }
          fencedOps++;
        }
        fencedNanos += System.nanoTime() - start;
      }
      double p = plainOps / (plainNanos / 1e9);
      double f = fencedOps / (fencedNanos / 1e9);
      return new Overhead(Math.round(p), Math.round(f), Math.round(f / p * 1000) / 1000.0);
    }
  }
}
