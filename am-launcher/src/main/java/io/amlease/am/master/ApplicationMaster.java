package io.amlease.am.master;

import io.amlease.am.AmSettings;
import io.amlease.am.web.AmWebServer;
import io.amlease.process.ChildProcess;
import io.amlease.process.DeadlineFeed;
import io.amlease.process.Signals;
import io.amlease.process.ThisJvm;
import io.amlease.status.StatusReplies;
import io.amlease.lease.Epoch;
import io.amlease.lease.LeaderDetails;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseException;
import io.amlease.lease.LeaseListener;
import io.amlease.lease.RevocationReason;
import io.amlease.lease.zk.ZkLease;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.protocolrecords.RegisterApplicationMasterResponse;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.api.records.UpdatedContainer;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.client.api.async.AMRMClientAsync;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.ApplicationAttemptNotFoundException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ApplicationMaster: campaigns for the lease as its attempt, and only while it holds it runs the
 * master command and keeps the worker containers. Everything that happens (lease edges, the master's
 * exit, RM callbacks, signals) is an event on one queue, handled on the main thread.
 *
 * <p>The master runs only in a term this attempt holds, and only once a look at the contenders
 * taken after the grant found no newer attempt (G6). Its exit ends the application only if the AM
 * still holds that term, as ZooKeeper confirms; otherwise it is a lease loss (G4).
 *
 * <p>Exit status: 0 after unregistering (master finished; FINISHED/SUCCEEDED or FAILED), 75 when the
 * lease was lost or a newer attempt took over, leading or still campaigning — without unregistering,
 * so YARN may start another attempt, and without releasing worker containers, so that attempt can
 * adopt them; 128+N on signal N (a kill of the application or of this attempt): master stopped,
 * lease released, workers left.
 */
public final class ApplicationMaster {
  private static final Logger LOG = LoggerFactory.getLogger(ApplicationMaster.class);
  public static final String SETTINGS_FILE = "amlease-am.xml";
  public static final int LEASE_LOST = 75;
  private static final Duration NEWER_ATTEMPT_CHECK = Duration.ofSeconds(1);
  /** Before looking at the contenders again after a look that could not read them. */
  private static final Duration RECHECK = Duration.ofMillis(200);
  /** How long a master that died of a signal waits for the AM's own signal (same process group). */
  private static final Duration SIGNAL_WINDOW = Duration.ofSeconds(1);

  private sealed interface Event {}
  private record Granted(Epoch epoch) implements Event {}
  private record Revoked(RevocationReason reason) implements Event {}
  private record Failed(LeaseException cause) implements Event {}
  /** The contenders as seen after the grant of {@code epoch}: a newer attempt, none, or unknown. */
  private record Checked(Epoch epoch, Optional<ApplicationAttemptId> newer, Throwable failure)
      implements Event {}
  private record MasterExited(Epoch epoch, int status) implements Event {}
  private record Allocated(List<Container> containers) implements Event {}
  private record Completed(List<ContainerStatus> statuses) implements Event {}
  private record RmShutdown(String why) implements Event {}
  private record Signalled(String name, int number) implements Event {}
  private record NewerAttempt(ApplicationAttemptId attempt) implements Event {}
  private record WorkersFailed(Epoch epoch, String diagnostic) implements Event {}
  /** The workers, for the lease's listener (which runs on the lease's event thread). */
  private volatile Workers workersOfTerm;
  /** The worker count for {@code epoch}, applied in ZooKeeper ({@link WorkerCount}). */
  private record WorkerTarget(Epoch epoch, int workers) implements Event {}

  private final BlockingDeque<Event> events = new LinkedBlockingDeque<>();
  private final AmSettings settings;
  private final ApplicationAttemptId attempt;
  private final ContainerId containerId;
  private final Configuration yarnConf;
  private final String host;
  private final String staging;

  /**
   * @param host the NodeManager's host: advertised to the RM and in the leader info, and where the
   *     status page listens
   * @param staging the application's staging directory, deleted once the application is terminal
   *     (null: nothing to delete)
   */
  ApplicationMaster(AmSettings settings, ContainerId containerId, String host, String staging,
      Configuration yarnConf) {
    this.settings = settings;
    this.containerId = containerId;
    this.attempt = containerId.getApplicationAttemptId();
    this.host = host;
    this.staging = staging;
    this.yarnConf = yarnConf;
  }

