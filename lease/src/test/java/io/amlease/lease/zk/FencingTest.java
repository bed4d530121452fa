package io.amlease.lease.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.Epoch;
import io.amlease.lease.LeaderInfo;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseException;
import io.amlease.lease.LeaseStats;
import io.amlease.lease.ManualClock;
import io.amlease.lease.RevocationReason;
import io.amlease.testkit.FaultProxy;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * G3: the epoch check in ZooKeeper refuses a superseded holder's writes even when its own timing
 * checks cannot help (its clock is frozen, as in a VM freeze), and the watchdog deadline on a fake
 * clock is exact.
 */
class FencingTest {
  private static final Duration T = Duration.ofSeconds(6);
  private static final AtomicInteger PATHS = new AtomicInteger();
  @RegisterExtension static final StandaloneZk zk = new StandaloneZk();



  private static String newPath() {
    return "/fencing/lease-" + PATHS.incrementAndGet();
  }

  private static LeaseConfig config(String connect, String path, String id) {
    return LeaseConfig.builder().connectString(connect).leasePath(path).holderId(id)
        .sessionTimeout(T).connectionTimeout(Duration.ofSeconds(5)).build();
  }

  @Test
  void supersededHolderThatHasNotNoticedIsFencedByZooKeeper() throws Exception {
    String path = newPath();
    String state = path + "-app-state";
    List<Long> seenEpochs = new CopyOnWriteArrayList<>();
    ManualClock frozen = new ManualClock();
    try (Holder a = new Holder(config(zk.connectString(), path, "a"), frozen).start();
         Holder b = new Holder(config(zk.connectString(), path, "b"));
         LeaderReader reader = new LeaderReader(zk.admin(), path)) {
      reader.watch(s -> s.info().ifPresent(i -> seenEpochs.add(i.epoch())), e -> { });
      Epoch epochA = a.awaitGrant(Duration.ofSeconds(10)).epoch();
      b.start();
      await().atMost(Duration.ofSeconds(5)).until(() -> a.lease.participants().size() == 2);

      // ZooKeeper drops a from the election (as when its session expired while it was paused); a's
      // clock is frozen, so neither its renewals nor its watchdog run: it still believes it leads.
      zk.admin().delete().forPath(a.lease.latchPathForTest());
      Epoch epochB = b.awaitGrant(Duration.ofSeconds(10)).epoch();
      assertThat(epochB.value()).isEqualTo(epochA.value() + 1);
      assertThat(a.lease.state().holder()).isTrue();

      assertThatThrownBy(() -> a.lease.fencedWrite(epochA, List.of(
          Op.create(state, "from-a".getBytes(StandardCharsets.UTF_8), a.lease.acl(),
              CreateMode.PERSISTENT))))
          .isInstanceOf(LeaseException.Fenced.class);
      assertThat(zk.admin().checkExists().forPath(state)).isNull();
      assertThat(a.awaitRevocation(Duration.ofSeconds(5)).reason())
          .isEqualTo(RevocationReason.FENCED);
      assertThat(a.lease.state().holder()).isFalse();

      b.lease.fencedWrite(epochB, List.of(Op.create(state, "from-b".getBytes(StandardCharsets.UTF_8),
          b.lease.acl(), CreateMode.PERSISTENT)));
      // Each holder's own account, as its status page and metrics show it.
      LeaseStats.Snapshot statsA = a.lease.stats();
      assertThat(statsA.fencedWrites()).isEqualTo(1);
      assertThat(statsA.fencedWriteFailures()).isEqualTo(1);
      assertThat(statsA.revocations(RevocationReason.FENCED)).isEqualTo(1);
      assertThat(statsA.history()).singleElement().satisfies(r -> {
        assertThat(r.epoch()).isEqualTo(epochA.value());
        assertThat(r.reason()).isEqualTo(RevocationReason.FENCED);
      });
      LeaseStats.Snapshot statsB = b.lease.stats();
      assertThat(statsB.acquisitions()).isEqualTo(1);
      assertThat(statsB.fencedWrites()).isEqualTo(1);
      assertThat(statsB.fencedWriteFailures()).isZero();
      assertThat(statsB.history()).isEmpty();
      assertThat(new String(zk.admin().getData().forPath(state), StandardCharsets.UTF_8))
          .isEqualTo("from-b");
      Optional<LeaderInfo> leader = reader.current();
      assertThat(leader).get().extracting(LeaderInfo::holder, LeaderInfo::epoch)
          .containsExactly("b", epochB.value());
      await().atMost(Duration.ofSeconds(5)).until(() -> seenEpochs.contains(epochB.value()));
      assertThat(seenEpochs).isSorted();
    }
  }

