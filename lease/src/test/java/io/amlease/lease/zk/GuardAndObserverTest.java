package io.amlease.lease.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.Epoch;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseException;
import io.amlease.lease.LeaseListener;
import io.amlease.lease.LeaseObserver;
import io.amlease.lease.ManualClock;
import io.amlease.lease.RevocationReason;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The library's two seams for callers: {@code guard(epoch)}, the fence as the first op of the
 * caller's own transaction (etcd's {@code Mutex.IsOwner()}), and observers that watch the lease
 * without being able to break it.
 */
class GuardAndObserverTest {
  private static final Duration T = Duration.ofSeconds(6);
  private static final AtomicInteger PATHS = new AtomicInteger();
  @RegisterExtension static final StandaloneZk zk = new StandaloneZk();

  private static LeaseConfig config(String path, String id) {
    return LeaseConfig.builder().connectString(zk.connectString()).leasePath(path).holderId(id)
        .sessionTimeout(T).connectionTimeout(Duration.ofSeconds(5)).build();
  }

  private static Op create(String path, String data) {
    return Op.create(path, data.getBytes(StandardCharsets.UTF_8),
        org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
  }

  private static List<Op> with(List<Op> guard, Op op) {
    List<Op> all = new java.util.ArrayList<>(guard);
    all.add(op);
    return all;
  }

  @Test
  void callersOwnMultiWithTheGuardIsRefusedByZooKeeperOnceSuperseded() throws Exception {
    String path = "/guard/lease-" + PATHS.incrementAndGet();
    ManualClock frozen = new ManualClock();
    ZooKeeper own = zk.admin().getZookeeperClient().getZooKeeper(); // the caller's own client
    try (Holder a = new Holder(config(path, "a"), frozen).start();
         Holder b = new Holder(config(path, "b"))) {
      Epoch epochA = a.awaitGrant(Duration.ofSeconds(10)).epoch();
      List<Op> guardA = a.lease.guard(epochA);
      own.multi(with(guardA, create(path + "-one", "a")));
      assertThat(zk.admin().checkExists().forPath(path + "-one")).isNotNull();

      b.start();
      await().atMost(Duration.ofSeconds(5)).until(() -> a.lease.participants().size() == 2);
      // ZooKeeper drops a (as after a pause); a's clock is frozen, so it still believes it leads.
      zk.admin().delete().forPath(a.lease.latchPathForTest());
      Epoch epochB = b.awaitGrant(Duration.ofSeconds(10)).epoch();
      assertThat(a.lease.state().holder()).isTrue();

      // a's own transaction, guarded, fails at op 0 and writes nothing.
      List<Op> staleGuard = a.lease.guard(epochA);
      assertThatThrownBy(() -> own.multi(with(staleGuard, create(path + "-two", "a"))))
          .isInstanceOfSatisfying(KeeperException.class,
              e -> assertThat(Multis.failedOp(e)).isZero());
      assertThat(zk.admin().checkExists().forPath(path + "-two")).isNull();
      own.multi(with(b.lease.guard(epochB), create(path + "-two", "b")));
      assertThat(new String(zk.admin().getData().forPath(path + "-two"), StandardCharsets.UTF_8))
          .isEqualTo("b");

      // Once a's term has ended, the guard is refused locally.
      a.lease.revoke(RevocationReason.FENCED);
      assertThatThrownBy(() -> a.lease.guard(epochA)).isInstanceOf(LeaseException.NotLeader.class);
      assertThatThrownBy(() -> b.lease.guard(epochA)).isInstanceOf(LeaseException.NotLeader.class);
    }
  }

  @Test
  void observersSeeEachEdgeInOrderAndOneThatThrowsBreaksNothing() throws Exception {
    String path = "/guard/lease-" + PATHS.incrementAndGet();
    List<String> seen = new CopyOnWriteArrayList<>();
    List<String> edges = new CopyOnWriteArrayList<>();
    LeaseObserver recording = new LeaseObserver() {
      @Override
      public void granted(Epoch epoch, long sessionId) {
        seen.add("granted " + epoch.value());
        throw new IllegalStateException("an observer's bug");
      }

      @Override
      public void revoked(Epoch epoch, long sessionId, RevocationReason reason, String detail) {
        seen.add("revoked " + epoch.value() + " " + reason);
        throw new IllegalStateException("an observer's bug");
      }

      @Override
      public void fencedWrite(Epoch epoch, long sessionId, boolean refused, String detail) {
        seen.add("write " + epoch.value() + (refused ? " refused" : ""));
      }
    };
    LeaseListener listener = new LeaseListener() {
      @Override
      public void granted(Epoch epoch) {
        edges.add("granted " + epoch.value());
      }

      @Override
      public void revoked(Epoch epoch, RevocationReason reason) {
        edges.add("revoked " + epoch.value() + " " + reason);
      }
    };
    try (ZkLease lease = ZkLease.create(config(path, "a"), listener, recording)) {
      lease.start();
      await().atMost(Duration.ofSeconds(10)).until(() -> edges.size() == 1);
      Epoch epoch = lease.state().epoch().orElseThrow();
      lease.fencedWrite(epoch, List.of(create(path + "-data", "a")));
      lease.release(Duration.ofSeconds(5));
      await().atMost(Duration.ofSeconds(5)).until(() -> edges.size() == 2);
      assertThat(seen).containsExactly("granted " + epoch.value(), "write " + epoch.value(),
          "revoked " + epoch.value() + " RELEASED");
      assertThat(edges).containsExactly("granted " + epoch.value(),
          "revoked " + epoch.value() + " RELEASED");
      // The lease's own observers counted all the same.
      assertThat(lease.stats().acquisitions()).isEqualTo(1);
      assertThat(lease.stats().revocations(RevocationReason.RELEASED)).isEqualTo(1);
    }
  }
}