  public static void main(String[] args) throws Exception {
    Configuration conf = new YarnConfiguration();
    conf.addResource(new File(SETTINGS_FILE).toURI().toURL());
    ContainerId id = ContainerId.fromString(
        System.getenv(ApplicationConstants.Environment.CONTAINER_ID.name()));
    String nmHost = System.getenv(ApplicationConstants.Environment.NM_HOST.name());
    String host = nmHost != null && !nmHost.isBlank() ? nmHost
        : InetAddress.getLocalHost().getCanonicalHostName();
    int status;
    try {
      status = new ApplicationMaster(AmSettings.from(conf), id, host,
          System.getenv("AMLEASE_STAGING"), conf).run();
    } catch (Exception e) {
      LOG.error("ApplicationMaster failed", e);
      status = 1;
    }
    System.exit(status);
  }

  int run() throws Exception {
    AMRMClientAsync<ContainerRequest> rm = null;
    Workers workers = null;
    ZkLease lease = null;
    ChildProcess master = null;
    Epoch granted = null;
    NewerAttemptWatch newer = null;
    TermCheck term = null;
    WorkerCount count = null;
    AmStatus status = new AmStatus(containerId, host, settings.lease().leasePath(),
        attempt.toString());
    AmWebServer web = null;
    TokenRefresher tokens = null;
    try {
      web = AmWebServer.start(host, new StatusReplies("amlease ApplicationMaster " + attempt,
          status::snapshot, status::metrics), yarnConf, settings.metricsPort());
      rm = AMRMClientAsync.createAMRMClientAsync(1000, rmCallbacks());
      rm.init(yarnConf);
      rm.start();
      // The lease needs nothing from the RM (the attempt is in CONTAINER_ID): registering runs
      // beside connecting and campaigning, so a next attempt leads that much sooner after a kill.
      // The grant only queues an event; nothing acts on it before the loop below.
      CompletableFuture<RegisterApplicationMasterResponse> registering = register(rm, web);

      // The attempt number is the lease's generation: once a later attempt has campaigned, this one
      // can no longer acquire, whatever the order of the two in the election (G6).
      KeytabLogin.install(settings);
      LeaseConfig config = LeaseConfig.fromMap(settings.lease().toMap()).holderId(attempt.toString())
          .generation(attempt.getAttemptId())
          .details(new LeaderDetails(host, web.port(), urls(web),
              attempt.getApplicationId().toString(), attempt.toString(), containerId.toString()))
          .build();
      lease = ZkLease.create(config, listener());
      status.lease(lease);
      term = new TermCheck(lease);
      count = new WorkerCount(lease, config.connectString(), config.connectionTimeout(),
          config.leasePath(), settings.workers(), !settings.workerCommand().isEmpty(),
          (epoch, n) -> events.add(new WorkerTarget(epoch, n)));
      try {
        lease.start();
      } catch (LeaseException.Outdated o) {
        LOG.warn("{}: exiting {} without unregistering", o.getMessage(), LEASE_LOST);
        return LEASE_LOST;
      }

      RegisterApplicationMasterResponse reg = registered(registering);
      LOG.info("registered {} (attempt {}); {} containers from previous attempts", containerId,
          attempt.getAttemptId(), reg.getContainersFromPreviousAttempts().size());
      tokens = refreshTokens();
      workers = new Workers(settings, ShippedFiles.of(yarnConf, staging, settings.files(),
          settings.archives()),
          attemptEnv(), rm, yarnConf, (epoch, diagnostic) -> events.add(new WorkersFailed(epoch, diagnostic)));
      status.workers(workers);
      workersOfTerm = workers;
      workers.adopt(reg.getContainersFromPreviousAttempts());
      Signals.route(sig -> events.add(new Signalled(sig.getName(), sig.getNumber())));
      newer = new NewerAttemptWatch(attempt, lease, other -> events.add(new NewerAttempt(other)));
      newer.start(NEWER_ATTEMPT_CHECK);

      while (true) {
        Event e = events.take();
        if (e instanceof NewerAttempt n) {
          // Also ends a term that was granted but not acted on yet (its Granted event queued
          // behind this one, or its check pending): that grant must never start the master.
          lease.revoke(RevocationReason.NEWER_ATTEMPT);
          if (granted == null) {
            LOG.warn("attempt {} contends while this attempt campaigns: giving up the campaign and "
                + "exiting {} without unregistering (G6)", n.attempt(), LEASE_LOST);
            return LEASE_LOST;
          }
          return leaseLost(RevocationReason.NEWER_ATTEMPT.name(), master, config);
        } else if (e instanceof Granted g) {
          granted = g.epoch();
          checkContenders(newer, g.epoch(), Duration.ZERO);
        } else if (e instanceof Checked c) {
          if (c.newer().isPresent()) {
            LOG.warn("attempt {} contends for the lease: epoch {} ends before the master starts",
                c.newer().get(), c.epoch());
            lease.revoke(RevocationReason.NEWER_ATTEMPT);
            return leaseLost(RevocationReason.NEWER_ATTEMPT.name(), master, config);
          } else if (!lease.state().holds(c.epoch())) {
            // Revoked meanwhile: its Revoked event is queued; a master must not start now.
            LOG.info("epoch {} ended before the master started", c.epoch());
          } else if (c.failure() != null) {
            // Unknown is not "none". If ZooKeeper stays unreachable the deadline revokes.
            LOG.info("cannot look for a newer attempt before starting the master ({}); retrying",
                c.failure().toString());
            checkContenders(newer, c.epoch(), RECHECK);
          } else {
            master = startMaster(config, lease, c.epoch());
            if (master == null) {
              continue; // The term ended as the master's gate was set up: its Revoked is queued.
            }
            // If this JVM is killed, the master's reaper ends the session once the master's group
            // is gone, so the next attempt acquires without waiting for it to expire.
            lease.termSession().ifPresent(master::handOverSession);
            count.lead(c.epoch()); // The workers follow once the count is known (WorkerTarget).
          }
        } else if (e instanceof WorkerTarget t) {
          if (lease.state().holds(t.epoch())) {
            workers.lead(t.epoch(), t.workers());
          }
        } else if (e instanceof MasterExited x && x.status() > 128
            && signalledWithin(SIGNAL_WINDOW) instanceof Signalled s) {
          // The NodeManager signals the container's whole process group: the master died of the
          // signal the AM got too. That is a kill, not the master finishing.
          return stopOnSignal(s, master, lease, config);
        } else if (e instanceof MasterExited x) {
          // Blocks the loop at most until the term's deadline, which G2 allows here: the master is
          // gone, and a revocation leaves the workers running, so nothing has to stop meanwhile.
          if (!term.holds(x.epoch())) {
            // E.g. its own fenced write was refused, or the revocation is queued behind its
            // exit: the application goes on under the next holder, with these workers.
            LOG.warn("master command exited with status {} after epoch {} ended", x.status(),
                x.epoch());
            return leaseLost(lease.state().lastRevocation().map(Enum::name)
                .orElse("term over"), null, config);
          }
          LOG.info("master command exited with status {}; finishing the application", x.status());
          workers.stopAll();
          lease.release(config.connectionTimeout());
          FinalApplicationStatus fin = x.status() == 0 ? FinalApplicationStatus.SUCCEEDED
              : FinalApplicationStatus.FAILED;
          rm.unregisterApplicationMaster(fin, "master command exited with status " + x.status(), "");
          deleteStaging();
          return 0;
        } else if (e instanceof WorkersFailed w) {
          if (!term.holds(w.epoch())) {
            // Only a confirmed term may end the application (G4), as for the master's exit.
            LOG.warn("worker failures exceeded the limit after epoch {} ended: {}", w.epoch(),
                w.diagnostic());
            return leaseLost(lease.state().lastRevocation().map(Enum::name)
                .orElse("term over"), master, config);
          }
          LOG.error("failing the application: {}", w.diagnostic());
          if (master != null) {
            master.terminate(config.stopTimeout());
          }
          workers.stopAll();
          lease.release(config.connectionTimeout());
          rm.unregisterApplicationMaster(FinalApplicationStatus.FAILED, w.diagnostic(), "");
          deleteStaging();
          return 0;
        } else if (e instanceof Revoked r) {
          return leaseLost(r.reason().name(), master, config);
        } else if (e instanceof RmShutdown s) {
          LOG.warn("{}: yielding to the newer attempt", s.why());
          lease.revoke(RevocationReason.RM_SHUTDOWN);
          return leaseLost(RevocationReason.RM_SHUTDOWN.name(), master, config);
        } else if (e instanceof Failed f && f.cause() instanceof LeaseException.Outdated) {
          // A newer attempt raised the lease's generation first: it is YARN's attempt now (G6).
          LOG.warn("{}: exiting {} without unregistering", f.cause().getMessage(), LEASE_LOST);
          return LEASE_LOST;
        } else if (e instanceof Failed f) {
          LOG.error("cannot campaign: {}", f.cause().getMessage());
          return 1;
        } else if (e instanceof Signalled s) {
          return stopOnSignal(s, master, lease, config);
        } else if (e instanceof Allocated a) {
          workers.allocated(a.containers());
        } else if (e instanceof Completed c) {
          workers.completed(c.statuses());
        }
      }
    } finally {
      if (master != null && !master.onExit().isDone()) {
        // Leaving abnormally (an exception in the loop): stop the master before the lease is
        // closed and released, or the next attempt could act beside it (G2).
        LOG.warn("leaving while the master command runs; stopping it first");
        master.terminate(settings.lease().stopTimeout());
      }
      if (newer != null) {
        newer.close();
      }
      if (term != null) {
        term.close();
      }
      if (count != null) {
        count.close();
      }
      if (lease != null) {
        lease.close();
      }
      if (workers != null) {
        workers.close();
      }
      if (rm != null) {
        rm.stop();
      }
      if (web != null) {
        web.close();
      }
      if (tokens != null) {
        tokens.close();
      }
    }
  }

