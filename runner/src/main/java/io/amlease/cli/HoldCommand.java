package io.amlease.cli;

import io.amlease.lease.Durations;
import io.amlease.lease.Epoch;
import io.amlease.lease.Lease;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseConfigException;
import io.amlease.lease.LeaseException;
import io.amlease.lease.LeaseListener;
import io.amlease.lease.LeaseState;
import io.amlease.lease.RevocationReason;
import io.amlease.lease.zk.ZkLease;
import io.amlease.process.ChildProcess;
import io.amlease.process.DeadlineFeed;
import io.amlease.process.ThisJvm;
import io.amlease.process.Signals;
import io.amlease.status.LeaseReport;
import io.amlease.status.PrometheusText;
import io.amlease.status.StatusServer;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.commons.cli.CommandLine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code amlease hold}: wait for the lease, run COMMAND while holding it, stop COMMAND when the lease
 * is lost. Everything that happens is an event on one queue, handled by the main thread.
 */
final class HoldCommand {
  private static final Logger LOG = LoggerFactory.getLogger(HoldCommand.class);
  private static final String DEFAULT_STOP_TIMEOUT = "5s";
  private static final Duration PROGRESS_EVERY = Duration.ofSeconds(10);

  /** The process-launcher seam: how COMMAND is started (a test can see whether it was). */
  @FunctionalInterface
  interface Launcher {
    ChildProcess start(List<String> command, Map<String, String> env, Duration stopTimeout,
        Supplier<Optional<Duration>> term) throws IOException;
  }

  private sealed interface Event {}
  private record Granted(Epoch epoch) implements Event {}
  private record Revoked(Epoch epoch, RevocationReason reason) implements Event {}
  private record Failed(LeaseException cause) implements Event {}
  private record ChildExited(int status) implements Event {}
  private record Signalled(String name, int number) implements Event {}

  private final CommandLines cli = new CommandLines("hold")
      .keyed("zk", "CONNECT", LeaseConfig.CONNECT, "ZooKeeper connect string (required)")
      .keyed("lease", "PATH", LeaseConfig.LEASE_PATH, "lease path in ZooKeeper (required)")
      .keyed("session-timeout", "D", LeaseConfig.SESSION_TIMEOUT,
          "requested ZooKeeper session timeout T (default 30s)")
      .keyed("connect-timeout", "D", LeaseConfig.CONNECTION_TIMEOUT,
          "give up if ZooKeeper is unreachable this long (default 15s)")
      .keyed("grace", "D", LeaseConfig.GRACE, "keep the lease this long without an answer from "
          + "ZooKeeper (default min(2T/3, T·(1−ρ)−slack) of the negotiated T)")
      .keyed("renew-interval", "D", LeaseConfig.RENEW_INTERVAL,
          "renewal period (default a quarter of the G2 budget, within [T/12, T/6])")
      .keyed("id", "NAME", LeaseConfig.HOLDER_ID, "holder id (default host:pid)")
      .keyed("stop-timeout", "D", LeaseConfig.STOP_TIMEOUT, "SIGKILL COMMAND this long after "
          + "SIGTERM; grace + stop-timeout must fit the G2 bound (default 5s)")
      .keyed("acl-credentials", "FILE", LeaseConfig.ACL_CREDENTIALS,
          "file with 'user:password': lease nodes get an ACL only this principal can write")
      .keyed("sasl-principal", "PRINCIPAL", LeaseConfig.SASL_PRINCIPAL, "authenticate to "
          + "ZooKeeper with SASL (JAAS file in -Djava.security.auth.login.config via AMLEASE_OPTS): "
          + "lease nodes get an ACL only this principal can write")
      .keyed("sasl-login-context", "NAME", LeaseConfig.SASL_LOGIN_CONTEXT,
          "JAAS login context for --sasl-principal (default Client)")
      .flag("status-port", "[HOST:]PORT", "serve status.json and Prometheus metrics over HTTP "
          + "(HOST default 127.0.0.1, loopback only; PORT 0 picks a free port, logged at start)");

  private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
  private final PrintStream out;
  private final PrintStream err;
  private final Launcher launcher;

  HoldCommand(PrintStream out, PrintStream err) {
    this(out, err, ChildProcess::start);
  }

  HoldCommand(PrintStream out, PrintStream err, Launcher launcher) {
    this.out = out;
    this.err = err;
    this.launcher = launcher;
  }

  String help() {
    return cli.help("amlease hold --zk CONNECT --lease PATH [options] -- COMMAND [ARGS...]",
        "Waits until it holds the lease, then runs COMMAND with AMLEASE_EPOCH, AMLEASE_EPOCH_TOKEN, "
            + "AMLEASE_EPOCH_INCARNATION, AMLEASE_LEASE, AMLEASE_HOLDER and AMLEASE_ZK in its environment, and AMLEASE_PUBLISH "
            + "('$AMLEASE_PUBLISH rpc=host:port' publishes its endpoints). Durations: 500ms, 10s, "
            + "2m, 1h.\n\n", "\n" + ExitCodes.HOLD_TABLE);
  }

