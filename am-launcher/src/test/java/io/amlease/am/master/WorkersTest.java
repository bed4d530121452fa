package io.amlease.am.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.amlease.am.AmSettings;
import io.amlease.lease.Epoch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.client.api.async.AMRMClientAsync;
import org.apache.hadoop.yarn.client.api.impl.AMRMClientImpl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The worker accounting behind flex and restarts, on Hadoop's own AMRMClient (its request table,
 * not started: nothing is sent) and a launcher that only records: how many requests are open at
 * the RM, which containers are released, what is started.
 */
class WorkersTest {
  private static final Priority WORKER = Priority.newInstance(1);
  private static final Resource SIZE = Resource.newInstance(128, 1);
  private static final Epoch EPOCH = new Epoch(1, 1, "i-test");
  private static final ApplicationAttemptId ATTEMPT =
      ApplicationAttemptId.newInstance(ApplicationId.newInstance(1, 1), 1);

  /** Hadoop's client with its releases and blacklist additions recorded. */
  static final class RecordingClient extends AMRMClientImpl<ContainerRequest> {
    final List<ContainerId> released = new CopyOnWriteArrayList<>();
    final List<String> blacklisted = new CopyOnWriteArrayList<>();

    @Override
    public synchronized void updateBlacklist(List<String> additions, List<String> removals) {
      blacklisted.addAll(additions);
      super.updateBlacklist(additions, removals);
    }

    @Override
    public synchronized void releaseAssignedContainer(ContainerId id) {
      released.add(id);
      super.releaseAssignedContainer(id);
    }
  }

  private final RecordingClient client = new RecordingClient();
  private final List<ContainerId> launched = new CopyOnWriteArrayList<>();
  private final List<String> gaveUp = new CopyOnWriteArrayList<>();
  private final List<Epoch> gaveUpIn = new CopyOnWriteArrayList<>();
  private long nextContainer = 2;
  private Workers workers;
  private java.util.function.BiConsumer<ContainerId, Throwable> startFailed;

  private Workers workers(int max) {
    return workers(max, false, "");
  }

  private Workers workers(int max, boolean portInNodeName, String label) {
    Configuration conf = new Configuration(false);
    conf.set(AmSettings.NODE_LABEL, label);
    conf.set(AmSettings.NAME, "w");
    conf.set("amlease.zk.connect", "127.0.0.1:2181");
    conf.set(AmSettings.MASTER_COMMAND, "[\"true\"]");
    conf.set(AmSettings.WORKER_COMMAND, "sleep 600");
    conf.set(AmSettings.WORKER_MEMORY, "128");
    conf.setInt(AmSettings.WORKER_MAX_FAILURES, max);
    AMRMClientAsync<ContainerRequest> rm = AMRMClientAsync.createAMRMClientAsync(client, 1000,
        new AMRMClientAsync.AbstractCallbackHandler() {
          @Override public void onContainersCompleted(List<ContainerStatus> s) {}
          @Override public void onContainersAllocated(List<Container> c) {}
          @Override public void onContainersUpdated(
              List<org.apache.hadoop.yarn.api.records.UpdatedContainer> c) {}
          @Override public void onShutdownRequest() {}
          @Override public void onNodesUpdated(
              List<org.apache.hadoop.yarn.api.records.NodeReport> n) {}
          @Override public float getProgress() {
            return 0;
          }
          @Override public void onError(Throwable e) {}
        });
    workers = new Workers(AmSettings.from(conf), Map.of(), Map.of(), rm, (e, d) -> {
          gaveUpIn.add(e);
          gaveUp.add(d);
        },
        hook -> new Workers.Launcher() {
          {
            startFailed = hook;
          }

          @Override public void launch(Container c, org.apache.hadoop.yarn.api.records
              .ContainerLaunchContext ctx) {
            launched.add(c.getId());
          }

          @Override public void close() {}
        }, portInNodeName);
    return workers;
  }

  @AfterEach
  void close() {
    if (workers != null) {
      workers.close();
    }
  }

  /** Container requests open at the RM, as Hadoop's client would send them. */
  private int open() {
    List<? extends Collection<ContainerRequest>> m =
        client.getMatchingRequests(WORKER, ResourceRequest.ANY, SIZE);
    return m.isEmpty() ? 0 : m.get(0).size();
  }

