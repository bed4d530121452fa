package io.amlease.am.client;

import io.amlease.am.AmSettings;
import io.amlease.am.WorkerCountNodes;
import io.amlease.lease.DigestCredentials;
import io.amlease.lease.Durations;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseConfigException;
import io.amlease.lease.LeaseException;
import io.amlease.lease.zk.ZkClients;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * {@code amlease flex APP_ID --workers N}: changes the worker count of a running application. The
 * count is left under the application's lease ({@link WorkerCountNodes}); the leading AM applies it
 * with a fenced write and starts or stops workers, and every later attempt runs it too. Waits until
 * it is applied, or until {@code --wait} has passed (the request then stays for the next leader).
 */
public final class FlexCommand extends Configured implements Tool {
  static final Duration DEFAULT_WAIT = Duration.ofSeconds(60);
  private static final Duration POLL = Duration.ofMillis(200);
  private static final Duration PROGRESS = Duration.ofSeconds(10);
  static final int NOT_APPLIED = 75;
  static final int NO_PERMISSION = 77;
  private static final EnumSet<YarnApplicationState> ENDED = EnumSet.of(
      YarnApplicationState.FINISHED, YarnApplicationState.FAILED, YarnApplicationState.KILLED);

  static final String USAGE = "usage: amlease flex [generic options] APP_ID --workers N "
      + "[--wait D] [--acl-credentials FILE] [--sasl-login-context NAME]\n"
      + "  --workers N               the worker count from now on, 0 to "
      + WorkerCountNodes.MAX_WORKERS + "\n"
      + "  --wait D                  how long to wait for the leading AM to apply it (default "
      + Durations.format(DEFAULT_WAIT) + ")\n"
      + "  --acl-credentials FILE    user:password file, when the lease has an ACL (the one given "
      + "to submit)\n"
      + "  --sasl-login-context NAME JAAS login context (default Client) to log in to ZooKeeper "
      + "as the\n"
      + "                            lease's SASL principal, when it has one (JAAS file: "
      + "AMLEASE_OPTS=\n"
      + "                            -Djava.security.auth.login.config=FILE)\n"
      + "The count outlives AM attempts: every later attempt runs it, not the submitted one.\n"
      + "Exit status: 0 applied by the leading AM, 1 no such application or it has ended,\n"
      + "  64 bad arguments, 65 malformed count in ZooKeeper, 69 ZooKeeper unreachable,\n"
      + "  75 not applied within --wait (the request stays; the next leading AM applies it),\n"
      + "  77 ZooKeeper denied access to the lease's nodes (ACL).";

  private final PrintStream out;
  private final PrintStream err;

  public FlexCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  private record Args(ApplicationId app, int workers, Duration within,
      Optional<DigestCredentials> credentials, Optional<String> saslLoginContext) {}

  /** Thrown for bad arguments: exit 64 with the message. */
  private static final class Usage extends Exception {
    Usage(String message) {
      super(message);
    }
  }

  @Override
  public int run(String[] argv) throws Exception {
    Args args;
    try {
      if (argv.length == 1 && (argv[0].equals("-h") || argv[0].equals("--help"))) {
        out.println(USAGE);
        return 0;
      }
      args = parse(argv);
    } catch (Usage | LeaseConfigException e) {
      err.println("amlease flex: " + e.getMessage() + "\n" + USAGE);
      return SubmitCommand.USAGE;
    }
    YarnClient yarn = YarnClient.createYarnClient();
    yarn.init(getConf());
    yarn.start();
    try {
      YarnApplicationState state;
      try {
        state = yarn.getApplicationReport(args.app()).getYarnApplicationState();
      } catch (ApplicationNotFoundException e) {
        err.println("amlease flex: no application " + args.app());
        return 1;
      }
      if (ENDED.contains(state)) {
        err.println("amlease flex: " + args.app() + " is " + state + ": it runs no workers");
        return 1;
      }
      Configuration staged = Staging.settings(getConf(), args.app(), err);
      if (staged == null) {
        err.println("amlease flex: the settings of " + args.app() + " are gone or not yours "
            + "(its staging directory), so its lease is unknown");
        return 1;
      }
      if (args.workers() > 0 && staged.getTrimmed(AmSettings.WORKER_COMMAND, "").isEmpty()) {
        err.println("amlease flex: " + args.app() + " was submitted without --worker-command: it "
            + "has no workers to run; --workers must be 0");
        return SubmitCommand.USAGE;
      }
      LeaseConfig lease;
      try {
        String saslPrincipal = staged.getTrimmed(LeaseConfig.SASL_PRINCIPAL, "");
        lease = LeaseConfig.builder().connectString(staged.get(LeaseConfig.CONNECT))
            .leasePath(staged.get(LeaseConfig.LEASE_PATH))
            .aclCredentials(args.credentials().map(DigestCredentials::file).orElse(null))
            .saslPrincipal(saslPrincipal.isEmpty() ? null : saslPrincipal)
            .saslLoginContext(args.saslLoginContext().orElse(
                staged.getTrimmed(LeaseConfig.SASL_LOGIN_CONTEXT,
                    LeaseConfig.DEFAULT_SASL_LOGIN_CONTEXT)))
            .build();
      } catch (LeaseConfigException e) {
        err.println("amlease flex: " + e.getMessage() + "\n" + USAGE);
        return SubmitCommand.USAGE;
      }
      return flex(lease, args);
    } finally {
      yarn.stop();
    }
  }