  int run(String[] args) {
    LeaseConfig config;
    List<String> command;
    StatusAddress statusAddress;
    try {
      CommandLines.Parsed parsed = cli.parse(args);
      CommandLine cl = parsed.flags();
      if (cl.hasOption("help")) {
        out.print(help());
        return ExitCodes.OK;
      }
      command = parsed.arguments();
      Map<String, String> keys = cli.keys(cl);
      try {
        keys.putIfAbsent(LeaseConfig.STOP_TIMEOUT, DEFAULT_STOP_TIMEOUT);
        config = LeaseConfig.fromMap(keys).build();
      } catch (LeaseConfigException e) {
        throw new CommandLines.UsageException(cli.describe(e));
      }
      if (command.isEmpty()) {
        throw new CommandLines.UsageException("COMMAND is required after --");
      }
      statusAddress = cl.hasOption("status-port")
          ? StatusAddress.parse("--status-port", cl.getOptionValue("status-port")) : null;
    } catch (CommandLines.UsageException e) {
      err.println("amlease hold: " + e.getMessage());
      err.println("(see amlease hold --help)");
      return ExitCodes.USAGE;
    }
    Signals.route(sig -> events.add(new Signalled(sig.getName(), sig.getNumber())));
    try (ZkLease lease = ZkLease.create(config, listener());
         StatusServer status = statusAddress == null ? null : serveStatus(statusAddress, lease,
             config)) {
      try {
        lease.start();
      } catch (LeaseConfigException e) {
        err.println("amlease hold: " + cli.describe(e));
        return ExitCodes.USAGE;
      } catch (LeaseException e) {
        err.println("amlease hold: " + e.getMessage());
        return exitFor(e);
      }
      return hold(lease, config, command);
    } catch (IOException e) {
      err.println("amlease hold: --status-port " + statusAddress + ": cannot listen: "
          + e.getMessage());
      return ExitCodes.UNAVAILABLE;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return ExitCodes.SOFTWARE;
    }
  }

  private static StatusServer serveStatus(StatusAddress at, ZkLease lease, LeaseConfig config)
      throws IOException {
    return StatusServer.start(at.host(), at.port(), "amlease hold " + config.holderId(),
        () -> LeaseReport.status(config.leasePath(), config.holderId(), lease.state(),
            lease.stats()),
        () -> {
          PrometheusText out = new PrometheusText();
          LeaseReport.metrics(out, lease.state(), lease.stats());
          return out.toString();
        });
  }

  /** Puts the lease's events on hold's queue. */
  LeaseListener listener() {
    return new LeaseListener() {
      @Override
      public void granted(Epoch epoch) {
        events.add(new Granted(epoch));
      }

      @Override
      public void revoked(Epoch epoch, RevocationReason reason) {
        events.add(new Revoked(epoch, reason));
      }

      @Override
      public void failed(LeaseException cause) {
        events.add(new Failed(cause));
      }
    };
  }

