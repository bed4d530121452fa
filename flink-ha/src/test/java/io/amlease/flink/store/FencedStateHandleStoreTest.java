package io.amlease.flink.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.amlease.lease.LeaseException;
import io.amlease.lease.zk.ZkServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.curator.test.TestingServer;
import org.apache.flink.runtime.persistence.IntegerResourceVersion;
import org.apache.flink.runtime.persistence.StateHandleStore;
import org.apache.flink.runtime.persistence.filesystem.FileSystemStateStorageHelper;
import org.apache.flink.runtime.state.RetrievableStateHandle;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store's contract within a term (Flink's StateHandleStore), and the fence: once a newer term
 * exists the old term's adds, replaces and removes are refused by ZooKeeper, leave no pointer,
 * and neither leak new state files nor discard the state a pointer still names.
 */
class FencedStateHandleStoreTest {
  private static final AtomicInteger PATHS = new AtomicInteger();
  private static TestingServer server;

  @TempDir Path files;
  private TermFixture fixture;
  private String dir;

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
    String base = "/store-test/cluster-" + PATHS.incrementAndGet();
    fixture = new TermFixture(server.getConnectString(), base);
    dir = base + "/jobs/j/checkpoints";
  }

  @AfterEach
  void release() {
    fixture.close();
  }

  private FencedStateHandleStore<String> store(boolean withTerm) throws Exception {
    return new FencedStateHandleStore<>(fixture.client, dir,
        new FileSystemStateStorageHelper<>(new org.apache.flink.core.fs.Path(files.toUri()), "cp"),
        withTerm ? Optional.of(fixture.term) : Optional.empty());
  }

  private long stateFiles() throws Exception {
    try (Stream<Path> s = Files.list(files)) {
      return s.count();
    }
  }

  @Test
  void addGetReplaceAndRemoveWithinTheTerm() throws Exception {
    FencedStateHandleStore<String> store = store(true);

    store.addAndLock("/0000000000000000001", "one");
    store.addAndLock("/0000000000000000002", "two");
    assertThatThrownBy(() -> store.addAndLock("/0000000000000000001", "again"))
        .isInstanceOf(StateHandleStore.AlreadyExistException.class);
    IntegerResourceVersion v = store.exists("/0000000000000000002");
    store.replace("/0000000000000000002", v, "two, again");

    assertThat(store.getAndLock("/0000000000000000002").retrieveState()).isEqualTo("two, again");
    assertThat(store.getAllHandles()).containsExactlyInAnyOrder("0000000000000000001",
        "0000000000000000002");
    assertThat(store.getAllAndLock()).extracting(t -> t.f0.retrieveState())
        .containsExactlyInAnyOrder("one", "two, again");
    assertThat(stateFiles()).isEqualTo(2); // The replaced state was discarded.

    assertThat(store.releaseAndTryRemove("/0000000000000000001")).isTrue();
    assertThat(store.exists("/0000000000000000001").isExisting()).isFalse();
    assertThat(stateFiles()).isEqualTo(1);
    assertThatThrownBy(() -> store.getAndLock("/0000000000000000001"))
        .isInstanceOf(StateHandleStore.NotExistException.class);
    assertThatThrownBy(() -> store.replace("/0000000000000000001",
        IntegerResourceVersion.valueOf(0), "gone"))
        .isInstanceOf(StateHandleStore.NotExistException.class);
  }

  // A superseded term's writes, each in a fixture of its own: the first refusal revokes the lease
  // (FENCED), after which it would refuse locally and ZooKeeper would not be asked.

  @Test
  void zooKeeperRefusesASupersededTermsAdd() throws Exception {
    FencedStateHandleStore<String> store = store(true);
    fixture.supersede();

    assertThatThrownBy(() -> store.addAndLock("/0000000000000000002", "stale"))
        .isInstanceOf(LeaseException.Fenced.class);
    assertThat(store.exists("/0000000000000000002").isExisting()).isFalse();
    assertThat(stateFiles()).as("the refused add's file was discarded").isZero();
  }

  @Test
  void zooKeeperRefusesASupersededTermsReplace() throws Exception {
    FencedStateHandleStore<String> store = store(true);
    store.addAndLock("/0000000000000000001", "kept");
    IntegerResourceVersion v = store.exists("/0000000000000000001");
    fixture.supersede();

    assertThatThrownBy(() -> store.replace("/0000000000000000001", v, "stale"))
        .isInstanceOf(LeaseException.Fenced.class);
    assertThat(store.getAndLock("/0000000000000000001").retrieveState()).isEqualTo("kept");
    assertThat(stateFiles()).as("old kept, new discarded").isEqualTo(1);
  }

  @Test
  void zooKeeperRefusesASupersededTermsRemoveAndTheStateStays() throws Exception {
    FencedStateHandleStore<String> store = store(true);
    RetrievableStateHandle<String> kept = store.addAndLock("/0000000000000000001", "kept");
    fixture.supersede();

    assertThat(store.releaseAndTryRemove("/0000000000000000001")).isFalse();
    assertThat(fixture.lease.stats().fencedWriteFailures()).as("refused by ZooKeeper")
        .isEqualTo(1);
    assertThat(store.getAndLock("/0000000000000000001").retrieveState()).isEqualTo("kept");
    assertThat(kept.retrieveState()).as("its file was not discarded").isEqualTo("kept");
    assertThatThrownBy(store::clearEntries).isInstanceOf(LeaseException.NotLeader.class);
  }

  @Test
  void aStoreMadeWithoutATermRefusesEveryWrite() throws Exception {
    FencedStateHandleStore<String> store = store(false);

    assertThatThrownBy(() -> store.addAndLock("/0000000000000000001", "x"))
        .isInstanceOf(LeaseException.NotLeader.class);
    assertThat(store.getAllHandles()).isEmpty();
    assertThat(stateFiles()).isZero();
  }

  @Test
  void namesArePathElements() throws Exception {
    FencedStateHandleStore<String> store = store(true);

    assertThatThrownBy(() -> store.addAndLock("/a/b", "x"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(List.copyOf(store.getAllHandles())).isEmpty();
  }
}
