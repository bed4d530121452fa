package io.amlease.flink.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.amlease.lease.LeaseException;
import io.amlease.lease.zk.ZkServers;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.apache.curator.test.TestingServer;
import org.apache.flink.api.common.JobStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Flink's CheckpointIDCounter contract (its CheckpointIDCounterTestBase's cases), and the fence. */
class FencedCheckpointIdCounterTest {
  private static final AtomicInteger PATHS = new AtomicInteger();
  private static TestingServer server;

  private TermFixture fixture;
  private String path;

  @BeforeAll
  static void startServer() throws Exception {
    server = ZkServers.standalone();
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  @BeforeEach
  void hold() throws Exception {
    String base = "/counter-test/cluster-" + PATHS.incrementAndGet();
    fixture = new TermFixture(server.getConnectString(), base);
    path = base + "/jobs/j/checkpoint-id";
  }

  @AfterEach
  void release() {
    fixture.close();
  }

  private FencedCheckpointIdCounter counter() throws Exception {
    FencedCheckpointIdCounter c = new FencedCheckpointIdCounter(fixture.client, path,
        Optional.of(fixture.term));
    c.start();
    return c;
  }

  @Test
  void serialIncrements() throws Exception {
    FencedCheckpointIdCounter c = counter();

    assertThat(c.get()).isEqualTo(1);
    assertThat(c.getAndIncrement()).isEqualTo(1);
    assertThat(c.get()).isEqualTo(2);
    assertThat(c.getAndIncrement()).isEqualTo(2);
    assertThat(counter().get()).isEqualTo(3); // A new counter (a new JobMaster) continues.
  }

  @Test
  void setCount() throws Exception {
    FencedCheckpointIdCounter c = counter();

    c.setCount(1337);

    assertThat(c.get()).isEqualTo(1337);
    assertThat(c.getAndIncrement()).isEqualTo(1337);
    assertThat(c.get()).isEqualTo(1338);
  }

  @Test
  void concurrentIncrementsTakeEveryIdOnce() throws Exception {
    FencedCheckpointIdCounter a = counter();
    FencedCheckpointIdCounter b = counter();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Long>> ids = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        FencedCheckpointIdCounter c = i % 2 == 0 ? a : b;
        ids.add(pool.submit((Callable<Long>) c::getAndIncrement));
      }
      List<Long> taken = new ArrayList<>();
      for (Future<Long> f : ids) {
        taken.add(f.get());
      }
      assertThat(taken).containsExactlyInAnyOrderElementsOf(
          LongStream.rangeClosed(1, 200).boxed().toList());
      assertThat(counter().get()).isEqualTo(201);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aSupersededTermTakesNoId() throws Exception {
    FencedCheckpointIdCounter c = counter();
    c.getAndIncrement();

    fixture.supersede();

    assertThatThrownBy(c::getAndIncrement).isInstanceOf(LeaseException.Fenced.class);
    assertThat(fixture.client.getData().forPath(path)).asString().isEqualTo("2");
  }

  @Test
  void shutdownDeletesOnlyWhenTheJobHasEnded() throws Exception {
    counter().getAndIncrement();

    counter().shutdown(JobStatus.SUSPENDED).get();
    assertThat(fixture.client.checkExists().forPath(path)).isNotNull();

    counter().shutdown(JobStatus.FINISHED).get();
    assertThat(fixture.client.checkExists().forPath(path)).isNull();
  }

  @Test
  void aCounterWithoutATermCannotStartOne() {
    FencedCheckpointIdCounter c = new FencedCheckpointIdCounter(fixture.client, path,
        Optional.empty());

    assertThatThrownBy(c::start).isInstanceOf(LeaseException.NotLeader.class);
  }
}