  /** Registers with the RM on a thread of its own; the answer is waited for by {@link #registered}. */
  private CompletableFuture<RegisterApplicationMasterResponse> register(
      AMRMClientAsync<ContainerRequest> rm, AmWebServer web) {
    CompletableFuture<RegisterApplicationMasterResponse> reg = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        reg.complete(rm.registerApplicationMaster(host, web.port(), web.url()));
      } catch (Throwable e) {
        reg.completeExceptionally(e);
      }
    }, "amlease-register");
    t.setDaemon(true);
    t.start();
    return reg;
  }

  /** The registration's answer, or what registering threw, as if it had been called here. */
  private static RegisterApplicationMasterResponse registered(
      CompletableFuture<RegisterApplicationMasterResponse> registering) throws Exception {
    try {
      return registering.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      throw e;
    }
  }

  /**
   * On a secure cluster with a keytab: fresh delegation tokens now (the staged files may be past
   * the submission tokens' lifetime) and on schedule. Null when there is nothing to refresh.
   */
  private TokenRefresher refreshTokens() throws IOException {
    if (settings.keytab().isEmpty()) {
      return null;
    }
    if (!UserGroupInformation.isSecurityEnabled()) {
      LOG.info("Hadoop security is off: the keytab serves ZooKeeper's SASL login only");
      return null;
    }
    TokenRefresher refresher = new TokenRefresher(settings.principal(), settings.keytab(),
        yarnConf, staging, java.time.Clock.systemUTC());
    refresher.start();
    return refresher;
  }

  /** The leader info's URLs: the tracking URL, and the open metrics port's if there is one. */
  private static Map<String, String> urls(AmWebServer web) {
    Map<String, String> urls = new java.util.TreeMap<>(Map.of("tracking", web.url()));
    web.metricsUrl().ifPresent(m -> urls.put("metrics", m));
    return urls;
  }

  /** G6 before acting on the grant of {@code epoch}; the answer comes back as a Checked event. */
  private void checkContenders(NewerAttemptWatch watch, Epoch epoch, Duration delay) {
    watch.check(delay).whenComplete((other, failure) ->
        events.add(new Checked(epoch, other == null ? Optional.empty() : other, failure)));
  }

  /**
   * The term is over (or was never acted on): stop the master if one runs and exit 75 without
   * unregistering, leaving the workers and the staging directory to the next attempt.
   */
  private int leaseLost(String why, ChildProcess master, LeaseConfig config) {
    LOG.warn("lease lost ({}): {}exiting {} without unregistering", why,
        master == null ? "" : "stopping the master command and ", LEASE_LOST);
    if (master != null) {
      master.terminate(config.stopTimeout());
    }
    return LEASE_LOST;
  }

  /**
   * SIGTERM from the NodeManager: the application is being killed, or only this attempt (the RM
   * gave up on it). Either way the master stops and the lease is released, so that a next attempt
   * acquires at once (G5). The workers are left alone: on a kill of the application YARN stops
   * them itself, and on a kill of the attempt the next attempt adopts them.
   */
  private int stopOnSignal(Signalled s, ChildProcess master, ZkLease lease, LeaseConfig config) {
    LOG.info("SIG{} (the application or this attempt is being killed): stopping the master and "
        + "releasing the lease; the workers are YARN's to stop or the next attempt's to adopt",
        s.name());
    if (master != null) {
      master.terminate(config.stopTimeout());
    }
    lease.release(config.connectionTimeout());
    return 128 + s.number();
  }

  /** The next event if it is a signal arriving within {@code window}; other events stay queued. */
  private Event signalledWithin(Duration window) throws InterruptedException {
    long deadline = System.nanoTime() + window.toNanos();
    List<Event> others = new ArrayList<>();
    try {
      while (true) {
        long left = deadline - System.nanoTime();
        Event e = left <= 0 ? null : events.poll(left, TimeUnit.NANOSECONDS);
        if (e == null || e instanceof Signalled) {
          return e;
        }
        others.add(e);
      }
    } finally {
      // Back in front, in their order: nothing is lost and RM events keep their sequence.
      Collections.reverse(others);
      others.forEach(events::addFirst);
    }
  }

  /** The application is terminal now: its staged jar and settings are no longer needed. */
  private void deleteStaging() {
    if (staging == null) {
      return;
    }
    try {
      org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(staging);
      p.getFileSystem(yarnConf).delete(p, true);
    } catch (java.io.IOException e) {
      LOG.warn("cannot delete staging directory {}: {}", staging, e.toString());
    }
  }

  /** What the master and every worker are told of the lease and the attempt, besides the epoch. */
  private Map<String, String> attemptEnv() {
    return Map.of("AMLEASE_LEASE", settings.lease().leasePath(),
        "AMLEASE_ZK", settings.lease().connectString(), "AMLEASE_HOLDER", attempt.toString(),
        "AMLEASE_APPLICATION_ID", attempt.getApplicationId().toString(),
        "AMLEASE_ATTEMPT_ID", attempt.toString());
  }

  /** The master, or null when the term ended before it was released from its start gate. */
  private ChildProcess startMaster(LeaseConfig config, ZkLease lease, Epoch epoch)
      throws Exception {
    Map<String, String> env = new HashMap<>(settings.env());
    env.putAll(attemptEnv());
    env.putAll(Map.of("AMLEASE_EPOCH", Long.toString(epoch.value()),
        "AMLEASE_EPOCH_TOKEN", Integer.toString(epoch.token()),
        "AMLEASE_EPOCH_INCARNATION", epoch.incarnation(),
        "AMLEASE_PUBLISH", ThisJvm.publishCommand(config, KeytabLogin.jaasFile(settings))));
    ChildProcess child;
    try {
      child = ChildProcess.start(settings.masterCommand(), env, config.stopTimeout(),
          () -> lease.state().timeLeftIn(epoch));
    } catch (ChildProcess.NotReleased e) {
      LOG.info("epoch {} ended before the master started", epoch.value());
      return null;
    }
    LOG.info("epoch {}: master command {} running (pid {})", epoch.value(), settings.masterCommand(),
        child.pid());
    child.onExit().thenAccept(status -> events.add(new MasterExited(epoch, status)));
    // The dead-man's switch: should this JVM be paused or stuck, the reaper stops the master at
    // the term's deadline. Closed with the JVM; it stops by itself once the term is over.
    DeadlineFeed.start(child, () -> lease.state().timeLeftIn(epoch));
    return child;
  }

  private LeaseListener listener() {
    return new LeaseListener() {
      @Override
      public void granted(Epoch epoch) {
        events.add(new Granted(epoch));
      }

      @Override
      public void revoked(Epoch epoch, RevocationReason reason) {
        Workers w = workersOfTerm;
        if (w != null) {
          w.termEnded(epoch); // At once: failures queued behind the revocation must not count.
        }
        if (reason != RevocationReason.RELEASED) {
          events.add(new Revoked(reason));
        }
      }

      @Override
      public void failed(LeaseException cause) {
        events.add(new Failed(cause));
      }
    };
  }

  private AMRMClientAsync.AbstractCallbackHandler rmCallbacks() {
    return new AMRMClientAsync.AbstractCallbackHandler() {
      @Override
      public void onContainersCompleted(List<ContainerStatus> statuses) {
        events.add(new Completed(statuses));
      }

      @Override
      public void onContainersAllocated(List<Container> containers) {
        events.add(new Allocated(containers));
      }

      @Override
      public void onContainersUpdated(List<UpdatedContainer> containers) {}

      @Override
      public void onShutdownRequest() {
        events.add(new RmShutdown("the ResourceManager asked this attempt to shut down"));
      }

      @Override
      public void onNodesUpdated(List<NodeReport> updated) {}

      @Override
      public float getProgress() {
        return 0.5f;
      }

      @Override
      public void onError(Throwable e) {
        events.add(new RmShutdown(e instanceof ApplicationAttemptNotFoundException
            ? "the ResourceManager no longer knows attempt " + attempt
            : "ResourceManager client error: " + e));
      }
    };
  }
}
