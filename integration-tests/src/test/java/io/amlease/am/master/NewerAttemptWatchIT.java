package io.amlease.am.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.Epoch;
import io.amlease.lease.Lease;
import io.amlease.lease.LeaseException;
import io.amlease.lease.zk.ZkLease;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** G6 on real ZooKeeper leases: what the AM's look at the contenders sees, and when. */
class NewerAttemptWatchIT {
  private static final ApplicationId APP = ApplicationId.newInstance(1_700_000_000_000L, 7);
  private static final ApplicationAttemptId ATTEMPT_1 = ApplicationAttemptId.newInstance(APP, 1);
  private static final ApplicationAttemptId ATTEMPT_2 = ApplicationAttemptId.newInstance(APP, 2);
  private static TestingServer zk;

  @BeforeAll
  static void startZooKeeper() throws Exception {
    zk = Leases.server();
  }

  @AfterAll
  static void stopZooKeeper() throws Exception {
    zk.close();
  }

  private static String path(TestInfo test) {
    return "/amlease/" + test.getTestMethod().orElseThrow().getName();
  }

  /**
   * The race the periodic look leaves open: attempt 2 joins while attempt 1 waits behind another
   * holder, the holder leaves, and attempt 1 is granted before any periodic look. A look taken
   * after the grant still sees attempt 2.
   */
  @Test
  void aLookAfterTheGrantSeesANewerAttemptThatJoinedBeforeIt(TestInfo test) throws Exception {
    CopyOnWriteArrayList<Epoch> grants = new CopyOnWriteArrayList<>();
    try (ZkLease holder = Leases.start(zk.getConnectString(), path(test), "test-holder")) {
      Leases.awaitHolding(holder);
      try (ZkLease attempt1 = Leases.start(Leases.config(zk.getConnectString(), path(test),
              ATTEMPT_1.toString()), grants);
           NewerAttemptWatch watch = new NewerAttemptWatch(ATTEMPT_1, attempt1, a -> {});
           ZkLease attempt2 = Leases.start(zk.getConnectString(), path(test),
               ATTEMPT_2.toString())) {
        await().atMost(Duration.ofSeconds(10))
            .until(() -> holder.participants().contains(ATTEMPT_2.toString()));
        holder.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> !grants.isEmpty());

        assertThat(watch.check(Duration.ZERO).get(10, TimeUnit.SECONDS)).contains(ATTEMPT_2);
      }
    }
  }

  @Test
  void otherApplicationsAndOlderAttemptsAreNotNewer(TestInfo test) throws Exception {
    ApplicationAttemptId self = ApplicationAttemptId.newInstance(APP, 3);
    ApplicationAttemptId otherApp = ApplicationAttemptId.newInstance(
        ApplicationId.newInstance(APP.getClusterTimestamp(), 8), 9);
    try (ZkLease lease = Leases.start(zk.getConnectString(), path(test), self.toString());
         ZkLease older = Leases.start(zk.getConnectString(), path(test), ATTEMPT_2.toString());
         ZkLease other = Leases.start(zk.getConnectString(), path(test), otherApp.toString());
         ZkLease odd = Leases.start(zk.getConnectString(), path(test), "appattempt_not_an_id");
         NewerAttemptWatch watch = new NewerAttemptWatch(self, lease, a -> {})) {
      await().atMost(Duration.ofSeconds(10)).until(() -> lease.participants().size() == 4);

      assertThat(watch.check(Duration.ZERO).get(10, TimeUnit.SECONDS)).isEmpty();
    }
  }

  @Test
  void thePeriodicLookReportsANewerAttemptOnce(TestInfo test) throws Exception {
    List<ApplicationAttemptId> reported = new CopyOnWriteArrayList<>();
    try (ZkLease attempt1 = Leases.start(zk.getConnectString(), path(test), ATTEMPT_1.toString());
         NewerAttemptWatch watch = new NewerAttemptWatch(ATTEMPT_1, attempt1, reported::add)) {
      watch.start(Duration.ofMillis(50));
      try (ZkLease attempt2 = Leases.start(zk.getConnectString(), path(test),
          ATTEMPT_2.toString())) {
        await().atMost(Duration.ofSeconds(10)).until(() -> !reported.isEmpty());
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1))
            .until(() -> reported.size() == 1);
        assertThat(reported).containsExactly(ATTEMPT_2);
      }
    }
  }

  /** The AM must not start its master on "could not look": that is no proof of "none". */
  @Test
  void contendersThatCannotBeReadAreAFailureNotNone() {
    Lease unreadable = (Lease) Proxy.newProxyInstance(Lease.class.getClassLoader(),
        new Class<?>[] {Lease.class}, (proxy, method, args) -> {
          if (method.getName().equals("participants")) {
            throw new LeaseException("connection loss");
          }
          throw new UnsupportedOperationException(method.getName());
        });
    try (NewerAttemptWatch watch = new NewerAttemptWatch(ATTEMPT_1, unreadable, a -> {})) {
      assertThatThrownBy(() -> watch.check(Duration.ZERO).get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(LeaseException.class);
    }
  }

  @Test
  void aClosedWatchAnswersWithAFailure(TestInfo test) throws Exception {
    try (ZkLease lease = Leases.start(zk.getConnectString(), path(test), ATTEMPT_1.toString())) {
      NewerAttemptWatch watch = new NewerAttemptWatch(ATTEMPT_1, lease, a -> {});
      watch.close();
      assertThat(watch.check(Duration.ZERO)).isCompletedExceptionally();
    }
  }
}
