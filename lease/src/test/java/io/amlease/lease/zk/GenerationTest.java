package io.amlease.lease.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * G6 in the lease: once a contender of a newer generation (a later YARN attempt) has campaigned, an
 * older one never acquires, even when it stands first in the election. Without the generation
 * check, the AM's own poll of the contenders left a window: attempt 1 was granted epoch 2 and held
 * it for 30 ms before yielding (LeaseLossIT, measured).
 */
class GenerationTest {
  private static final AtomicInteger PATHS = new AtomicInteger();
  @RegisterExtension static final StandaloneZk zk = new StandaloneZk();

  private static LeaseConfig.Builder config(String path, String id) {
    return LeaseConfig.builder().connectString(zk.connectString()).leasePath(path)
        .holderId(id).sessionTimeout(Duration.ofSeconds(6)).connectionTimeout(Duration.ofSeconds(5));
  }

  @Test
  void anOlderGenerationFirstInLineNeverAcquiresOnceANewerOneCampaigns() throws Exception {
    String path = "/generation/lease-" + PATHS.incrementAndGet();
    try (Holder x = new Holder(config(path, "x").build()).start();
         Holder attempt1 = new Holder(config(path, "attempt-1").generation(1).build());
         Holder attempt2 = new Holder(config(path, "attempt-2").generation(2).build())) {
      x.awaitGrant(Duration.ofSeconds(10));
      attempt1.start();
      await().atMost(Duration.ofSeconds(5)).until(() -> x.lease.participants().size() == 2);
      attempt2.start();
      await().atMost(Duration.ofSeconds(5)).until(() -> x.lease.participants().size() == 3);
      // attempt 1 stands next in line: the latch makes it leader when x goes.
      assertThat(x.lease.participants()).containsExactly("x", "attempt-1", "attempt-2");

      x.lease.release(Duration.ofSeconds(5));

      await().atMost(Duration.ofSeconds(10)).until(() -> !attempt1.failures.isEmpty());
      assertThat(attempt1.failures.get(0)).isInstanceOf(LeaseException.Outdated.class)
          .hasMessageContaining("generation 1").hasMessageContaining("G6");
      assertThat(attempt1.grants).isEmpty();
      attempt1.close(); // as the AM does when it exits 75: its latch node goes
      assertThat(attempt2.awaitGrant(Duration.ofSeconds(10)).epoch().value()).isEqualTo(2);
      assertThat(new LeaderReader(zk.admin(), path).current()).get()
          .satisfies(i -> assertThat(i.holder()).isEqualTo("attempt-2"));
    }
  }

  @Test
  void anOlderGenerationIsRefusedAtStart() throws Exception {
    String path = "/generation/lease-" + PATHS.incrementAndGet();
    try (Holder attempt2 = new Holder(config(path, "attempt-2").generation(2).build()).start();
         Holder attempt1 = new Holder(config(path, "attempt-1").generation(1).build())) {
      attempt2.awaitGrant(Duration.ofSeconds(10));
      assertThatThrownBy(attempt1::start).isInstanceOf(LeaseException.Outdated.class)
          .hasMessageContaining("generation 2");
      assertThat(attempt2.lease.participants()).containsExactly("attempt-2");
    }
  }

  /** A deleted generation node is raised again, not taken for a newer generation. */
  @Test
  void aDeletedGenerationNodeIsRecreated() throws Exception {
    String path = "/generation/lease-" + PATHS.incrementAndGet();
    try (Holder x = new Holder(config(path, "x").build()).start();
         Holder attempt1 = new Holder(config(path, "attempt-1").generation(1).build())) {
      x.awaitGrant(Duration.ofSeconds(10));
      attempt1.start();
      await().atMost(Duration.ofSeconds(5)).until(() -> x.lease.participants().size() == 2);
      zk.admin().delete().forPath(path + "/generation");
      x.lease.release(Duration.ofSeconds(5));
      assertThat(attempt1.awaitGrant(Duration.ofSeconds(10)).epoch().value()).isEqualTo(2);
      assertThat(attempt1.failures).isEmpty();
    }
  }

  /** Item 9 of issue 24, data of the wrong shape: a generation node that is not a number. */
  @Test
  void aGenerationNodeThatIsNotANumberIsRefusedNamingItAndTheRepair() throws Exception {
    String path = "/generation/lease-" + PATHS.incrementAndGet();
    try (Holder x = new Holder(config(path, "x").build()).start()) {
      x.awaitGrant(Duration.ofSeconds(10));
    }
    String node = path + "/generation";
    zk.admin().create().forPath(node, "two".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    try (Holder attempt1 = new Holder(config(path, "attempt-1").generation(1).build())) {
      // Refused at start, before it campaigns: start() throws, no term begins.
      assertThatThrownBy(attempt1::start).isInstanceOf(LeaseException.BadData.class)
          .hasMessageContaining(node + " holds 'two'")
          .hasMessageContaining("zkCli.sh set " + node + " N");
      assertThat(attempt1.grants).isEmpty();
    }
    assertThat(new String(zk.admin().getData().forPath(node),
        java.nio.charset.StandardCharsets.UTF_8)).as("left for an operator").isEqualTo("two");
    assertThat(new String(zk.admin().getData().forPath(path + "/epoch"),
        java.nio.charset.StandardCharsets.UTF_8)).as("no term begun").isEqualTo("1");
  }
}
