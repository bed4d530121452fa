package io.amlease.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.amlease.lease.LeaderInfo;
import io.amlease.lease.LeaseException;
import io.amlease.lease.zk.LeaderReader;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;
import org.awaitility.Awaitility;

/**
 * Every version of {@code <lease>/leader} a watcher saw, in order, for asserting that a superseded
 * holder never wrote leader info again. (A watch can coalesce two quick writes into one
 * notification; the final read in {@link #assertNoWriteFromBefore} covers the latest version.)
 */
final class LeaderHistory implements AutoCloseable {
  private final LeaderReader reader;
  private final List<LeaderReader.Snapshot> seen = new CopyOnWriteArrayList<>();

  LeaderHistory(CuratorFramework zk, String lease) {
    reader = new LeaderReader(zk, lease);
    reader.watch(seen::add, e -> seen.add(new LeaderReader.Snapshot(Optional.empty(), -2, -2)));
  }

  /** Waits until the leader is in {@code epoch}; returns its info. */
  LeaderInfo awaitEpoch(long epoch, Duration atMost) {
    return Awaitility.await().atMost(atMost).pollInterval(Duration.ofMillis(200))
        .until(() -> reader.current().orElse(null), i -> i != null && i.epoch() == epoch);
  }

  /** The leader info as it is now, if any. */
  Optional<LeaderInfo> current() throws LeaseException {
    return reader.current();
  }

  List<LeaderInfo> versions() {
    return seen.stream().flatMap(s -> s.info().stream()).toList();
  }

  /**
   * Once {@code newer} was published, every later version (and the current one) is {@code newer}'s
   * term or a later one: nothing of an older epoch was written after it. No malformed data either.
   */
  void assertNoWriteFromBefore(LeaderInfo newer) throws Exception {
    assertThat(seen).as("malformed leader info").noneMatch(s -> s.version() == -2);
    List<LeaderInfo> all = versions();
    assertThat(all.stream().map(LeaderInfo::epoch).toList()).as("epochs seen").isSorted();
    int first = all.indexOf(newer);
    assertThat(first).as("%s seen among %s", newer, all).isNotNegative();
    assertThat(all.subList(first, all.size())).allSatisfy(i ->
        assertThat(i.epoch()).isGreaterThanOrEqualTo(newer.epoch()));
    assertThat(reader.current()).contains(newer);
  }

  @Override
  public void close() {
    reader.close();
  }
}
