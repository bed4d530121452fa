package io.amlease.cli;

import io.amlease.lease.Epoch;
import io.amlease.lease.LeaderInfo;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseConfigException;
import io.amlease.lease.LeaseException;
import io.amlease.lease.zk.Endpoints;
import io.amlease.lease.zk.ZkClients;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.commons.cli.CommandLine;
import org.apache.curator.framework.CuratorFramework;

/**
 * {@code amlease publish NAME=URL…}: a process running under a term (COMMAND of {@code hold}, the
 * master under the AM) adds its endpoints to the leader info, fenced by the term's token
 * ({@link Endpoints}). Lease, epoch and token come from the environment the holder gave it.
 */
final class PublishCommand {
  static final String ENV_ZK = "AMLEASE_ZK";
  static final String ENV_LEASE = "AMLEASE_LEASE";
  static final String ENV_EPOCH = "AMLEASE_EPOCH";
  static final String ENV_TOKEN = "AMLEASE_EPOCH_TOKEN";
  static final String ENV_INCARNATION = "AMLEASE_EPOCH_INCARNATION";

  private final CommandLines cli = new CommandLines("publish")
      .keyed("zk", "CONNECT", LeaseConfig.CONNECT, "ZooKeeper connect string (default: $"
          + ENV_ZK + ")")
      .keyed("lease", "PATH", LeaseConfig.LEASE_PATH, "lease path (default: $" + ENV_LEASE + ")")
      .keyed("connect-timeout", "D", LeaseConfig.CONNECTION_TIMEOUT,
          "give up if ZooKeeper is unreachable this long (default 15s)")
      .keyed("acl-credentials", "FILE", LeaseConfig.ACL_CREDENTIALS,
          "user:password file, when the lease's nodes have an ACL (the holder's)")
      .keyed("sasl-principal", "P", LeaseConfig.SASL_PRINCIPAL,
          "the SASL principal that owns the lease (the holder's), when it is SASL-protected")
      .keyed("sasl-login-context", "NAME", LeaseConfig.SASL_LOGIN_CONTEXT,
          "JAAS login context to log in to ZooKeeper with (default Client)")
      .flag("epoch", "N", "the term's epoch (default: $" + ENV_EPOCH + ")")
      .flag("token", "N", "the term's fencing token (default: $" + ENV_TOKEN + ")")
      .flag("incarnation", "NAME", "the epoch node's incarnation the token is bound to (default: $"
          + ENV_INCARNATION + ")");
  private final PrintStream out;
  private final PrintStream err;
  private final Function<String, String> env;

  PublishCommand(PrintStream out, PrintStream err, Function<String, String> env) {
    this.out = out;
    this.err = err;
    this.env = env;
  }

  String help() {
    return cli.help("amlease publish [--zk CONNECT --lease PATH --epoch N --token N "
            + "--incarnation NAME] NAME=URL...",
        "Adds the endpoints NAME=URL (e.g. rpc=host:7000 http=http://host:8080/) to the leader info "
            + "of the term this process runs under, as a write ZooKeeper accepts only while that "
            + "term's token is current. COMMAND of 'amlease hold' and the master of 'amlease "
            + "submit' get the lease, epoch and token in their environment, so they call it with "
            + "the endpoints alone once they listen. 'amlease leader --json' shows them; after a "
            + "failover they are the new master's, once it publishes.\n\n",
        "\n" + ExitCodes.PUBLISH_TABLE);
  }