  /**
   * G3 across an operator's {@code deleteall} of the lease: the re-created epoch node starts again
   * at version 0, so B's first term has A's token. Before tokens were bound to the epoch node's
   * incarnation, paused A's write (and a raw multi with A's guard, as its command would send)
   * committed.
   */
  @Test
  void aTokenOfADeletedLeaseIsRefusedAfterTheLeaseIsMadeAgain() throws Exception {
    String path = newPath();
    String state = path + "-app-state";
    ManualClock frozen = new ManualClock();
    try (Holder a = new Holder(config(zk.connectString(), path, "a"), frozen).start()) {
      Epoch epochA = a.awaitGrant(Duration.ofSeconds(10)).epoch();
      zk.admin().delete().deletingChildrenIfNeeded().forPath(path); // "reset HA"
      try (Holder b = new Holder(config(zk.connectString(), path, "b")).start()) {
        Epoch epochB = b.awaitGrant(Duration.ofSeconds(10)).epoch();
        assertThat(epochB.value()).isEqualTo(epochA.value());
        assertThat(epochB.token()).isEqualTo(epochA.token());
        assertThat(epochB.incarnation()).isNotEqualTo(epochA.incarnation());
        assertThat(a.lease.state().holder()).isTrue(); // paused: it has not noticed

        assertThatThrownBy(() -> zk.admin().getZookeeperClient().getZooKeeper().multi(
            concat(EpochGuard.ops(path, epochA), Op.create(state, new byte[0],
                a.lease.acl(), CreateMode.PERSISTENT))))
            .isInstanceOfSatisfying(org.apache.zookeeper.KeeperException.class,
                e -> assertThat(EpochGuard.refused(e)).isTrue());
        assertThatThrownBy(() -> a.lease.fencedWrite(epochA, List.of(Op.create(state,
            "from-a".getBytes(StandardCharsets.UTF_8), a.lease.acl(), CreateMode.PERSISTENT))))
            .isInstanceOf(LeaseException.Fenced.class);
        assertThat(zk.admin().checkExists().forPath(state)).isNull();
        assertThat(a.awaitRevocation(Duration.ofSeconds(5)).reason())
            .isEqualTo(RevocationReason.FENCED);

        b.lease.fencedWrite(epochB, List.of(Op.create(state, "from-b".getBytes(
            StandardCharsets.UTF_8), b.lease.acl(), CreateMode.PERSISTENT)));
        assertThat(new String(zk.admin().getData().forPath(state), StandardCharsets.UTF_8))
            .isEqualTo("from-b");
      }
    }
  }

  /**
   * A lease made before incarnations (an epoch node without children) gets one from its next
   * contender, and its terms are fenced by it; an operator who deletes the incarnation node fences
   * the term held on it, and the next term is bound to a new one.
   */
  @Test
  void aLeaseWithoutIncarnationGetsOneAndLosingItFencesTheTerm() throws Exception {
    String path = newPath();
    zk.admin().create().creatingParentsIfNeeded().forPath(path + "/epoch",
        "4".getBytes(StandardCharsets.UTF_8));
    Epoch first;
    try (Holder a = new Holder(config(zk.connectString(), path, "a")).start()) {
      first = a.awaitGrant(Duration.ofSeconds(10)).epoch();
      assertThat(first.value()).isEqualTo(5);
      assertThat(zk.admin().getChildren().forPath(path + "/epoch"))
          .containsExactly(first.incarnation());
      zk.admin().delete().forPath(path + "/epoch/" + first.incarnation());
      assertThatThrownBy(() -> a.lease.fencedWrite(first, List.of()))
          .isInstanceOf(LeaseException.Fenced.class);
      assertThat(a.awaitRevocation(Duration.ofSeconds(5)).reason())
          .isEqualTo(RevocationReason.FENCED);
    }
    try (Holder b = new Holder(config(zk.connectString(), path, "b")).start()) {
      Epoch second = b.awaitGrant(Duration.ofSeconds(10)).epoch();
      assertThat(second.value()).isEqualTo(6);
      assertThat(second.incarnation()).isNotEqualTo(first.incarnation());
      b.lease.fencedWrite(second, List.of());
    }
  }

  private static List<Op> concat(List<Op> guard, Op op) {
    List<Op> all = new java.util.ArrayList<>(guard);
    all.add(op);
    return all;
  }

  @Test
  void writesWithAnotherEpochOrAfterRevocationAreRefusedLocally() throws Exception {
    String path = newPath();
    try (Holder a = new Holder(config(zk.connectString(), path, "a")).start()) {
      Epoch epoch = a.awaitGrant(Duration.ofSeconds(10)).epoch();
      Epoch stale = new Epoch(epoch.value() + 5, epoch.token(), epoch.incarnation());
      assertThatThrownBy(() -> a.lease.fencedWrite(stale, List.of()))
          .isInstanceOf(LeaseException.NotLeader.class).hasMessageContaining("epoch");
      a.lease.revoke(RevocationReason.NEWER_ATTEMPT);
      assertThatThrownBy(() -> a.lease.fencedWrite(epoch, List.of()))
          .isInstanceOf(LeaseException.NotLeader.class);
      assertThat(a.awaitRevocation(Duration.ofSeconds(5)).reason())
          .isEqualTo(RevocationReason.NEWER_ATTEMPT);
    }
  }

  @Test
  void watchdogRevokesExactlyAtLastAckPlusGrace() throws Exception {
    ManualClock clock = new ManualClock();
    try (FaultProxy proxy = FaultProxy.start(new InetSocketAddress("127.0.0.1", zk.server().getPort()));
         Holder a = new Holder(config(proxy.connectString(), newPath(), "a"), clock).start()) {
      a.awaitGrant(Duration.ofSeconds(10));
      proxy.silent(); // renewals sent from now on get no answer, so lastAck stays put
      long lastAck = a.lease.state().lastAckNanos();
      Duration grace = a.lease.state().timing().grace();

      clock.advance(Duration.ofNanos(lastAck + grace.toNanos() - clock.nanoTime() - 1));
      assertThat(a.lease.state().holder()).isTrue();
      assertThat(a.lease.state().timeLeft()).isEqualTo(Duration.ofNanos(1));
      assertThat(a.lease.state().lastAckNanos()).isEqualTo(lastAck);

      clock.advance(Duration.ofNanos(1));
      assertThat(a.lease.state().holder()).isFalse();
      assertThat(a.awaitRevocation(Duration.ofSeconds(5)).reason())
          .isEqualTo(RevocationReason.GRACE_EXPIRED);
      assertThatThrownBy(() -> a.lease.fencedWrite(a.grants.get(0).epoch(), List.of()))
          .isInstanceOf(LeaseException.NotLeader.class);
      proxy.heal();
    }
  }
}
