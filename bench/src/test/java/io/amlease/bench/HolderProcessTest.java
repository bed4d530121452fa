package io.amlease.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.amlease.lease.zk.ZkClients;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/**
 * A holder in its own JVM (a few seconds): its reports land on this JVM's time axis, and while it is
 * stopped it neither acts nor writes.
 */
class HolderProcessTest {
  private static final Duration T = Duration.ofSeconds(3);
  private static final Duration WITHIN = Duration.ofSeconds(60);

  @Test
  void aStoppedHolderWritesNothingUntilContinued() throws Exception {
    Timeline timeline = new Timeline();
    List<HolderProcess.Write> writes = new CopyOnWriteArrayList<>();
    long before = System.nanoTime();
    try (ZkServer server = ZkServer.start();
         CuratorFramework client = ZkClients.connectReader(server.connectString(), WITHIN)) {
      client.create().creatingParentsIfNeeded().forPath("/test/data");
      try (HolderProcess h = HolderProcess.launch(Contender.AMLEASE, "h0", server.connectString(),
          "/test/lease", "/test/data", T, timeline, writes)) {
        holdAndPause(h, timeline, writes, before);
      }
    }
  }

  private static void holdAndPause(HolderProcess h, Timeline timeline,
      List<HolderProcess.Write> writes, long before) throws Exception {
    assertThat(h.start(WITHIN)).isTrue();
    assertThat(Waits.until(() -> writes.size() >= 3, WITHIN)).isTrue();

    History.Pause pause = h.pause(Duration.ofMillis(500));
    int atResume = writes.size();
    assertThat(Waits.until(() -> writes.size() > atResume, WITHIN)).isTrue();
    h.finish(Duration.ofSeconds(10));

    Timeline.Event start = timeline.first("h0", Timeline.Edge.START, before).orElseThrow();
    assertThat(start.nanos()).isBetween(before, pause.fromNanos());
    assertThat(writes).extracting(HolderProcess.Write::nanos)
        .noneMatch(n -> n > pause.fromNanos() && n < pause.toNanos())
        .anyMatch(n -> n > pause.toNanos());
  }
}