  private static Args parse(String[] argv) throws Usage {
    String app = null;
    String workers = null;
    Duration wait = DEFAULT_WAIT;
    Optional<DigestCredentials> credentials = Optional.empty();
    Optional<String> loginContext = Optional.empty();
    for (int i = 0; i < argv.length; i++) {
      String a = argv[i];
      boolean valued = a.equals("--workers") || a.equals("--wait") || a.equals("--acl-credentials")
          || a.equals("--sasl-login-context");
      if (valued && i + 1 >= argv.length) {
        throw new Usage(a + " needs a value");
      }
      switch (a) {
        case "--workers" -> workers = argv[++i];
        case "--wait" -> wait = Durations.parseNonNegative("--wait", argv[++i]);
        case "--acl-credentials" -> credentials = Optional.of(
            DigestCredentials.load(Path.of(argv[++i])));
        case "--sasl-login-context" -> loginContext = Optional.of(argv[++i]);
        default -> {
          if (a.startsWith("-") || app != null) {
            throw new Usage("unexpected argument '" + a + "'");
          }
          app = a;
        }
      }
    }
    ApplicationId id;
    try {
      id = ApplicationId.fromString(app);
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new Usage(app == null ? "APP_ID is missing" : "'" + app + "' is not an application id");
    }
    if (workers == null) {
      throw new Usage("--workers is missing");
    }
    int n;
    try {
      n = Integer.parseInt(workers);
    } catch (NumberFormatException e) {
      n = -1;
    }
    if (n < 0 || n > WorkerCountNodes.MAX_WORKERS) {
      throw new Usage("--workers " + workers + " is not a count from 0 to "
          + WorkerCountNodes.MAX_WORKERS);
    }
    return new Args(id, n, wait, credentials, loginContext);
  }

  /**
   * Leaves {@code count} in the request node, made anew or replacing a request not applied yet;
   * returns the node's stat after our write.
   */
  private static Stat write(CuratorFramework zk, String requested, byte[] count)
      throws Exception {
    while (true) {
      try {
        Stat made = new Stat();
        // The lease's ACL, from the owner client's ACL provider.
        zk.create().storingStatIn(made).withMode(CreateMode.PERSISTENT)
            .forPath(requested, count);
        return made;
      } catch (KeeperException.NodeExistsException pendingRequest) {
        try {
          return zk.setData().forPath(requested, count);
        } catch (KeeperException.NoNodeException appliedMeanwhile) {
          // The AM applied that one between the two calls: make ours.
        }
      }
    }
  }

  /** Leaves the request under the lease and waits for the leading AM to apply it. */
  private int flex(LeaseConfig config, Args args) throws InterruptedException {
    String lease = config.leasePath();
    String connect = config.connectString();
    String requested = WorkerCountNodes.requested(lease);
    String applied = WorkerCountNodes.applied(lease);
    try (CuratorFramework zk = ZkClients.connectOwner(config)) {
      if (zk.checkExists().forPath(lease) == null) {
        err.println("amlease flex: lease " + lease + " on " + connect + " does not exist: the "
            + "application has not campaigned yet");
        return 1;
      }
      byte[] count = WorkerCountNodes.bytes(args.workers());
      Stat request = write(zk, requested, count);
      err.println("amlease flex: asked " + lease + " for " + args.workers() + " workers; waiting "
          + "up to " + Durations.format(args.within()) + " for the leading AM to apply it");
      long start = System.nanoTime();
      long nextProgress = start + PROGRESS.toNanos();
      while (System.nanoTime() - start < args.within().toNanos()) {
        Stat pending = zk.checkExists().forPath(requested);
        // Only the leading AM removes a request: ours is applied once its node is gone, even if
        // another flex has made a new one since.
        if (pending == null || pending.getCzxid() != request.getCzxid()) {
          int now;
          try {
            now = WorkerCountNodes.parse(applied, zk.getData().forPath(applied));
          } catch (KeeperException.NoNodeException none) {
            now = -1;
          }
          if (now == args.workers()) {
            out.println(args.app() + " workers " + now);
            return 0;
          }
          err.println("amlease flex: the count is " + now + ": another flex came after this one");
          return NOT_APPLIED;
        }
        if (pending.getMzxid() != request.getMzxid()) {
          err.println("amlease flex: another flex replaced this request before it was applied");
          return NOT_APPLIED;
        }
        long t = System.nanoTime();
        if (t > nextProgress) {
          err.println("amlease flex: still waiting for the leading AM ("
              + Durations.format(Duration.ofNanos(t - start)) + ")");
          nextProgress = t + PROGRESS.toNanos();
        }
        Thread.sleep(POLL.toMillis());
      }
      err.println("amlease flex: not applied within " + Durations.format(args.within()) + " (no "
          + "leading AM now?); the request stays in " + requested + " and the next leading AM "
          + "applies it");
      return NOT_APPLIED;
    } catch (LeaseException.Unavailable e) {
      err.println("amlease flex: " + e.getMessage());
      return SubmitCommand.UNAVAILABLE;
    } catch (LeaseException.AccessDenied e) {
      err.println("amlease flex: " + e.getMessage());
      return NO_PERMISSION;
    } catch (KeeperException.NoAuthException e) {
      err.println("amlease flex: ZooKeeper denied access to " + e.getPath() + ": the lease's nodes "
          + "have an ACL; pass --acl-credentials with the file given to submit"
          + (config.saslPrincipal().isEmpty() ? "" : ", or log in as its SASL principal '"
              + config.saslPrincipal().get() + "' (JAAS login context '"
              + config.saslLoginContext() + "')"));
      return NO_PERMISSION;
    } catch (IllegalArgumentException e) {
      err.println("amlease flex: " + e.getMessage());
      return 65;
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      err.println("amlease flex: " + e);
      return SubmitCommand.UNAVAILABLE;
    }
  }
}
