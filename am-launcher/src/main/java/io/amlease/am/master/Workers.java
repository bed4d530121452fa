package io.amlease.am.master;

import io.amlease.am.AmSettings;
import io.amlease.lease.Durations;
import io.amlease.lease.Epoch;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.client.api.async.AMRMClientAsync;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker containers: requested, launched and replaced only while this attempt leads; adopted,
 * not relaunched, when a previous attempt started them (keep-containers-across-attempts). A worker
 * that fails is replaced after the {@link RestartPolicy}'s backoff; too many failures fail the
 * application through {@link GiveUp}. Thread-safe: the AM's event loop, the NodeManager client's
 * callbacks and the restart timer all call in.
 */
final class Workers implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Workers.class);

  private static final Priority WORKER_PRIORITY = Priority.newInstance(1);
  /** Lines of a failed worker's diagnostics (the NodeManager's tail of its stderr) to report. */
  private static final int TAIL_LINES = 12;

  /** Ends of a worker that YARN caused, not the worker: replaced at once, never counted. */
  private static final Set<Integer> NOT_THE_WORKERS_FAULT = Set.of(
      ContainerExitStatus.KILLED_BY_APPMASTER, ContainerExitStatus.PREEMPTED,
      ContainerExitStatus.ABORTED, ContainerExitStatus.DISKS_FAILED,
      ContainerExitStatus.KILLED_AFTER_APP_COMPLETION, ContainerExitStatus.KILLED_BY_RESOURCEMANAGER,
      ContainerExitStatus.KILLED_BY_CONTAINER_SCHEDULER);

  /** Told once, on any thread, when worker failures within term {@code epoch} exceed the limit. */
  interface GiveUp {
    void giveUp(Epoch epoch, String diagnostic);
  }

  private final AmSettings settings;
  private final Map<String, LocalResource> files;
  private final Map<String, String> attemptEnv;
  private final AMRMClientAsync<ContainerRequest> rm;
  private final Launcher launcher;
  private final boolean portInNodeName;
  private final RestartPolicy policy;
  private final LongSupplier nanos;
  private final GiveUp giveUp;
  private final ScheduledExecutorService timer;
  private final Map<ContainerId, Container> running = new ConcurrentHashMap<>();
  /** Stopped by this AM because the count went down: their end is neither a failure nor replaced. */
  private final Set<ContainerId> retiring = ConcurrentHashMap.newKeySet();
  /** Container requests outstanding at the RM. */
  private int pending;
  /** Replacements waiting for their backoff ({@link #replaceOne}): no request yet. */
  private int waiting;
  private volatile int target;
  private volatile long restarts;
  private volatile long failures;
  private volatile int adopted;
  private Epoch epoch;
  private boolean stopping;

  /** Starts worker containers: the NodeManager client, or a test's stand-in. */
  interface Launcher extends AutoCloseable {
    void launch(Container c, ContainerLaunchContext ctx);

    @Override
    void close();
  }

  /**
   * @param files the shipped files, localized in every worker
   * @param attemptEnv the environment every worker gets besides the epoch (the AM's contract)
   */
  Workers(AmSettings settings, Map<String, LocalResource> files, Map<String, String> attemptEnv,
      AMRMClientAsync<ContainerRequest> rm, Configuration conf, GiveUp giveUp) {
    this(settings, files, attemptEnv, rm, giveUp, startFailed -> new NmLauncher(conf, startFailed),
        conf.getBoolean(YarnConfiguration.RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME,
            YarnConfiguration.DEFAULT_RM_SCHEDULER_USE_PORT_FOR_NODE_NAME));
  }

  /**
   * @param launchers makes the launcher, given what to call when a container fails to start
   * @param portInNodeName the RM names nodes host:port, not host
   */
  Workers(AmSettings settings, Map<String, LocalResource> files, Map<String, String> attemptEnv,
      AMRMClientAsync<ContainerRequest> rm, GiveUp giveUp,
      Function<BiConsumer<ContainerId, Throwable>, Launcher> launchers, boolean portInNodeName) {
    this.portInNodeName = portInNodeName;
    this.settings = settings;
    this.files = Map.copyOf(files);
    this.attemptEnv = Map.copyOf(attemptEnv);
    this.rm = rm;
    this.giveUp = giveUp;
    this.nanos = System::nanoTime;
    this.policy = new RestartPolicy(settings.workerMaxFailures(), settings.workerFailuresValidity());
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "amlease-worker-restarts");
      t.setDaemon(true);
      return t;
    });
    this.launcher = launchers.apply(this::startFailed);
  }

  /** Workers running now (thread-safe, for the status page). */
  int running() {
    return running.size();
  }

  /** Workers that ended while this attempt led, and were asked for again. */
  long restarts() {
    return restarts;
  }

  /** Worker ends counted against --worker-max-failures (within the window or not). */
  long failures() {
    return failures;
  }

  /** Workers this attempt runs: the submitted count, or the last one {@code flex} asked for. */
  int target() {
    return target;
  }

  /** Workers taken over from previous attempts. */
  int adopted() {
    return adopted;
  }

  /**
   * Takes over the workers a previous attempt started. The RM also hands over that attempt's own AM
   * container while it still believes it runs (its node is lost, or the kill has not landed yet);
   * that one is not a worker, and only the worker priority tells them apart.
   */
  synchronized void adopt(List<Container> previous) {
    for (Container c : previous) {
      if (!WORKER_PRIORITY.equals(c.getPriority())) {
        continue;
      }
      running.put(c.getId(), c);
      adopted++;
      LOG.info("adopted worker {} from a previous attempt", c.getId());
    }
  }

  /**
   * This attempt leads in epoch {@code e} with {@code workers} workers: asks for the missing ones,
   * or withdraws requests and stops workers beyond the count (the newest first). Called again
   * whenever the count changes.
   */
  synchronized void lead(Epoch e, int workers) {
    epoch = e;
    target = workers;
    trim();
    topUp();
  }

  /** Workers running and not being stopped. */
  private int live() {
    return (int) running.keySet().stream().filter(id -> !retiring.contains(id)).count();
  }

  private void trim() {
    int extraRequests = live() + pending + waiting - target;
    while (extraRequests > 0 && pending > 0) {
      List<? extends Collection<ContainerRequest>> asked = rm.getMatchingRequests(WORKER_PRIORITY,
          ResourceRequest.ANY, requested());
      if (asked.isEmpty() || asked.get(0).isEmpty()) {
        break;
      }
      rm.removeContainerRequest(asked.get(0).iterator().next());
      pending--;
      extraRequests--;
    }
    List<Container> newestFirst = running.values().stream()
        .filter(c -> !retiring.contains(c.getId()))
        .sorted(java.util.Comparator.comparing(Container::getId).reversed()).toList();
    for (int i = 0; i < newestFirst.size() - target; i++) {
      Container c = newestFirst.get(i);
      retiring.add(c.getId());
      LOG.info("stopping worker {}: the count is now {}", c.getId(), target);
      stop(c);
    }
  }

  private synchronized void topUp() {
    if (stopping || epoch == null) {
      return;
    }
    // Waiting replacements count too: replaceOne() asks only for what is still missing then.
    int missing = target - live() - pending - waiting;
    for (int i = 0; i < missing; i++) {
      rm.addContainerRequest(new ContainerRequest(requested(), null, null, WORKER_PRIORITY, true,
          settings.nodeLabel().isEmpty() ? null : settings.nodeLabel()));
      pending++;
    }
  }

  private Resource requested() {
    return Resource.newInstance(settings.workerMemoryMb(), settings.workerVcores());
  }

  synchronized void allocated(List<Container> containers) {
    for (Container c : containers) {
      if (pending == 0 || epoch == null || stopping) {
        rm.releaseAssignedContainer(c.getId());
        continue;
      }
      pending--;
      // By what was asked: the scheduler may round the container's size up, and a request for
      // the rounded size would match nothing and stay, allocating one more container later.
      List<? extends Collection<ContainerRequest>> asked = rm.getMatchingRequests(WORKER_PRIORITY,
          ResourceRequest.ANY, requested());
      if (!asked.isEmpty() && !asked.get(0).isEmpty()) {
        rm.removeContainerRequest(asked.get(0).iterator().next());
      }
      running.put(c.getId(), c);
      Map<String, String> env = new java.util.HashMap<>(settings.env());
      env.putAll(attemptEnv);
      env.put("AMLEASE_EPOCH", Long.toString(epoch.value()));
      env.put("AMLEASE_EPOCH_TOKEN", Integer.toString(epoch.token()));
      env.put("AMLEASE_EPOCH_INCARNATION", epoch.incarnation());
      ContainerLaunchContext ctx = ContainerLaunchContext.newInstance(files, env,
          List.of(containerCommand(settings.workerCommand())), null,
          ContainerTokens.ofThisAm(), null);
      launcher.launch(c, ctx);
    }
  }

  /**
   * The worker container's command: the worker command run by bash, its output in the container's
   * logs. The NodeManager's launch script runs it inside a double-quoted {@code bash -c "…"}, so
   * every dollar sign, backquote, double quote and backslash is escaped for that string, and the
   * inner {@code bash -c '…'} gets the command exactly as the user wrote it: its quotes work, and
   * {@code $$} or {@code $(…)} are the worker's own.
   */
  static String containerCommand(String workerCommand) {
    String inner = "bash -c '" + workerCommand.replace("'", "'\\''") + "'";
    return inner.replaceAll("([$`\"\\\\])", "\\\\$1")
        + " 1><LOG_DIR>/worker.stdout 2><LOG_DIR>/worker.stderr";
  }

  synchronized void completed(List<ContainerStatus> statuses) {
    for (ContainerStatus s : statuses) {
      Container c = running.remove(s.getContainerId());
      if (c == null) {
        continue;
      }
      if (retiring.remove(s.getContainerId())) {
        LOG.info("worker {} stopped (exit {})", s.getContainerId(), s.getExitStatus());
        continue;
      }
      LOG.info("worker {} ended (exit {}, {})", s.getContainerId(), s.getExitStatus(),
          s.getDiagnostics());
      if (stopping || epoch == null) {
        continue;
      }
      if (NOT_THE_WORKERS_FAULT.contains(s.getExitStatus())) {
        restarts++;
        topUp();
      } else {
        failed(c, "exited with status " + s.getExitStatus(), s.getDiagnostics());
      }
    }
  }

  /** The NodeManager could not start the container: a failure, and the container is released. */
  private synchronized void startFailed(ContainerId id, Throwable t) {
    LOG.warn("worker {} failed to start: {}", id, t.toString());
    Container c = running.remove(id);
    if (c == null) {
      return;
    }
    rm.releaseAssignedContainer(id);
    if (retiring.remove(id)) {
      return; // Being stopped anyway: not a failure.
    }
    if (!stopping && epoch != null) {
      failed(c, "could not be started", t.toString());
    }
  }

  private void failed(Container c, String what, String diagnostics) {
    failures++;
    String host = nodeName(c.getNodeId());
    boolean elsewhere = running.values().stream()
        .anyMatch(r -> !nodeName(r.getNodeId()).equals(host));
    RestartPolicy.Verdict v = policy.failed(nanos.getAsLong(), host, elsewhere);
    if (v.avoidNode()) {
      LOG.warn("{} workers failed on {} within {} while others run elsewhere: no more workers "
          + "there", RestartPolicy.NODE_FAILURES, host,
          Durations.format(settings.workerFailuresValidity()));
      // AMRMClient edits the lists it is given.
      rm.updateBlacklist(new ArrayList<>(List.of(host)), new ArrayList<>());
    }
    if (v.giveUp()) {
      stopping = true;
      giveUp.giveUp(epoch, "worker " + c.getId() + " on " + host + " " + what + "; " + v.failures()
          + " worker failures within " + Durations.format(settings.workerFailuresValidity())
          + " (--worker-max-failures " + policy.maxFailures() + "). Its last words:\n"
          + tail(diagnostics));
      return;
    }
    restarts++;
    LOG.warn("worker {} on {} {}; failure {} of at most {} within {}; replacing it in {}", c.getId(),
        host, what, v.failures(), policy.maxFailures(),
        Durations.format(settings.workerFailuresValidity()), Durations.format(v.delay()));
    waiting++; // Counted now, so that nothing else asks for it meanwhile.
    timer.schedule(this::replaceOne, v.delay().toMillis(), TimeUnit.MILLISECONDS);
  }

  private synchronized void replaceOne() {
    waiting--;
    topUp();
  }

  /**
   * A node as the scheduler names it, which is what a blacklist must say: its host, or host:port
   * where the RM tells NodeManagers on one host apart (yarn.scheduler.include-port-in-node-name).
   */
  private String nodeName(NodeId node) {
    return portInNodeName ? node.getHost() + ":" + node.getPort() : node.getHost();
  }

  private static String tail(String text) {
    String[] lines = text.strip().split("\n");
    return String.join("\n", java.util.Arrays.asList(lines)
        .subList(Math.max(0, lines.length - TAIL_LINES), lines.length));
  }

  /**
   * Term {@code e} is over: workers are neither counted nor asked for any more, so that failures
   * after the term cannot end the application (only a confirmed term may, G4). The running ones are
   * left alone, for the next attempt to adopt.
   */
  synchronized void termEnded(Epoch e) {
    if (e.equals(epoch)) {
      epoch = null;
      LOG.info("epoch {} is over: no more worker accounting or requests", e);
    }
  }

  /** Clean finish: stop every worker (adopted ones included). */
  synchronized void stopAll() {
    stopping = true;
    running.values().forEach(this::stop);
  }

  /**
   * Has the RM stop {@code c} (its NodeManager kills it as for any release). Not through the
   * NodeManager client: that knows only the containers this attempt started, not adopted ones.
   */
  private void stop(Container c) {
    rm.releaseAssignedContainer(c.getId());
  }

  @Override
  public void close() {
    timer.shutdownNow();
    launcher.close();
  }
}
