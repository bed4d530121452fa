package io.amlease.flink.store;

import io.amlease.flink.leader.LeaderTerm;
import io.amlease.lease.ManualClock;
import io.amlease.lease.Epoch;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseListener;
import io.amlease.lease.RevocationReason;
import io.amlease.lease.zk.ZkClients;
import io.amlease.lease.zk.ZkLease;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;

/**
 * A real lease held on a real server, and an owner client beside it, for the store tests. The
 * lease runs on a frozen clock, so neither its renewals nor its watchdog run: like a JobManager
 * that was paused, it goes on believing it leads after a newer term exists, and only ZooKeeper's
 * check of the epoch can refuse its writes.
 */
final class TermFixture implements AutoCloseable {
  final LeaseConfig config;
  final CuratorFramework client;
  final ZkLease lease;
  final LeaderTerm term;

  TermFixture(String connect, String path) throws Exception {
    config = LeaseConfig.builder().connectString(connect).leasePath(path).holderId("jm-a")
        .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofSeconds(5)).build();
    client = ZkClients.connectOwner(config);
    CompletableFuture<Epoch> granted = new CompletableFuture<>();
    lease = ZkLease.create(config, new LeaseListener() {
      @Override
      public void granted(Epoch epoch) {
        granted.complete(epoch);
      }

      @Override
      public void revoked(Epoch epoch, RevocationReason reason) {}
    }, new ManualClock());
    lease.start();
    term = new LeaderTerm(lease, granted.get(10, TimeUnit.SECONDS));
  }

  /** What a newer holder's acquisition does to the epoch node: the old token no longer checks. */
  void supersede() throws Exception {
    long next = term.epoch().value() + 1;
    client.setData().forPath(config.leasePath() + "/epoch", Long.toString(next).getBytes());
  }

  @Override
  public void close() {
    lease.close();
    client.close();
  }
}
