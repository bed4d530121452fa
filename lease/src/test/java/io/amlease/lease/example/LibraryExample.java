package io.amlease.lease.example;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.amlease.lease.Epoch;
import io.amlease.lease.Lease;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseListener;
import io.amlease.lease.RevocationReason;
import io.amlease.lease.zk.ZkClients;
import io.amlease.lease.zk.ZkLease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooKeeper;

/**
 * The README's "Using the library" example. {@code ReadmeExampleTest} checks that the README shows
 * the lines between the markers exactly, and runs them against a real ZooKeeper server.
 */
final class LibraryExample {
  private LibraryExample() {}

  static void run(String connect) throws Exception {
    // README example begins
    LeaseConfig config = LeaseConfig.builder()
        .connectString(connect).leasePath("/amlease/myapp").build(); // validates every key
    BlockingQueue<Epoch> terms = new LinkedBlockingQueue<>();
    try (ZkLease lease = ZkLease.create(config, new LeaseListener() {
          @Override
          public void granted(Epoch epoch) {
            terms.add(epoch); // start acting
          }

          @Override
          public void revoked(Epoch epoch, RevocationReason reason) {
            // stop acting now, then close the lease
          }
        })) {
      lease.start(); // connects, checks G2 for the negotiated session timeout
      Epoch epoch = terms.take();
      // Refused by ZooKeeper (and the term revoked, FENCED) once another holder has a newer epoch.
      lease.fencedWrite(epoch, List.of(Op.create("/amlease/myapp-state", "hello".getBytes(UTF_8),
          lease.acl(), CreateMode.PERSISTENT)));
      try (CuratorFramework own = ZkClients.connectReader(connect, Duration.ofSeconds(5))) {
        ownTransaction(own.getZookeeperClient().getZooKeeper(), lease, epoch);
      }
    } // close(): releases the lease, so a waiting contender acquires at once
    // README example ends
  }

  static void ownTransaction(ZooKeeper myClient, Lease lease, Epoch epoch) throws Exception {
    // README guard example begins
    // The fence as the first ops of a transaction of your own, on your own client: ZooKeeper
    // applies it only while epoch is the lease's current term, and fails it at op 0 or 1 after.
    List<Op> ops = new ArrayList<>(lease.guard(epoch));
    ops.add(Op.setData("/amlease/myapp-state", "hello again".getBytes(UTF_8), -1));
    myClient.multi(ops);
    // README guard example ends
  }
}