  /** Waits for the grant, runs COMMAND through the term; returns hold's exit status. */
  int hold(Lease lease, LeaseConfig config, List<String> command) throws InterruptedException {
    Duration stopTimeout = config.stopTimeout();
    long waitStart = System.nanoTime();
    Epoch epoch = null;
    while (epoch == null) {
      Event e = events.poll(PROGRESS_EVERY.toMillis(), TimeUnit.MILLISECONDS);
      if (e == null) {
        LOG.info("still waiting for {} after {}s; participants: {}", config.leasePath(),
            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - waitStart), participants(lease));
        continue;
      }
      Integer leave = beforeStart(e);
      if (leave != null) {
        return leave;
      }
      if (e instanceof Granted g) {
        // What is already queued behind the grant counts as having come before the start: a
        // revocation of this term (or a signal) there means COMMAND must not start at all.
        List<Event> queued = new ArrayList<>();
        events.drainTo(queued);
        for (Event q : queued) {
          leave = beforeStart(q);
          if (leave != null) {
            return leave;
          }
        }
        // The revocation may have happened with its event not queued yet; the lease's own state
        // (and deadline, should the watchdog be late) is the last word. The term can still end
        // between here and the fork; that revocation is then handled like any other, the moment
        // COMMAND runs.
        LeaseState st = lease.state();
        if (!st.holds(g.epoch())) {
          LOG.warn("epoch {} granted, but the lease is {} (epoch {}, {} left): the term is over; "
              + "not starting COMMAND; exiting {}", g.epoch(), st.phase(),
              st.epoch().map(Epoch::toString).orElse("none"), Durations.format(st.timeLeft()),
              ExitCodes.LEASE_LOST);
          return ExitCodes.LEASE_LOST;
        }
        epoch = g.epoch();
      }
    }
    Epoch started = epoch;
    ChildProcess child;
    try {
      child = launcher.start(command, Map.of(
          "AMLEASE_EPOCH", Long.toString(epoch.value()),
          "AMLEASE_EPOCH_TOKEN", Integer.toString(epoch.token()),
          "AMLEASE_EPOCH_INCARNATION", epoch.incarnation(),
          "AMLEASE_LEASE", config.leasePath(),
          "AMLEASE_HOLDER", config.holderId(),
          "AMLEASE_ZK", config.connectString(),
          "AMLEASE_PUBLISH", ThisJvm.publishCommand(config, java.util.Optional.empty())),
          stopTimeout, () -> lease.state().timeLeftIn(started));
    } catch (ChildProcess.NotReleased e) {
      LOG.warn("epoch {} ended while COMMAND's start gate was set up ({}); not starting COMMAND; "
          + "exiting {}", epoch.value(), lease.state().phase(), ExitCodes.LEASE_LOST);
      return ExitCodes.LEASE_LOST;
    } catch (IOException e) {
      err.println("amlease hold: cannot run " + e.getMessage());
      return ExitCodes.CANNOT_EXECUTE;
    }
    LOG.info("epoch {}: running {} (pid {})", epoch.value(), command, child.pid());
    if (lease instanceof ZkLease zk) {
      // Should this JVM die (SIGKILL, the OOM killer), its reaper ends COMMAND's group and then
      // this term's session, so that a contender acquires at once rather than after T.
      zk.termSession().ifPresent(child::handOverSession);
    }
    child.onExit().thenAccept(status -> events.add(new ChildExited(status)));
    try (DeadlineFeed feed = DeadlineFeed.start(child, () -> lease.state().timeLeftIn(started))) {
      return superviseChild(lease, config, child, started);
    } finally {
      if (!child.onExit().isDone()) {
        // Leaving abnormally (an interrupt, a bug): stop COMMAND before the lease is closed and
        // released, or a contender could act beside it (G2).
        LOG.warn("leaving while COMMAND runs; stopping its process group first");
        child.terminate(config.stopTimeout());
      }
    }
  }

  private int superviseChild(Lease lease, LeaseConfig config, ChildProcess child, Epoch epoch)
      throws InterruptedException {
    Duration stopTimeout = config.stopTimeout();
    while (true) {
      Event e = events.take();
      if (e instanceof ChildExited x && !lease.state().holds(epoch)) {
        // Its reaper ended the group at the deadline (this runner was paused or stuck), or it
        // exited as the term ended: a lease loss either way, not the command's own end.
        LOG.warn("COMMAND exited with status {} after epoch {} ended; exiting {}", x.status(),
            epoch.value(), ExitCodes.LEASE_LOST);
        return ExitCodes.LEASE_LOST;
      } else if (e instanceof ChildExited x) {
        // onExit completed only once COMMAND's whole process group was gone: nothing it started
        // runs on without the lease.
        LOG.info("COMMAND exited with status {}; releasing the lease", x.status());
        lease.release(config.connectionTimeout());
        return x.status();
      } else if (e instanceof Revoked r) {
        LOG.warn("lease lost ({}); stopping COMMAND", r.reason());
        int status = child.terminate(stopTimeout);
        LOG.warn("COMMAND stopped with status {}; exiting {}", status, ExitCodes.LEASE_LOST);
        return ExitCodes.LEASE_LOST;
      } else if (e instanceof Signalled s) {
        LOG.info("SIG{}: forwarding to COMMAND's process group, then releasing the lease", s.name());
        child.signal(s.name());
        int status = child.awaitOrKill(stopTimeout);
        lease.release(config.connectionTimeout());
        return status;
      }
    }
  }

  /**
   * The exit status to leave with when {@code e} comes before COMMAND started, or null to go on
   * waiting.
   */
  private Integer beforeStart(Event e) {
    if (e instanceof Revoked r) {
      // A lease runs one term, so a revocation before COMMAND started ends it whichever order it
      // came in relative to the grant ("Edges in order"): there is nothing left to run under.
      LOG.warn("lease lost ({}, epoch {}) before COMMAND started; not starting it; exiting {}",
          r.reason(), r.epoch(), ExitCodes.LEASE_LOST);
      return ExitCodes.LEASE_LOST;
    } else if (e instanceof Failed f) {
      err.println("amlease hold: " + f.cause().getMessage());
      return exitFor(f.cause());
    } else if (e instanceof Signalled s) {
      LOG.info("SIG{} before COMMAND started; leaving", s.name());
      return 128 + s.number();
    }
    return null;
  }

  private static List<String> participants(Lease lease) {
    try {
      return lease.participants();
    } catch (LeaseException e) {
      return List.of("unknown: " + e.getMessage());
    }
  }

  static int exitFor(LeaseException e) {
    if (e instanceof LeaseException.Unavailable) {
      return ExitCodes.UNAVAILABLE;
    } else if (e instanceof LeaseException.AccessDenied) {
      return ExitCodes.NO_PERMISSION;
    } else if (e instanceof LeaseException.BadData) {
      return ExitCodes.DATA_ERROR;
    }
    return ExitCodes.SOFTWARE;
  }
}