  int run(String[] args) {
    Map<String, String> urls = new LinkedHashMap<>();
    LeaseConfig config;
    Epoch epoch;
    try {
      CommandLines.Parsed parsed = cli.parse(args);
      CommandLine cl = parsed.flags();
      if (cl.hasOption("help")) {
        out.print(help());
        return ExitCodes.OK;
      }
      for (String a : parsed.arguments()) {
        int eq = a.indexOf('=');
        String name = eq < 0 ? a : a.substring(0, eq);
        if (eq < 0 || !Endpoints.NAME.matcher(name).matches() || a.substring(eq + 1).isBlank()) {
          throw new CommandLines.UsageException("endpoint '" + a + "' is not NAME=URL (NAME: "
              + Endpoints.NAME.pattern() + ", URL not blank)");
        }
        urls.put(name, a.substring(eq + 1));
      }
      if (urls.isEmpty()) {
        throw new CommandLines.UsageException("no endpoint given: name at least one NAME=URL");
      }
      Map<String, String> given = cli.keys(cl);
      // The term's epoch and token come from the environment only with its lease: tokens repeat
      // across leases (epoch N has token N on most), so another lease needs its own.
      boolean ownLease = !given.containsKey(LeaseConfig.CONNECT)
          && !given.containsKey(LeaseConfig.LEASE_PATH);
      Map<String, String> keys = new LinkedHashMap<>();
      orEnv(keys, LeaseConfig.CONNECT, ENV_ZK);
      orEnv(keys, LeaseConfig.LEASE_PATH, ENV_LEASE);
      keys.putAll(given);
      try {
        config = LeaseConfig.fromMap(keys).build();
      } catch (LeaseConfigException e) {
        throw new CommandLines.UsageException(cli.describe(e) + (keys.containsKey(
            LeaseConfig.CONNECT) && keys.containsKey(LeaseConfig.LEASE_PATH) ? ""
                : " (or $" + ENV_ZK + " and $" + ENV_LEASE + ", which hold and the AM set)"));
      }
      epoch = new Epoch(number(cl, "epoch", ownLease ? ENV_EPOCH : null, 1),
          (int) number(cl, "token", ownLease ? ENV_TOKEN : null, 0),
          incarnation(cl, ownLease ? ENV_INCARNATION : null));
    } catch (CommandLines.UsageException e) {
      err.println("amlease publish: " + e.getMessage());
      err.println("(see amlease publish --help)");
      return ExitCodes.USAGE;
    }
    try (CuratorFramework client = ZkClients.connectOwner(config)) {
      LeaderInfo info = Endpoints.publish(client, config.leasePath(), epoch, urls);
      out.println(info.toLine());
      return ExitCodes.OK;
    } catch (LeaseException.NotLeader | LeaseException.Fenced e) {
      err.println("amlease publish: " + e.getMessage());
      return ExitCodes.LEASE_LOST;
    } catch (LeaseException e) {
      err.println("amlease publish: " + e.getMessage());
      return HoldCommand.exitFor(e);
    }
  }

  /** Puts {@code $var} under {@code key}, if set, for the flag to override. */
  private void orEnv(Map<String, String> keys, String key, String var) {
    String v = env.apply(var);
    if (v != null && !v.isBlank()) {
      keys.put(key, v);
    }
  }

  /** {@code --incarnation}, else {@code $var} (when not null), as the holder named it. */
  private String incarnation(CommandLine cl, String var) throws CommandLines.UsageException {
    String v = cl.hasOption("incarnation") ? cl.getOptionValue("incarnation")
        : var == null ? null : env.apply(var);
    if (v == null || v.isBlank()) {
      throw new CommandLines.UsageException("--incarnation is required" + (var == null
          ? " with --zk or --lease (the environment's term is another lease's)"
          : " (or $" + var + ", which hold and the AM set for their COMMAND)"));
    }
    if (!Epoch.INCARNATION.matcher(v.trim()).matches()) {
      throw new CommandLines.UsageException((cl.hasOption("incarnation") ? "--incarnation"
          : "$" + var) + ": '" + v + "' is not an incarnation name (" + Epoch.INCARNATION.pattern()
          + ")");
    }
    return v.trim();
  }

  /** {@code --flag}, else {@code $var} (when not null); a whole number within [min, 2^31 - 1]. */
  private long number(CommandLine cl, String flag, String var, long min)
      throws CommandLines.UsageException {
    String v = cl.hasOption(flag) ? cl.getOptionValue(flag) : var == null ? null : env.apply(var);
    if (v == null || v.isBlank()) {
      throw new CommandLines.UsageException("--" + flag + " is required" + (var == null
          ? " with --zk or --lease (the environment's term is another lease's)"
          : " (or $" + var + ", which hold and the AM set for their COMMAND)"));
    }
    String source = cl.hasOption(flag) ? "--" + flag : "$" + var;
    try {
      long n = Long.parseLong(v.trim());
      if (n < min || n > Integer.MAX_VALUE) {
        throw new CommandLines.UsageException(source + ": " + n + " is outside [" + min + ", "
            + Integer.MAX_VALUE + "]");
      }
      return n;
    } catch (NumberFormatException e) {
      throw new CommandLines.UsageException(source + ": '" + v + "' is not a whole number");
    }
  }
}
