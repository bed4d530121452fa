package io.amlease.lease.example;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.amlease.lease.Epoch;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseListener;
import io.amlease.lease.RevocationReason;
import io.amlease.lease.zk.ZkLease;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;

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
    } // close(): releases the lease, so a waiting contender acquires at once
    // README example ends
  }
}