  private List<Container> allocate(int n) {
    List<Container> cs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      cs.add(Container.newInstance(ContainerId.newContainerId(ATTEMPT, nextContainer++),
          NodeId.newInstance("node" + (i % 2), 1), "node:2", SIZE, WORKER, null));
    }
    workers.allocated(cs);
    return cs;
  }

  private static ContainerStatus ended(Container c, int exit) {
    return ContainerStatus.newInstance(c.getId(), ContainerState.COMPLETE, "", exit);
  }

  @Test
  void flexDownWithdrawsRequestsThenStopsTheNewestAndTheirEndIsNoFailure() {
    Workers w = workers(10);
    w.lead(EPOCH, 3);
    assertThat(open()).isEqualTo(3);
    List<Container> first = allocate(2);
    assertThat(open()).isEqualTo(1);

    w.lead(EPOCH, 1);
    assertThat(open()).as("the open request is withdrawn first").isZero();
    assertThat(client.released).as("then the newest worker is stopped")
        .containsExactly(first.get(1).getId());
    w.completed(List.of(ended(first.get(1), ContainerExitStatus.KILLED_BY_APPMASTER)));
    assertThat(w.running()).isEqualTo(1);
    assertThat(w.failures()).isZero();
    assertThat(w.restarts()).isZero();
    assertThat(open()).as("a stopped worker is not replaced").isZero();

    w.lead(EPOCH, 2);
    assertThat(open()).isEqualTo(1);
    assertThat(launched).hasSize(2);
  }

  /**
   * A failed worker's replacement waits for its backoff; a flex (or the same count told again)
   * meanwhile must not ask for it a second time, and a flex down must cancel it.
   */
  @Test
  void aReplacementWaitingForItsBackoffIsAskedForOnceAndNotAfterAFlexDown() {
    Workers w = workers(10);
    w.lead(EPOCH, 2);
    List<Container> cs = allocate(2);
    w.completed(List.of(ended(cs.get(0), 1)));
    assertThat(w.failures()).isEqualTo(1);
    w.lead(EPOCH, 2);
    assertThat(open()).as("during the backoff").isZero();
    await().atMost(Duration.ofSeconds(5)).until(() -> open() == 1);
    await().during(Duration.ofMillis(300)).until(() -> open() == 1);

    allocate(1);
    w.completed(List.of(ended(cs.get(1), 1)));
    assertThat(w.failures()).isEqualTo(2);
    w.lead(EPOCH, 1);
    // The second backoff (2 s) ends with one worker running and a count of 1: nothing to ask for.
    await().during(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(4)).until(() -> open() == 0);
    assertThat(w.running()).isEqualTo(1);
  }

  /** With --node-label every worker request asks for the label (not only the application). */
  @Test
  void workerRequestsCarryTheNodeLabel() {
    Workers w = workers(10, false, "ssd");
    w.lead(EPOCH, 2);
    List<? extends Collection<ContainerRequest>> m =
        client.getMatchingRequests(WORKER, ResourceRequest.ANY, SIZE);
    assertThat(m.get(0)).hasSize(2)
        .allSatisfy(r -> assertThat(r.getNodeLabelExpression()).isEqualTo("ssd"));
  }

  /**
   * Two failures on one node while a worker runs elsewhere: the node is avoided under the name
   * the scheduler matches blacklists against, host:port when the RM includes ports.
   */
  @Test
  void aNodeWhereWorkersKeepFailingIsBlacklistedByItsSchedulerName() {
    Workers w = workers(10, true, "");
    w.lead(EPOCH, 2);
    List<Container> cs = allocate(2); // node0:1 and node1:1
    w.completed(List.of(ended(cs.get(0), 1)));
    await().atMost(Duration.ofSeconds(5)).until(() -> open() == 1);
    Container again = allocate(1).get(0); // node0:1 again
    assertThat(client.blacklisted).isEmpty();
    w.completed(List.of(ended(again, 1)));
    assertThat(client.blacklisted).containsExactly("node0:1");
  }

  @Test
  void endsYarnCausedAreReplacedAtOnceAndUncounted() {
    Workers w = workers(10);
    w.lead(EPOCH, 1);
    Container c = allocate(1).get(0);
    w.completed(List.of(ended(c, ContainerExitStatus.PREEMPTED)));
    assertThat(open()).isEqualTo(1);
    assertThat(w.failures()).isZero();
    assertThat(w.restarts()).isEqualTo(1);
  }

  @Test
  void aContainerThatCannotBeStartedIsReleasedCountedAndReplaced() {
    Workers w = workers(10);
    w.lead(EPOCH, 1);
    Container c = allocate(1).get(0);
    assertThat(launched).containsExactly(c.getId());
    startFailed.accept(c.getId(), new java.io.IOException("connection refused"));
    assertThat(client.released).containsExactly(c.getId());
    assertThat(w.running()).isZero();
    assertThat(w.failures()).isEqualTo(1);
    await().atMost(Duration.ofSeconds(5)).until(() -> open() == 1);
  }

  @Test
  void moreFailuresThanTheLimitGiveUpWithTheWorkersLastWords() {
    Workers w = workers(1);
    w.lead(EPOCH, 1);
    Container c = allocate(1).get(0);
    w.completed(List.of(ContainerStatus.newInstance(c.getId(), ContainerState.COMPLETE,
        "line1\nboom", 3)));
    assertThat(gaveUp).isEmpty();
    await().atMost(Duration.ofSeconds(5)).until(() -> open() == 1);
    Container d = allocate(1).get(0);
    w.completed(List.of(ContainerStatus.newInstance(d.getId(), ContainerState.COMPLETE,
        "line1\nboom again", 4)));
    assertThat(gaveUp).singleElement().asString().contains(d.getId().toString())
        .contains("--worker-max-failures 1").endsWith("boom again");
    assertThat(open()).as("nothing asked for after giving up").isEqualTo(0);
    assertThat(gaveUpIn).containsExactly(EPOCH);
  }

  /**
   * Item 6 of issue 24: failures after the term ended are not counted, and nothing is asked for.
   * Before the fix the second failure gave up (and the AM then unregistered the application).
   */
  @Test
  void failuresAfterTheTermEndedAreNotCountedAndNothingIsAskedFor() {
    Workers w = workers(1);
    w.lead(EPOCH, 2);
    List<Container> cs = allocate(2);
    w.termEnded(EPOCH);
    w.completed(List.of(ended(cs.get(0), 3), ended(cs.get(1), 4)));
    assertThat(gaveUp).isEmpty();
    assertThat(open()).as("no replacement asked for after the term").isEqualTo(0);
  }
}
